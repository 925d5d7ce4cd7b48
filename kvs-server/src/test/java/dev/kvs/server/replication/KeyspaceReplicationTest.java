package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * SCAN, KEYS, RANDOMKEY and WAIT driven by Jedis on a primary+backup pair: the keyspace commands
 * answer on both nodes (the backup lists the keys it holds, without READONLY), and WAIT counts the
 * backup once it confirmed the connection's last write in the connection's mode.
 */
class KeyspaceReplicationTest {
    private static Set<String> scanAll(Jedis j, ScanParams params) {
        Set<String> all = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> r = j.scan(cursor, params);
            for (String k : r.getResult())
                assertThat(all.add(k)).as("%s twice", k).isTrue();
            cursor = r.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return all;
    }

    @ParameterizedTest
    @EnumSource(
            value = ReplicationMode.class,
            names = {"ID_FIRST", "SYNC", "ASYNC"})
    void keyspaceCommandsAnswerOnBothNodesAndWaitCountsTheBackup(ReplicationMode mode) {
        try (TwoDc dc = TwoDc.builder()
                        .mode(mode)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < 500; i++) {
                p.set("user:" + i, "v" + i);
                expected.add("user:" + i);
            }
            p.set("config", "x");
            assertThat(p.waitReplicas(1, 10_000)).isEqualTo(1);
            assertThat(scanAll(p, new ScanParams().match("user:*").count(50))).isEqualTo(expected);
            assertThat(new HashSet<>(p.keys("user:*"))).isEqualTo(expected);
            assertThat(p.keys("conf?g")).containsExactly("config");
            assertThat(p.randomKey())
                    .satisfiesAnyOf(
                            k -> assertThat(expected).contains(k),
                            k -> assertThat(k).isEqualTo("config"));

            // the backup: every key once the values are there (in async mode the keys come with them)
            await().atMost(Duration.ofSeconds(20)).until(() -> bk.dbSize() == 501);
            assertThat(scanAll(bk, new ScanParams().match("user:*"))).isEqualTo(expected);
            assertThat(bk.keys("*")).hasSize(501);
            assertThat(bk.randomKey()).isNotNull();
            assertThatThrownBy(() -> bk.waitReplicas(1, 10))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR WAIT cannot be used with replica instances");
        }
    }

    @Test
    void waitInAsyncModeCountsTheBackupOnlyOnceTheValueIsAcknowledged() {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ASYNC)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            p.set("warm", "up");
            assertThat(p.waitReplicas(1, 10_000)).isEqualTo(1);
            dc.link().pause();
            assertThat(p.set("k", "v")).isEqualTo("OK"); // async: answered at once
            assertThat(p.waitReplicas(1, 200)).isZero(); // the value cannot reach the backup
            assertThat(p.waitReplicas(0, 0)).isZero();
            dc.link().resume();
            assertThat(p.waitReplicas(1, 0)).isEqualTo(1); // blocks until the value is acknowledged
            assertThat(List.of(p.get("k"))).containsExactly("v");
        }
    }
}
