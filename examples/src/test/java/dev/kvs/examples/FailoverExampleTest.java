package dev.kvs.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.client.KvsClient;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link FailoverExample}'s logic against a real in-process pair over a slow emulated WAN
 * link: the main DC dies with values still on the wire, a write waits for the promotion and lands on
 * the new primary, and the read-back reports the missing values as unfinished, then as lost.
 */
class FailoverExampleTest {
    private static final int KEYS = 10;

    @Test
    void writesRideThroughAFailoverAndMissingValuesAreReportedNotServed() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (TwoDc dc = TwoDc.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(64L << 20)
                                .build())
                        .failover(new FailoverConfig(FailoverConfig.ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO))
                        // 1 Mbit/s: a 32 KiB value takes ~260 ms on the wire, so values queue behind the key packets
                        .link(Duration.ofMillis(2), 1_000_000)
                        .start();
                KvsClient kvs = FailoverExample.connect(dc.primaryEndpoint(), dc.backupEndpoint())) {
            String backupEndpoint = dc.backupEndpoint();
            FailoverExample example = new FailoverExample(
                    kvs, new PrintStream(printed, true, StandardCharsets.UTF_8), Duration.ofSeconds(30));
            String big = "v".repeat(32 * 1024);
            for (int i = 0; i < KEYS; i++) {
                assertThat(example.write("example:" + i, big + i)).isTrue();
            }
            assertThat(example.readBack()).isEqualTo(new FailoverExample.Tally(KEYS, 0, 0, 0));

            // the disaster: the main DC and its link go down with values still queued
            dc.link().cut();
            dc.stopPrimary();

            // a write now finds no primary: the example waits for one (nothing was executed)
            CompletableFuture<Boolean> duringFailover =
                    CompletableFuture.supplyAsync(() -> example.write("after-failover", "new primary"));
            await().atMost(Duration.ofSeconds(30)).until(() -> example.noPrimaryRetries() > 0);
            assertThat(duringFailover).isNotDone();
            assertThat(post(dc.backup(), "/promote")).contains("\"role\":\"primary\"");
            assertThat(duringFailover.get()).isTrue();
            assertThat(kvs.activeEndpoint()).isEqualTo(backupEndpoint);
            assertThat(printed.toString(StandardCharsets.UTF_8)).contains("after-failover: no primary, waiting");

            FailoverExample.Tally afterPromotion = example.readBack();
            System.out.println("after promotion: " + afterPromotion);
            assertThat(afterPromotion.wrong()).as("never a wrong value").isZero();
            assertThat(afterPromotion.lost()).isZero();
            assertThat(afterPromotion.unfinished())
                    .as("values still on the wire")
                    .isPositive();
            assertThat(afterPromotion.complete() + afterPromotion.unfinished()).isEqualTo(KEYS + 1);

            post(dc.backup(), "/declare-lost");
            FailoverExample.Tally afterDeclareLost = example.readBack();
            System.out.println("after declare-lost: " + afterDeclareLost);
            assertThat(afterDeclareLost)
                    .isEqualTo(new FailoverExample.Tally(afterPromotion.complete(), 0, 0, afterPromotion.unfinished()));
        }
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
