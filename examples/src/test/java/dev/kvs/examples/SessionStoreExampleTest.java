package dev.kvs.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.client.KvsClient;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.ValueType;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link SessionStoreExample} against a real in-process pair over a slow emulated WAN link:
 * sessions are written twice (a small version, then one with a large cart), the main DC dies with
 * the second versions still on the wire, and after the promotion every session reads as its latest
 * version or as unfinished, then lost: never as its first, older version.
 */
class SessionStoreExampleTest {
    private static final int SESSIONS = 8;

    @Test
    void aSessionIsItsLatestVersionOrFencedAfterAFailover() throws Exception {
        try (TwoDc dc = TwoDc.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(64L << 20)
                                .build())
                        .failover(new FailoverConfig(FailoverConfig.ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO))
                        // 1 Mbit/s: a 12 KiB cart takes ~100 ms on the wire, so values queue behind key packets
                        .link(Duration.ofMillis(2), 1_000_000)
                        .start();
                KvsClient kvs = FailoverExample.connect(dc.primaryEndpoint(), dc.backupEndpoint())) {
            SessionStoreExample store = new SessionStoreExample(kvs, Duration.ofMinutes(30));
            String cart = "item;".repeat(12 * 1024 / 5); // a field with its value may take 16 KiB
            for (int i = 0; i < SESSIONS; i++) store.save("s" + i, Map.of("user", "u" + i, "version", "1"));
            // let the first versions reach the backup whole, so a stale read would have one to serve
            await("first versions on the backup")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> firstVersionsOn(dc.backup()));
            for (int i = 0; i < SESSIONS; i++) {
                store.save("s" + i, Map.of("version", "2", "cart", cart + i));
            }
            assertThat(store.find("s0").attributes()).containsEntry("version", "2");

            dc.link().cut();
            dc.stopPrimary();
            post(dc.backup(), "/promote");
            assertThat(kvs.ping()).isEqualTo("PONG");

            Map<SessionStoreExample.Lookup.Status, Integer> seen = tally(store);
            System.out.println("after promotion: " + seen);
            assertThat(seen.getOrDefault(SessionStoreExample.Lookup.Status.UNFINISHED, 0))
                    .as("second versions still on the wire")
                    .isPositive();
            for (int i = 0; i < SESSIONS; i++) {
                SessionStoreExample.Lookup l = store.find("s" + i);
                if (l.status() == SessionStoreExample.Lookup.Status.FOUND) {
                    assertThat(l.attributes())
                            .as("s" + i + " is its latest version, never its first")
                            .containsEntry("version", "2")
                            .containsEntry("cart", cart + i)
                            .containsEntry("user", "u" + i);
                }
            }

            post(dc.backup(), "/declare-lost");
            Map<SessionStoreExample.Lookup.Status, Integer> afterLost = tally(store);
            System.out.println("after declare-lost: " + afterLost);
            assertThat(afterLost.get(SessionStoreExample.Lookup.Status.LOST))
                    .isEqualTo(seen.get(SessionStoreExample.Lookup.Status.UNFINISHED));
            assertThat(afterLost.getOrDefault(SessionStoreExample.Lookup.Status.UNFINISHED, 0))
                    .isZero();

            // the new primary keeps serving sessions: a new one, and an update of a found one
            store.save("new", Map.of("user", "late"));
            assertThat(store.find("new").attributes()).containsEntry("user", "late");
        }
    }

    /** True once the backup holds every session's first version complete (two attributes). */
    private static boolean firstVersionsOn(KvsNode backup) {
        for (int i = 0; i < SESSIONS; i++) {
            byte[] key = ("session:s" + i).getBytes(StandardCharsets.UTF_8);
            RecordHeader h = backup.store().header(key);
            if (h == null || h.state() != RecordState.COMPLETE) return false;
            if (backup.store().memberCount(key, ValueType.HASH) != 2) return false;
        }
        return true;
    }

    private static Map<SessionStoreExample.Lookup.Status, Integer> tally(SessionStoreExample store) {
        Map<SessionStoreExample.Lookup.Status, Integer> counts = new EnumMap<>(SessionStoreExample.Lookup.Status.class);
        for (int i = 0; i < SESSIONS; i++) counts.merge(store.find("s" + i).status(), 1, Integer::sum);
        return counts;
    }

    private static String post(KvsNode node, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + path))
                                .header("X-Kvs-Admin", "1")
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return response.body();
    }
}
