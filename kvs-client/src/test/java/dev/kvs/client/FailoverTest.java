package dev.kvs.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.KvsNode;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Endpoint order, a backup listed first, a dead endpoint, and a primary lost in the middle of a workload. */
class FailoverTest {

    @Test
    void requestsLandOnThePrimaryWhenTheBackupIsListedFirst() {
        try (TwoDc dc = TwoDc.builder()
                        .names("dc1", "dc2")
                        .store(Nodes.store().build())
                        .directLink()
                        .start();
                KvsClient client = KvsClient.builder()
                        .endpoints(dc.backupEndpoint(), dc.primaryEndpoint())
                        .build()) {
            client.put("k", "v");
            assertThat(client.get("k")).isEqualTo("v");
            assertThat(client.activeEndpoint()).isEqualTo(dc.primaryEndpoint());
            for (int i = 0; i < 50; i++) client.put("k" + i, "v" + i);
            assertThat(client.getAll(List.of("k0".getBytes(UTF_8), "k49".getBytes(UTF_8))))
                    .containsExactly("v0".getBytes(UTF_8), "v49".getBytes(UTF_8));
        }
    }

    @Test
    void deadFirstEndpointIsPassedOver() throws Exception {
        try (Nodes.DeadEndpoint dead = Nodes.deadEndpoint();
                KvsNode primary = KvsNode.start(Nodes.primary("dc1").build());
                KvsClient client = KvsClient.builder()
                        .endpoints(dead.endpoint(), Nodes.endpoint(primary))
                        .build()) {
            client.put("k", "v");
            assertThat(client.get("k")).isEqualTo("v");
            assertThat(client.activeEndpoint()).isEqualTo(Nodes.endpoint(primary));
        }
    }

    @Test
    void noPrimaryAnywhereFailsNamingEveryEndpoint() throws Exception {
        try (Nodes.DeadEndpoint dead = Nodes.deadEndpoint();
                KvsNode backup = Nodes.startBackup("dc2");
                KvsClient client = KvsClient.builder()
                        .endpoints(dead.endpoint(), Nodes.endpoint(backup))
                        .build()) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOf(NoPrimaryException.class)
                    .hasMessageContaining(dead.endpoint() + " (cannot connect")
                    .hasMessageContaining(Nodes.endpoint(backup) + " (NOTPRIMARY");
            assertThatThrownBy(() -> client.get("k")).isInstanceOf(NoPrimaryException.class);
        }
    }

    @Test
    void clientReturnsToThePreferredEndpointOnceItIsUp() throws Exception {
        Nodes.DeadEndpoint down = Nodes.deadEndpoint(); // held until main starts on its port
        int preferredPort = down.holder().getLocalPort();
        String preferred = down.endpoint();
        try (down;
                KvsNode other = KvsNode.start(Nodes.primary("dc2").build());
                KvsClient client = KvsClient.builder()
                        .endpoints(preferred, Nodes.endpoint(other))
                        .endpointRecheckInterval(Duration.ofMillis(100))
                        .build()) {
            client.put("k", "on-other");
            assertThat(client.activeEndpoint()).isEqualTo(Nodes.endpoint(other));
            down.close();
            try (KvsNode main =
                    KvsNode.start(Nodes.primary("dc1").port(preferredPort).build())) {
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    client.put("k", "on-main");
                    return client.activeEndpoint().equals(preferred);
                });
                assertThat(client.get("k")).isEqualTo("on-main");
            }
        }
    }

    /**
     * Simulates a failover (promotion does not exist yet): "main" is closed in the middle of a
     * pipelined write workload while "other", a second standalone primary listed second, is up.
     * Every write must end acknowledged or failed with {@link ConnectionLostException}; every
     * acknowledged one must be found afterwards on main (restarted from its data directory) or on
     * other. Reads must never fail.
     */
    @Test
    void primaryLostMidWorkloadLosesNoAcknowledgedWrite(@TempDir Path mainData) throws Exception {
        KvsNode main = KvsNode.start(Nodes.primary("main")
                .store(Nodes.store().dataDir(mainData).build())
                .build());
        int otherPort = Nodes.freePort();
        Map<String, Boolean> acked = new ConcurrentHashMap<>();
        Set<String> maybeApplied = ConcurrentHashMap.newKeySet();
        List<Throwable> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger readFailures = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        int window = 64;
        Semaphore inFlight = new Semaphore(window);
        KvsNode other = null;
        try (KvsClient client = KvsClient.builder()
                .endpoints(Nodes.endpoint(main), "127.0.0.1:" + otherPort)
                .endpointRecheckInterval(Duration.ofMillis(100))
                .requestTimeout(Duration.ofSeconds(10))
                .build()) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        inFlight.acquire();
                        String key = "w" + i;
                        client.putAsync(key.getBytes(UTF_8), (key + "-v").getBytes(UTF_8))
                                .whenComplete((ok, e) -> {
                                    if (e == null) {
                                        acked.put(key, Boolean.TRUE);
                                    } else if (e instanceof ConnectionLostException) {
                                        maybeApplied.add(key);
                                    } else {
                                        unexpected.add(e);
                                    }
                                    inFlight.release();
                                });
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Thread reader = new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    try {
                        client.get("w" + i);
                    } catch (RuntimeException e) {
                        readFailures.incrementAndGet();
                        unexpected.add(e);
                    }
                }
            });
            writer.start();
            reader.start();

            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= 500);
            other = KvsNode.start(Nodes.primary("other").port(otherPort).build());
            main.close();
            int ackedAtClose = acked.size();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> client.activeEndpoint().equals("127.0.0.1:" + otherPort)
                            && acked.size() >= ackedAtClose + 500);

            stop.set(true);
            writer.join(10_000);
            reader.join(10_000);
            assertThat(inFlight.tryAcquire(window, 30, TimeUnit.SECONDS))
                    .as("every write completed")
                    .isTrue();
        }

        System.out.printf(
                "failover: %d writes acknowledged, %d failed as maybe applied%n", acked.size(), maybeApplied.size());
        assertThat(unexpected).isEmpty();
        assertThat(readFailures).hasValue(0);
        try (KvsNode mainAgain = KvsNode.start(main.config());
                KvsClient onMain =
                        KvsClient.builder().endpoints(Nodes.endpoint(mainAgain)).build();
                KvsClient onOther =
                        KvsClient.builder().endpoints(Nodes.endpoint(other)).build()) {
            List<String> missing = new ArrayList<>();
            for (String key : acked.keySet()) {
                byte[] expected = (key + "-v").getBytes(UTF_8);
                byte[] m = onMain.get(key.getBytes(UTF_8));
                byte[] o = onOther.get(key.getBytes(UTF_8));
                if (!java.util.Arrays.equals(m, expected) && !java.util.Arrays.equals(o, expected)) missing.add(key);
            }
            assertThat(missing).as("acknowledged writes found nowhere").isEmpty();
        } finally {
            other.close();
        }
    }
}
