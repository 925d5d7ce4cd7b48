package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Member;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;

/**
 * READONLY reads of hashes and sets on a backup answer as the primary's do: TYPE, OBJECT ENCODING,
 * EXISTS, TTL, SCAN's TYPE, MEMORY USAGE see them, the string reads answer WRONGTYPE, MGET nil. The
 * structures are written into the backup's store directly (their shipping is another step of issue
 * 35).
 */
class BackupReadsOfStructuresTest {
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    @Test
    void aReadonlyConnectionSeesHashesAndSetsWithTheirTypes() {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(1), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("str", "v")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, "str".getBytes()) != null);
            var store = dc.backup().store();
            store.putMembers(
                    "h".getBytes(),
                    ValueType.HASH,
                    List.of(new Member("f".getBytes(), "v".getBytes())),
                    false,
                    () -> TxId.of(1, 1_000_000));
            store.putMembers(
                    "s".getBytes(),
                    ValueType.SET,
                    List.of(Member.of("1".getBytes())),
                    false,
                    () -> TxId.of(1, 1_000_001));
            bk.sendCommand(() -> "READONLY".getBytes());

            assertThat(bk.type("h")).isEqualTo("hash");
            assertThat(bk.type("s")).isEqualTo("set");
            assertThat(bk.objectEncoding("h")).isEqualTo("listpack");
            assertThat(bk.objectEncoding("s")).isEqualTo("intset");
            assertThat(bk.exists("h", "s", "str")).isEqualTo(3);
            assertThat(bk.ttl("h")).isEqualTo(-1);
            assertThat(bk.memoryUsage("h")).isPositive();
            assertThat(bk.mget("h", "str")).containsExactly(null, "v");
            assertThatThrownBy(() -> bk.get("h")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> bk.strlen("s")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> bk.getrange("h", 0, 1)).hasMessage(WRONGTYPE);
            assertThat(bk.scan("0", new ScanParams().count(1000), "hash").getResult())
                    .containsExactly("h");
            assertThatThrownBy(() -> bk.del("h")).hasMessageStartingWith("NOTPRIMARY");
        }
    }
}
