package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The acknowledgements listener hears the node that acknowledged a write (not the one that refused it
 * first), with its send and answer times, and hears nothing of reads or failed writes.
 */
class AcknowledgementsTest {
    private record Heard(String key, String node, long sent, long answered) {}

    @Test
    void aWriteIsCreditedToTheNodeThatAcknowledgedItAndReadsAndFailuresAreNot() {
        List<Heard> heard = new CopyOnWriteArrayList<>();
        try (FakeRespServer primary =
                        FakeRespServer.start((cmd, conn) -> cmd.get(1).equals("bad")
                                ? "-ERR no\r\n"
                                : cmd.get(0).equals("GET") ? "$1\r\nv\r\n" : "+OK\r\n");
                FakeRespServer backup = FakeRespServer.start(
                        (cmd, conn) -> "-NOTPRIMARY " + primary.endpoint() + " this node is a backup\r\n");
                KvsClient client = KvsClient.builder()
                        .endpoints(backup.endpoint(), primary.endpoint())
                        .acknowledgements((keys, node, sent, answered) -> heard.add(
                                new Heard(new String(keys.get(0), StandardCharsets.UTF_8), node, sent, answered)))
                        .build()) {
            long before = System.nanoTime();
            client.put("k", "v");
            long after = System.nanoTime();
            assertThat(client.get("k")).isEqualTo("v");
            try {
                client.put("bad", "v");
            } catch (KvsClientException expected) {
                // refused: not an acknowledgement
            }
            assertThat(heard).hasSize(1);
            Heard h = heard.get(0);
            assertThat(h.key()).isEqualTo("k");
            assertThat(h.node()).isEqualTo(primary.endpoint());
            assertThat(h.sent()).isBetween(before, h.answered());
            assertThat(h.answered()).isLessThanOrEqualTo(after);
            assertThat(backup.count("SET")).isEqualTo(1);
        }
    }
}
