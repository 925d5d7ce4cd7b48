package dev.kvs.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link KvsTransaction} against a real redis-server 7 and a kvs node: the same transactions must
 * commit, abort on a watched key's write or expiry, and report each write's result alike on both.
 */
class TransactionsTest {
    private static RedisAndKvs servers;

    @BeforeAll
    static void start() {
        servers = RedisAndKvs.start("transactions-test");
    }

    @AfterAll
    static void stop() {
        if (servers != null) servers.close();
    }

    private static KvsClient client(String server) {
        return servers.client(server);
    }

    private static byte[] b(String s) {
        return RedisAndKvs.b(s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void aCommitAppliesEveryWriteAndGivesEachResult(String server) {
        KvsClient c = client(server);
        byte[] str = b("tx:" + server + ":str");
        byte[] hash = b("tx:" + server + ":hash");
        byte[] set = b("tx:" + server + ":set");
        Optional<List<Object>> results;
        try (KvsTransaction tx = c.transaction(List.of(), hash)) {
            tx.put(str, b("v"))
                    .hashPut(hash, Map.of("a", b("1"), "b", b("2")))
                    .hashIncrement(hash, b("a"), 41)
                    .setAdd(set, List.of(b("m"), b("n")))
                    .expire(hash, Duration.ofMinutes(5))
                    .delete(b("tx:" + server + ":absent"));
            results = tx.commit();
        }
        assertThat(results).isPresent();
        assertThat(results.get()).containsExactly(null, 2L, 42L, 2L, true, false);
        assertThat(c.get(str)).isEqualTo(b("v"));
        assertThat(c.hashes().get(hash, b("a"))).isEqualTo(b("42"));
        assertThat(c.sets().size(set)).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void aWriteToAWatchedKeyByAnotherClientAbortsTheCommit(String server) {
        KvsClient c = client(server);
        byte[] key = b("tx:" + server + ":watched");
        c.put(key, b("0"));
        try (KvsTransaction tx = c.transaction(List.of(key))) {
            byte[] seen = tx.get(key);
            c.put(key, b("other")); // another connection writes it meanwhile
            tx.put(key, b(new String(seen, UTF_8) + "+1"));
            assertThat(tx.commit()).isEmpty();
        }
        assertThat(c.get(key)).isEqualTo(b("other")); // nothing of the transaction applied
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void aWatchedKeyThatExpiresAbortsTheCommit(String server) {
        KvsClient c = client(server);
        byte[] key = b("tx:" + server + ":expiring");
        byte[] other = b("tx:" + server + ":expiring-other");
        c.put(key, b("v"));
        c.expire(key, Duration.ofMillis(200));
        try (KvsTransaction tx = c.transaction(List.of(key))) {
            assertThat(tx.get(key)).isEqualTo(b("v"));
            await("the watched key expires").atMost(Duration.ofSeconds(10)).until(() -> !c.exists(key));
            tx.put(other, b("written"));
            assertThat(tx.commit()).isEmpty();
        }
        assertThat(c.get(other)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void aFailedWriteIsReportedAndTheOthersApply(String server) {
        KvsClient c = client(server);
        byte[] hash = b("tx:" + server + ":failing");
        c.hashes().put(hash, b("name"), b("alice"));
        Optional<List<Object>> results;
        try (KvsTransaction tx = c.transaction(List.of(hash))) {
            results = tx.hashIncrement(hash, b("name"), 1)
                    .hashPut(hash, Map.of("visits", b("1")))
                    .commit();
        }
        assertThat(results).isPresent();
        assertThat(results.get().get(0))
                .isInstanceOf(KvsClientException.class)
                .hasFieldOrPropertyWithValue("message", "ERR hash value is not an integer");
        assertThat(results.get().get(1)).isEqualTo(1L);
        assertThat(c.hashes().get(hash, b("visits"))).isEqualTo(b("1")); // not rolled back, as in Redis
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void readsAfterAQueuedWriteAreRefusedInTheClient(String server) {
        KvsClient c = client(server);
        byte[] key = b("tx:" + server + ":order");
        try (KvsTransaction tx = c.transaction(List.of(key))) {
            tx.put(key, b("v"));
            assertThatThrownBy(() -> tx.get(key))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("after a queued write");
            tx.commit();
            assertThatThrownBy(tx::commit).isInstanceOf(IllegalStateException.class);
        }
        assertThat(c.get(key)).isEqualTo(b("v"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void sequentialTransactionsReuseOneConnection(String server) {
        KvsClient c = client(server);
        int port = servers.port(server);
        byte[] key = b("tx:" + server + ":reuse");
        c.put(key, b("0"));
        long before = connectionsReceived(port);
        for (int i = 0; i < 50; i++) {
            try (KvsTransaction tx = c.transaction(List.of(key))) {
                tx.get(key);
                if (i % 2 == 0) tx.put(key, b(Integer.toString(i))).commit(); // odd ones close unwatched
            }
        }
        // at most one new connection for the transactions, and the probe's own
        assertThat(connectionsReceived(port) - before).isLessThanOrEqualTo(2);
        assertThat(c.get(key)).isEqualTo(b("48"));
    }

    private static long connectionsReceived(int port) {
        try (RespProbe p = new RespProbe(port)) {
            for (String line : p.text("INFO", "stats").split("\r\n")) {
                if (line.startsWith("total_connections_received:")) return Long.parseLong(line.substring(27));
            }
        }
        throw new AssertionError("INFO stats has no total_connections_received");
    }

    /** Optimistic increments from several threads: each commit that applies counts exactly once. */
    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void concurrentCheckAndSetLosesNoIncrement(String server) {
        KvsClient c = client(server);
        byte[] key = b("tx:" + server + ":counter");
        c.hashes().put(key, b("n"), b("0"));
        int threads = 4;
        int each = 25;
        AtomicInteger aborted = new AtomicInteger();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            runs.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < each; i++) {
                    while (true) {
                        try (KvsTransaction tx = c.transaction(List.of(key))) {
                            long n =
                                    Long.parseLong(new String(tx.hashGetAll(key).get("n"), UTF_8));
                            tx.hashPut(key, Map.of("n", b(Long.toString(n + 1))));
                            if (tx.commit().isPresent()) break;
                            aborted.incrementAndGet();
                        }
                    }
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).join();
        System.out.println(server + ": " + aborted.get() + " commits aborted by a concurrent write and retried");
        assertThat(c.hashes().get(key, b("n"))).isEqualTo(b(Integer.toString(threads * each)));
    }
}
