package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/**
 * An EXEC is one unit on the backup: over an emulated WAN whose value link is slow (an EXEC's large
 * value takes a while on the wire, its small ones do not), a READONLY reader of the backup polling the
 * EXEC's keys with one MGET never sees part of an EXEC; and a failover while the last EXEC's values are
 * on the wire fences every one of its keys, none left at its old value beside a new one.
 */
class ExecUnitReplicationNodesTest {
    private static final int EXECS = 8;
    private static final String PAD = "x".repeat(100_000); // 0.4 s at 2 Mbit/s

    /** The EXEC's iteration of each value MGET returned, or "-" for none. */
    private static String iterations(List<String> values) {
        StringBuilder b = new StringBuilder();
        for (String v : values)
            b.append(v == null ? "-" : v.substring(0, v.indexOf(':'))).append(' ');
        return b.toString().trim();
    }

    private static void exec(Jedis jedis, int i) {
        Transaction t = jedis.multi();
        t.set("a", i + ":a");
        t.hset("h", "f", i + ":h");
        t.set("c", i + ":" + PAD);
        t.set("b", i + ":b");
        assertThat(t.exec()).hasSize(4);
    }

    @Test
    void aReadonlyReaderOfTheBackupNeverSeesHalfAnExecAndAFailoverFencesItWhole() throws Exception {
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(5), 2_000_000)
                .replication(TwoDc.replication().build())
                .start()) {
            try (Jedis primary = new Jedis(TwoDc.HOST, dc.primary().port());
                    Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
                primary.set("ready", "1");
                backup.readonly();
                await("the backup serves reads (its first resync done)")
                        .atMost(Duration.ofSeconds(30))
                        .ignoreExceptions()
                        .until(() -> "1".equals(backup.get("ready")));
            }
            AtomicBoolean polling = new AtomicBoolean(true);
            List<String> halves = new CopyOnWriteArrayList<>();
            Set<String> seen = java.util.Collections.synchronizedSet(new HashSet<>());
            AtomicInteger polls = new AtomicInteger();
            Thread reader = new Thread(() -> {
                try (Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
                    backup.readonly();
                    while (polling.get()) {
                        String its = iterations(backup.mget("a", "c", "b"));
                        polls.incrementAndGet();
                        seen.add(its);
                        if (new HashSet<>(List.of(its.split(" "))).size() != 1) halves.add(its);
                    }
                }
            });
            reader.start();
            try (Jedis primary = new Jedis(TwoDc.HOST, dc.primary().port())) {
                for (int i = 1; i <= EXECS; i++) {
                    exec(primary, i);
                    String whole = i + " " + i + " " + i;
                    // each EXEC's values cross on their own: its small ones land well before its large one
                    await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains(whole));
                }
                polling.set(false);
                reader.join();
                System.out.println("ExecUnitReplicationNodesTest: " + polls.get() + " polls saw " + seen);
                assertThat(halves).as("MGETs that saw part of an EXEC").isEmpty();
                assertThat(seen).as("states the reader saw").hasSizeGreaterThan(EXECS);

                // the last EXEC: its key packets acknowledged (id-first), its values on the wire, then the disaster
                exec(primary, EXECS + 1);
                dc.link().cut();
                String promoted = dc.promoteBackup("");
                System.out.println("ExecUnitReplicationNodesTest: " + promoted);
                List<String> keys = new ArrayList<>(List.of("a", "b", "c", "h"));
                assertThat(promoted).as("every key of the EXEC fenced").contains("\"unfinishedCount\":" + keys.size());
                for (String k : List.of("a", "b")) {
                    assertThat(new String(dc.backup().store().get(k.getBytes()).value()))
                            .as("%s keeps the previous EXEC's value, fenced", k)
                            .isEqualTo(EXECS + ":" + k);
                }
            } finally {
                polling.set(false);
                reader.join();
            }
        }
    }
}
