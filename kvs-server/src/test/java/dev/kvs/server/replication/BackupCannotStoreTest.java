package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * A backup whose store is smaller than its primary's, filled with live keys: the primary raises the
 * alarm at once (link {@code degraded}, the reason), answers id-first and sync writes {@code
 * -NOREPLICA backup cannot store values: store full} instead of an {@code OK} whose value cannot land,
 * does not resend refused values in a loop, and recovers by itself, without a restart, once keys
 * deleted on the primary free room on the backup.
 */
class BackupCannotStoreTest {
    private static final int VALUE_BYTES = 1024;
    /** Room for about 46 values of {@link #VALUE_BYTES} with their keys. */
    private static final long BACKUP_BYTES = 48 * 1024;

    private static final int LIVE_KEYS = 60;

    private final ListAppender<ILoggingEvent> backupLog = new ListAppender<>();
    private final Logger refusalsLogger = (Logger) LoggerFactory.getLogger("dev.kvs.replication.backup.BackupRefusals");
    private final Logger valueChannelLogger =
            (Logger) LoggerFactory.getLogger("dev.kvs.replication.backup.ValueChannelHandler");

    @BeforeEach
    void watchTheBackupsLog() {
        backupLog.start();
        refusalsLogger.addAppender(backupLog);
        valueChannelLogger.addAppender(backupLog);
    }

    @AfterEach
    void stopWatching() {
        refusalsLogger.detachAppender(backupLog);
        valueChannelLogger.detachAppender(backupLog);
    }

    private static String value(char c) {
        char[] v = new char[VALUE_BYTES];
        Arrays.fill(v, c);
        return new String(v);
    }

    private static void mode(Jedis j, ReplicationMode mode) {
        j.sendCommand(() -> "KVS.MODE".getBytes(), mode.label());
    }

    private static long refusedOnTheBackup(Jedis backup) {
        return Long.parseLong(JedisAccess.info(backup, "kvs_values_refused"));
    }

    @Test
    void aFullBackupIsAnAlarmWritesAreToldAndThePairRecoversWhenRoomReturns() throws Exception {
        StoreConfig primaryStore =
                StoreConfig.builder().maxEntries(10_000).maxBytes(16L << 20).build();
        StoreConfig backupStore =
                StoreConfig.builder().maxEntries(10_000).maxBytes(BACKUP_BYTES).build();
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .replication(TwoDc.replication().build())
                        .stores(primaryStore, backupStore)
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis b = JedisAccess.backup(dc)) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(p, "kvs_link_state").equals("streaming"));

            // fill the backup with live keys (async: every write is answered), noting when it first refuses
            mode(p, ReplicationMode.ASYNC);
            for (int i = 0; i < LIVE_KEYS; i++) {
                assertThat(p.set("live:" + i, value('a'))).isEqualTo("OK");
            }
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(2))
                    .until(() -> refusedOnTheBackup(b) > 0);
            long firstRefusalSeen = System.nanoTime();

            // the primary shows the alarm within a second of it
            await().atMost(Duration.ofSeconds(1))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> JedisAccess.info(p, "kvs_link_state").equals("degraded"));
            assertThat(System.nanoTime() - firstRefusalSeen)
                    .isLessThan(Duration.ofSeconds(1).toNanos());
            assertThat(JedisAccess.info(p, "kvs_backup_refusal_reason")).isEqualTo("store full");
            assertThat(JedisAccess.info(p, "kvs_backup_refusal_detail")).startsWith("store full: ");
            assertThat(Long.parseLong(JedisAccess.info(p, "kvs_backup_refusing_values")))
                    .isPositive();

            // id-first and sync writes are told; async ones go on; all are on the primary
            mode(p, ReplicationMode.ID_FIRST);
            assertThatThrownBy(() -> p.set("during:id-first", "1"))
                    .hasMessageStartingWith("NOREPLICA backup cannot store values: store full; write ");
            mode(p, ReplicationMode.SYNC);
            assertThatThrownBy(() -> p.set("during:sync", "2"))
                    .hasMessageStartingWith("NOREPLICA backup cannot store values: store full; write ");
            mode(p, ReplicationMode.ASYNC);
            assertThat(p.set("during:async", "3")).isEqualTo("OK");
            assertThat(p.get("during:id-first")).isEqualTo("1");
            assertThat(p.get("during:sync")).isEqualTo("2");

            // the backup says why, in its own INFO and /status, and logs it without a line per value
            assertThat(JedisAccess.info(b, "kvs_values_refused_reason")).isEqualTo("store full");
            JsonNode backupStatus = new ObjectMapper()
                    .readTree(Admin.get(dc.backup().adminPort(), "/status"))
                    .path("backup")
                    .path("refusals");
            assertThat(backupStatus.path("reason").asText()).isEqualTo("store full");
            assertThat(backupStatus.path("byReason").path("store full").asLong())
                    .isPositive();
            long refused = refusedOnTheBackup(b);
            assertThat(refused).isGreaterThanOrEqualTo(LIVE_KEYS - BACKUP_BYTES / VALUE_BYTES);
            assertThat(backupLog.list)
                    .filteredOn(e -> e.getLevel() == Level.WARN)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .singleElement()
                    .asString()
                    .contains("the store refuses values from", "store full");

            // no retry loop: a refused value is tried again about once a second, not at the link's pace
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> refusedOnTheBackup(b) <= refused + 5);
            assertThat(JedisAccess.info(p, "kvs_link_state")).isEqualTo("degraded");

            // room returns: keys deleted on the primary free the backup's room; no restart
            for (int i = 0; i < LIVE_KEYS; i++) p.del("live:" + i);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(JedisAccess.info(p, "kvs_link_state")).isEqualTo("streaming");
                assertThat(JedisAccess.info(p, "kvs_backup_refusing_values")).isEqualTo("0");
            });
            mode(p, ReplicationMode.ID_FIRST);
            assertThat(p.set("after", "4")).isEqualTo("OK");
            b.sendCommand(() -> "READONLY".getBytes());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(b.get("after")).isEqualTo("4");
                // the writes answered NOREPLICA replicated once there was room
                assertThat(b.get("during:id-first")).isEqualTo("1");
                assertThat(b.get("during:sync")).isEqualTo("2");
                assertThat(b.get("during:async")).isEqualTo("3");
            });
            assertThat(b.get("live:0")).isNull();
            assertThat(Long.parseLong(JedisAccess.info(p, "kvs_backup_refused_values")))
                    .isGreaterThanOrEqualTo(refused);
        }
    }
}
