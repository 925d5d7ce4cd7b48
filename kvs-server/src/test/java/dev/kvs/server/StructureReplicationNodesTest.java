package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.ValueType;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.internal.write.LastWrite;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

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
}
