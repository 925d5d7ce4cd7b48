package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.KvStore;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.ValueType;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;

/**
 * Lists written with Redis's list commands on a primary reach the backup over an emulated WAN as the
 * primary holds them (same TxId, expiry and image, so the same elements in the same order, readable
 * there with {@code READONLY}), and after a failover the promoted backup serves every acknowledged
 * list whole or fences it: never half a list.
 */
class ListReplicationNodesTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String image(KvStore store, String key) {
        RecordHeader h = store.header(b(key));
        if (h == null) return "absent";
        MembersImage m = store.image(b(key));
        return h.type() + " " + h.state() + " " + h.txId() + " " + h.expireAtMillis() + " "
                + (m == null ? "no image" : Integer.toHexString(m.checksum()) + "/" + m.image().length);
    }

    @Test
    void listsReachTheBackupInOrderAndAFailoverFencesOneWhoseImageNeverArrived() throws Exception {
        // 2 Mbit/s: a list of about 1 MiB needs 4 s on the wire
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(5), 2_000_000)
                .replication(TwoDc.replication().build())
                .start()) {
            try (Jedis p = new Jedis("127.0.0.1", dc.primary().port(), 30_000)) {
                p.rpush("queue", "a", "b", "c", "d");
                p.lpush("queue", "z");
                p.lpop("queue");
                p.rpop("queue");
                p.lset("queue", 1, "B");
                p.linsert("queue", redis.clients.jedis.args.ListPosition.AFTER, "B", "x");
                p.lpush("jobs", "1", "2", "3");
                p.lmove("jobs", "done", ListDirection.RIGHT, ListDirection.LEFT);
                p.expire("jobs", 100_000);
                p.rpush("gone", "only");
                p.lpop("gone");
            }
            KvStore primary = dc.primary().store();
            KvStore backup = dc.backup().store();
            for (String key : List.of("queue", "jobs", "done", "gone")) {
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThat(image(backup, key)).isEqualTo(image(primary, key)));
            }
            assertThat(backup.header(b("queue")).type()).isEqualTo(ValueType.LIST);
            try (Jedis r = new Jedis("127.0.0.1", dc.backup().port(), 30_000)) {
                r.readonly();
                assertThat(r.lrange("queue", 0, -1)).containsExactly("a", "B", "x", "c");
                assertThat(r.lrange("jobs", 0, -1)).containsExactly("3", "2");
                assertThat(r.lrange("done", 0, -1)).containsExactly("1");
                assertThat(r.ttl("jobs")).isPositive();
                assertThat(r.exists("gone")).isFalse();
            }

            String[] big = new String[20_000];
            for (int i = 0; i < big.length; i++) big[i] = String.format("element-%040d", i);
            try (Jedis p = new Jedis("127.0.0.1", dc.primary().port(), 30_000)) {
                // id-first: answered once its key packet is on the backup, while its image is still on the wire
                assertThat(p.rpush("big", big)).isEqualTo(20_000L);
            }
            dc.link().cut(); // the disaster: the image never arrives

            assertThat(dc.promoteBackup("")).contains("\"epoch\":2", "\"unfinishedCount\":1");

            for (String key : List.of("queue", "jobs", "done")) {
                assertThat(image(backup, key)).isEqualTo(image(primary, key));
            }
            assertThat(backup.image(b("big"))).as("never half a list").isNull();
            try (Jedis promoted = new Jedis("127.0.0.1", dc.backup().port(), 30_000)) {
                assertThat(promoted.lrange("queue", 0, -1)).containsExactly("a", "B", "x", "c");
                assertThatThrownBy(() -> promoted.lrange("big", 0, 0)).hasMessageStartingWith("UNFINISHED big");
                assertThatThrownBy(() -> promoted.rpush("big", "more")).hasMessageStartingWith("UNFINISHED big");
            }
        }
    }
}
