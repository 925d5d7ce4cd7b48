package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.KvsNode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The SDK example of {@code docs/client.md}, against an in-process node instead of {@code ./kvs server}. */
class ReadmeExampleTest {

    @Test
    void readmeExampleRuns() {
        try (KvsNode node = KvsNode.start(Nodes.primary("readme").build());
                KvsNode backup = Nodes.startBackup("readme-backup")) {
            try (KvsClient kvs = KvsClient.builder()
                    .endpoints(Nodes.endpoint(node), Nodes.endpoint(backup)) // main DC first, then the backup DC
                    .mode(ReplicationMode.ID_FIRST)
                    .unfinishedRetryDeadline(Duration.ofSeconds(2))
                    .build()) {
                kvs.put("greeting", "hello");
                assertThat(kvs.get("greeting")).isEqualTo("hello");
                assertThat(kvs.get("nope")).isNull();

                CompletableFuture<?>[] writes = new CompletableFuture<?>[1000];
                for (int i = 0; i < writes.length; i++) {
                    writes[i] = kvs.putAsync(("k" + i).getBytes(), new byte[1024]);
                }
                CompletableFuture.allOf(writes).join();

                byte[] v = kvs.get("k1".getBytes());
                assertThat(v).hasSize(1024);
            }
        }
    }
}
