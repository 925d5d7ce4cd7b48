package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A backup's {@code -NOTPRIMARY host:port} sends the request straight to that endpoint. */
class PrimaryHintTest {

    @Test
    void theEndpointANotPrimaryReplyNamesIsTriedNext() {
        try (FakeRespServer primary = FakeRespServer.start((cmd, conn) -> "$5\r\nvalue\r\n");
                FakeRespServer other = FakeRespServer.start((cmd, conn) -> "-NOTPRIMARY - this node is a backup\r\n");
                FakeRespServer backup = FakeRespServer.start((cmd, conn) ->
                        "-NOTPRIMARY " + primary.endpoint() + " this node is a backup; read from the primary\r\n");
                KvsClient client = KvsClient.builder()
                        .endpoints(backup.endpoint(), other.endpoint(), primary.endpoint())
                        .build()) {
            assertThat(client.get("k")).isEqualTo("value");
            assertThat(backup.count("GET")).isEqualTo(1);
            assertThat(other.count("GET"))
                    .as("the endpoint listed second is skipped: the backup named the primary")
                    .isZero();
            assertThat(primary.received()).containsExactly(List.of("GET", "k"));
        }
    }

    @Test
    void aNamedAddressThatIsNoEndpointFallsBackToTheListOrder() {
        try (FakeRespServer primary = FakeRespServer.start((cmd, conn) -> "$5\r\nvalue\r\n");
                FakeRespServer backup = FakeRespServer.start(
                        (cmd, conn) -> "-NOTPRIMARY 192.0.2.1:6380 this node is a backup; read from the primary\r\n");
                KvsClient client = KvsClient.builder()
                        .endpoints(backup.endpoint(), primary.endpoint())
                        .build()) {
            assertThat(client.get("k")).isEqualTo("value");
            assertThat(primary.count("GET")).isEqualTo(1);
        }
    }

    /** A pair's primary whose lease lapsed answers {@code -CLUSTERDOWN}: the other endpoint is tried. */
    @Test
    void aClusterDownEndpointIsPassedOverForTheOther() {
        try (FakeRespServer cutOff = FakeRespServer.start((cmd, conn) -> "-CLUSTERDOWN The cluster is down\r\n");
                FakeRespServer promoted = FakeRespServer.start((cmd, conn) -> "+OK\r\n");
                KvsClient client = KvsClient.builder()
                        .endpoints(cutOff.endpoint(), promoted.endpoint())
                        .build()) {
            client.put("k", "v");
            client.put("k", "w");
            assertThat(cutOff.count("SET")).isEqualTo(1);
            assertThat(promoted.received()).containsExactly(List.of("SET", "k", "v"), List.of("SET", "k", "w"));
        }
    }
}
