package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A planned switchover in the middle of an SDK workload: writes pause (the old primary answers
 * {@code -FENCED}, the client retries), move to the new primary, and every one of them succeeds and
 * is readable there: nothing acknowledged is lost, no key is fenced. Seed printed.
 */
class SwitchoverTest {
    @Test
    void everyWriteOfAWorkloadSpanningASwitchoverSucceedsAndIsServedByTheNewPrimary() throws Exception {
        long seed = Long.getLong("kvs.seed", System.nanoTime());
        System.out.println("SwitchoverTest seed " + seed);
        Random rnd = new Random(seed);
        ReplicatorConfig replication = ReplicatorConfig.builder()
                .writeTimeout(Duration.ofSeconds(5))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(200))
                .build();
        Map<String, byte[]> acked = new ConcurrentHashMap<>();
        try (TwoDc dc = TwoDc.builder()
                        .names("dc-a", "dc-b")
                        .store(Nodes.store().build())
                        .replication(replication)
                        .link(Duration.ofMillis(2), 50_000_000)
                        .returnLink(Duration.ofMillis(2))
                        .start();
                KvsClient client = KvsClient.builder()
                        .endpoints(dc.primaryEndpoint(), dc.backupEndpoint())
                        .mode(ReplicationMode.ID_FIRST)
                        .unfinishedRetryDeadline(Duration.ofSeconds(20))
                        .requestTimeout(Duration.ofSeconds(30))
                        .build()) {
            int switchAt = 100 + rnd.nextInt(200);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            CompletableFuture<String> switchover = null;
            int afterSwitchover = 0;
            // keep writing until the switchover has answered and 100 more writes were sent after it
            for (int i = 0; afterSwitchover < 100; i++) {
                String key = "s" + i;
                byte[] value = new byte[1 + rnd.nextInt(8 * 1024)];
                rnd.nextBytes(value);
                writes.add(client.putAsync(key.getBytes(), value).thenRun(() -> acked.put(key, value)));
                if (i == switchAt) switchover = post(dc.primary().adminPort(), "/switchover?timeoutMs=20000");
                if (switchover != null && switchover.isDone()) afterSwitchover++;
                if (i % 50 == 0) writes.get(writes.size() - 1).join(); // keep a bounded window in flight
            }
            CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).join();
            assertThat(switchover.join()).contains("\"epoch\":2");
            assertThat(acked).hasSize(writes.size());
            // the workload spanned the switchover: the new primary ordered writes in its epoch
            String status = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + dc.backup().adminPort() + "/status"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(status).containsPattern("\"lastTxId\":\"2:[1-9]");

            try (KvsClient reader =
                    KvsClient.builder().endpoints(dc.backupEndpoint()).build()) {
                for (Map.Entry<String, byte[]> e : acked.entrySet()) {
                    assertThat(reader.get(e.getKey().getBytes())).as(e.getKey()).isEqualTo(e.getValue());
                }
            }
        }
    }

    private static CompletableFuture<String> post(int port, String path) {
        return HttpClient.newHttpClient()
                .sendAsync(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .header("X-Kvs-Admin", "1")
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .thenApply(HttpResponse::body);
    }
}
