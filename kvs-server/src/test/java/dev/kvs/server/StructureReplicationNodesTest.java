package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.ValueType;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.internal.write.LastWrite;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Hashes and sets written on a primary through {@link StructureWrites} (the seam the HSET and SADD
 * commands write through) reach the backup over an emulated WAN as the primary holds them, and after a
 * failover the promoted backup serves every acknowledged structure whole or fences it.
 */
class StructureReplicationNodesTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String image(KvStore store, String key) {
        RecordHeader h = store.header(b(key));
        if (h == null) return "absent";
        MembersImage m = store.image(b(key));
        return h.type() + " " + h.txId() + " " + h.expireAtMillis() + " "
                + (m == null ? h.state().toString() : Integer.toHexString(m.checksum()) + "/" + m.image().length);
    }

    @Test
    void structuresWrittenThroughTheWriteProtocolReachTheBackupAndSurviveAFailover() throws Exception {
        // 2 Mbit/s: a hash of about 1 MiB needs 4 s on the wire
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(5), 2_000_000)
                .replication(TwoDc.replication().build())
                .start()) {
            StructureWrites writes = dc.primary().structureWrites();
            ReplicationMode mode = ReplicationMode.ID_FIRST;
            List<Member> fields = List.of(
                    new Member(b("user"), b("ada")), new Member(b("cart"), b("3")), new Member(b("seen"), b("1")));
            writes.put(mode, LastWrite.NONE, b("session"), ValueType.HASH, fields, false)
                    .replicated()
                    .join();
            writes.update(mode, LastWrite.NONE, b("session"), ValueType.HASH, b("cart"), v -> b("4"))
                    .replicated()
                    .join();
            writes.remove(mode, LastWrite.NONE, b("session"), ValueType.HASH, List.of(b("seen")), false)
                    .replicated()
                    .join();
            List<Member> tokens = new ArrayList<>();
            for (int i = 0; i < 50; i++) tokens.add(Member.of(b("token-" + i)));
            writes.put(mode, LastWrite.NONE, b("tokens"), ValueType.SET, tokens, false)
                    .replicated()
                    .join();
            writes.pop(mode, LastWrite.NONE, b("tokens"), ValueType.SET, 10, new Random(1))
                    .replicated()
                    .join();
            KvStore primary = dc.primary().store();
            KvStore backup = dc.backup().store();
            for (String key : List.of("session", "tokens")) {
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThat(image(backup, key)).isEqualTo(image(primary, key)));
            }
            assertThat(backup.getMembers(b("session"), ValueType.HASH, List.of(b("cart"), b("seen"))))
                    .containsExactly(b("4"), null);
            assertThat(backup.memberCount(b("tokens"), ValueType.SET)).isEqualTo(40);

            List<Member> big = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) big.add(new Member(b("field-" + i), new byte[40]));
            // id-first: answered once its key packet is on the backup, while its image is still on the wire
            writes.put(mode, LastWrite.NONE, b("big"), ValueType.HASH, big, false)
                    .replicated()
                    .join();
            dc.link().cut(); // the disaster: the image never arrives

            assertThat(dc.promoteBackup("")).contains("\"epoch\":2", "\"unfinishedCount\":1");

            assertThat(image(backup, "session")).isEqualTo(image(primary, "session"));
            assertThat(image(backup, "tokens")).isEqualTo(image(primary, "tokens"));
            assertThat(backup.image(b("big"))).as("never half a structure").isNull();
        }
    }

    @TempDir
    Path backupDir;

    /** A field of the primary's INFO. */
    private static long info(TwoDc dc, String field) {
        try (Jedis p = new Jedis("127.0.0.1", dc.primary().port())) {
            for (String line : p.info("replication").split("\r\n")) {
                if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1));
            }
            throw new AssertionError("no " + field + " in INFO");
        }
    }

    private static void awaitSame(TwoDc dc, List<String> keys) {
        for (String key : keys) {
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(image(dc.backup().store(), key))
                            .as(key)
                            .isEqualTo(image(dc.primary().store(), key)));
        }
    }

    @Test
    void aRestartedBackupGetsOnlyTheStructuresChangedWhileAway() {
        StoreConfig primaryStore =
                StoreConfig.builder().maxEntries(10_000).maxBytes(64L << 20).build();
        StoreConfig backupStore = StoreConfig.builder()
                .maxEntries(10_000)
                .maxBytes(64L << 20)
                .dataDir(backupDir)
                .build();
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ASYNC)
                .replication(TwoDc.replication().build())
                .stores(primaryStore, backupStore)
                .start()) {
            StructureWrites writes = dc.primary().structureWrites();
            ReplicationMode mode = ReplicationMode.ASYNC;
            List<String> keys = new ArrayList<>();
            for (int k = 0; k < 40; k++) {
                ValueType type = k % 2 == 0 ? ValueType.HASH : ValueType.SET;
                List<Member> ms = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    ms.add(type == ValueType.SET ? Member.of(b("m" + i)) : new Member(b("f" + i), b("v" + k)));
                }
                keys.add("s" + k);
                writes.put(mode, LastWrite.NONE, b("s" + k), type, ms, false);
            }
            awaitSame(dc, keys);
            long shippedBefore = info(dc, "kvs_values_shipped");

            dc.restartBackup(() -> {
                for (int k = 0; k < 5; k++) { // changed
                    ValueType type = k % 2 == 0 ? ValueType.HASH : ValueType.SET;
                    writes.remove(mode, LastWrite.NONE, b("s" + k), type, List.of(b("f1"), b("m1")), false);
                }
                writes.put(mode, LastWrite.NONE, b("s40"), ValueType.SET, List.of(Member.of(b("new"))), false);
                keys.add("s40");
            });

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> info(dc, "kvs_resyncs") >= 2 && info(dc, "kvs_value_lag_count") == 0);
            awaitSame(dc, keys);
            long shipped = info(dc, "kvs_values_shipped") - shippedBefore;
            assertThat(shipped).as("structures shipped after the restart").isBetween(6L, 20L);
        }
    }

    @Test
    void aNewEmptyBackupGetsAFullCopyOfEveryStructure() {
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .replication(TwoDc.replication().build())
                .start()) {
            StructureWrites writes = dc.primary().structureWrites();
            List<String> keys = new ArrayList<>();
            for (int k = 0; k < 20; k++) {
                List<Member> ms = new ArrayList<>();
                for (int i = 0; i < 10 + k * 100; i++) ms.add(new Member(b("f" + i), b("v" + k)));
                keys.add("h" + k);
                writes.put(ReplicationMode.ID_FIRST, LastWrite.NONE, b("h" + k), ValueType.HASH, ms, false)
                        .replicated()
                        .join();
            }
            awaitSame(dc, keys);

            dc.replaceBackupWithAnEmptyOne(); // a wiped backup DC: a full copy

            awaitSame(dc, keys);
            assertThat(dc.backup().store().memberCount(b("h19"), ValueType.HASH))
                    .isEqualTo(1_910);
        }
    }

    /**
     * The WAN bytes (both directions of the emulated link: value and key channels, their acks and
     * heartbeats) of one HSET on a hash of 10,000 fields (~20-byte fields, ~50-byte values) whose previous
     * version the backup holds: its effect ships on that exact base, not the image, so issue 35's target (at
     * most 1% of the hash) holds. Printed for BENCHMARKS.md.
     */
    @Test
    void oneHsetOnATenThousandFieldHashShipsItsEffect() {
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(1), 0)
                .replication(TwoDc.replication().build())
                .start()) {
            StructureWrites writes = dc.primary().structureWrites();
            List<Member> ms = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                ms.add(new Member(b(String.format("field:%014d", i)), b(String.format("value:%044d", i))));
            }
            writes.put(ReplicationMode.ID_FIRST, LastWrite.NONE, b("h"), ValueType.HASH, ms, false)
                    .replicated()
                    .join();
            awaitSame(dc, List.of("h"));
            int size = dc.primary().store().image(b("h")).image().length;
            long before = wanBytes(dc);

            writes.put(
                            ReplicationMode.ID_FIRST,
                            LastWrite.NONE,
                            b("h"),
                            ValueType.HASH,
                            List.of(new Member(b(String.format("field:%014d", 7)), b("changed"))),
                            false)
                    .replicated()
                    .join();
            awaitSame(dc, List.of("h"));
            await().atMost(Duration.ofSeconds(10)).until(() -> info(dc, "kvs_value_lag_count") == 0);

            long bytes = wanBytes(dc) - before;
            System.out.printf(
                    "one HSET on a 10,000-field hash of %,d image bytes: %,d WAN bytes (%.3f%% of the hash)%n",
                    size, bytes, 100.0 * bytes / size);
            assertThat(bytes).as("the effect ships, not the image").isLessThan(size / 100L);
        }
    }

    private static long wanBytes(TwoDc dc) {
        var s = dc.link().stats();
        return s.toTarget().relayedBytes() + s.toClient().relayedBytes();
    }
}
