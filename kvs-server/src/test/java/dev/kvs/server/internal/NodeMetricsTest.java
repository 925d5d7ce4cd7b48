package dev.kvs.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.kvs.server.config.NodeConfig;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeMetricsTest {
    private final StubStore store = StubStore.withDistinctStats();
    private final NodeContext node = TestContexts.primary(NodeConfig.builder().build(), store, 2, 5);
    private NodeMetrics metrics = node.metrics();

    @AfterEach
    void close() {
        metrics.close();
    }

    /** One command's figures, as the command table keeps them. */
    private static final class Figures {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong nanos = new AtomicLong();

        Figures ran(long took) {
            calls.incrementAndGet();
            nanos.addAndGet(took);
            return this;
        }
    }

    private void expose(String command, Figures f) {
        metrics.exposeCommand(command, f, x -> x.calls.get(), x -> x.nanos.get());
    }

    private FunctionTimer commandTimer(String tag) {
        return metrics.registry().find("kvs.commands").tag("command", tag).functionTimer();
    }

    @Test
    void exposedCommandsAreReadWhenAskedOneTimerPerCommandTaggedInLowerCase() {
        Figures get = new Figures();
        Figures set = new Figures().ran(2_000_000);
        expose("GET", get);
        expose("SET", set);
        get.ran(1_000_000).ran(3_000_000);

        assertThat(commandTimer("get").count()).isEqualTo(2);
        assertThat(commandTimer("get").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4.0);
        assertThat(commandTimer("set").count()).isEqualTo(1);
        set.ran(1_000_000);
        assertThat(commandTimer("set").count()).as("read again, not copied").isEqualTo(2);
    }

    @Test
    void exposingACommandAgainRegistersNoNewMeter() {
        Figures first = new Figures().ran(1);
        expose("GET", first);
        int meters = metrics.registry().getMeters().size();
        for (int i = 0; i < 1000; i++) expose("GET", new Figures().ran(i).ran(i));
        assertThat(metrics.registry().getMeters()).hasSize(meters);
        assertThat(commandTimer("get").count()).as("the first exposure wins").isEqualTo(1);
    }

    @Test
    void commandTagsAreBoundedSoTheScrapeCannotGrowWithoutEnd() {
        for (int i = 0; i < NodeMetrics.MAX_TAGS * 4; i++) expose("CMD" + i, new Figures().ran(1));

        assertThat(metrics.registry().find("kvs.commands").functionTimers()).hasSize(NodeMetrics.MAX_TAGS);
    }

    @Test
    void errorsAreCountedByKind() {
        metrics.recordError("ERR");
        metrics.recordError("ERR");
        metrics.recordError("NOAUTH");

        assertThat(metrics.registry()
                        .find("kvs.errors")
                        .tag("kind", "ERR")
                        .counter()
                        .count())
                .isEqualTo(2.0);
        assertThat(metrics.registry()
                        .find("kvs.errors")
                        .tag("kind", "NOAUTH")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void connectionsGaugeFollowsOpenAndClose() {
        metrics.connectionOpened();
        metrics.connectionOpened();
        metrics.connectionClosed();

        assertThat(metrics.connections()).isEqualTo(1);
        assertThat(metrics.registry().find("kvs.connections").gauge().value()).isEqualTo(1.0);
        assertThat(metrics.registry().find("kvs.connections.accepted").counter().count())
                .isEqualTo(2.0);
    }

    @Test
    void scrapeShowsKvsMetersWithPrometheusNames() {
        expose("GET", new Figures().ran(1_000_000));
        metrics.recordError("ERR");
        metrics.connectionOpened();

        String text = metrics.scrape();

        assertThat(text)
                .contains("kvs_commands_seconds_count{command=\"get\"} 1")
                .contains("kvs_commands_seconds_sum{command=\"get\"} 0.001")
                .contains("kvs_errors_total{kind=\"ERR\"} 1")
                .contains("kvs_connections 1")
                .contains("kvs_keyspace_keys 11")
                .contains("kvs_store_entries 12")
                .contains("kvs_memory_keys_bytes 340")
                .contains("kvs_memory_values_bytes 5600")
                .contains("kvs_memory_offheap_bytes 78000")
                .contains("kvs_store_page_directory_slots 64")
                .contains("kvs_store_page_directory_max_slots 1048576")
                .contains("kvs_store_undo_slots_bytes 2000000")
                .contains("kvs_store_unguarded_writes 3")
                .contains("kvs_memory_max_bytes 1048576")
                .contains("kvs_epoch 2")
                .contains("kvs_txid_seq 5")
                .contains("kvs_role_primary 1")
                .contains("kvs_uptime_seconds")
                .contains("jvm_memory_used_bytes")
                .contains("jvm_threads_live_threads");
    }

    @Test
    void scrapeShowsTheFlowControlAndTheValueLag() {
        metrics.close();
        metrics = TestContexts.primary(
                        NodeConfig.builder()
                                .peer("dc2.example:7380")
                                .insecureReplication(true)
                                .build(),
                        store,
                        2,
                        5,
                        new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL))
                .metrics();

        String text = metrics.scrape();

        assertThat(text)
                .contains("kvs_replication_flow_control_enabled 1")
                .contains("kvs_replication_flow_window_bytes 262144")
                .contains("kvs_replication_flow_in_flight_bytes 131072")
                .contains("kvs_replication_flow_pacing_rate_bytes_per_second 1000000")
                .contains("kvs_replication_flow_base_delay_seconds 0.02015")
                .contains("kvs_replication_flow_queueing_delay_seconds 0.0035")
                .contains("kvs_replication_flow_external_delay_seconds 0.002")
                .contains("kvs_replication_flow_target_seconds 0.01")
                .contains("kvs_replication_value_goodput_bytes_per_second 987654")
                .contains("kvs_replication_flow_min_rate_alarm 1")
                .contains("kvs_replication_flow_slowdowns 7")
                .contains("kvs_replication_value_lag_bytes 5242880")
                .contains("kvs_replication_abandoned_values 4")
                .contains("kvs_replication_value_lag_oldest_seconds 1.25");
    }

    @Test
    void scrapeShowsTheAlarmWhileTheBackupsStoreRefusesValuesAndTheRefusalsByReason() {
        metrics.close();
        metrics = TestContexts.primary(
                        NodeConfig.builder()
                                .peer("dc2.example:7380")
                                .insecureReplication(true)
                                .build(),
                        store,
                        2,
                        5,
                        new FixedStatusReplication(FixedStatusReplication.DEGRADED))
                .metrics();

        String text = metrics.scrape();

        assertThat(text)
                .contains("kvs_replication_degraded 1")
                .contains("kvs_replication_refusing_values 41")
                .contains("kvs_replication_values_refused_total{reason=\"store_full\"} 57")
                .contains("kvs_replication_values_refused_total{reason=\"value_too_large\"} 1")
                .contains("kvs_replication_values_refused_total{reason=\"store_error\"} 0")
                .contains("kvs_replication_link_up 1");
    }

    @Test
    void noAlarmWhileTheBackupStoresEverything() {
        String text = metrics.scrape();

        assertThat(text)
                .contains("kvs_replication_degraded 0")
                .contains("kvs_replication_refusing_values 0")
                .contains("kvs_replication_values_refused_total{reason=\"store_full\"} 0");
    }

    @Test
    void scrapeShowsTheBoundOnTheValueLagAndTheWritesItHeld() {
        metrics.close();
        metrics = TestContexts.primary(
                        NodeConfig.builder()
                                .peer("dc2.example:7380")
                                .insecureReplication(true)
                                .build(),
                        store,
                        2,
                        5,
                        new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL))
                .metrics();

        assertThat(metrics.scrape())
                .contains("kvs_replication_value_lag_oldest_seconds 1.25")
                .contains("kvs_replication_value_lag_max_seconds 5")
                .contains("kvs_replication_value_lag_projected_seconds 3.2")
                .contains("kvs_replication_value_drain_rate_bytes_per_second 1048576")
                .contains("kvs_replication_value_lag_waits 12")
                .contains("kvs_replication_value_lag_wait_seconds 3.456");
    }

    @Test
    void flowControlGaugesAreZeroWhileItIsOff() {
        String text = metrics.scrape();

        assertThat(text)
                .contains("kvs_replication_flow_control_enabled 0")
                .contains("kvs_replication_flow_window_bytes 0")
                .contains("kvs_replication_flow_min_rate_alarm 0")
                .contains("kvs_replication_value_lag_oldest_seconds 0");
    }

    @Test
    void scrapeStillWorksWhenTheStoreIsClosed() {
        store.close();
        assertThatCode(metrics::scrape).doesNotThrowAnyException();
        assertThat(metrics.registry().find("kvs.keyspace.keys").gauge().value()).isNaN();
    }

    @Test
    void everyKvsMeterHasADescription() {
        for (Meter m : metrics.registry().getMeters()) {
            if (m.getId().getName().startsWith("kvs.")) {
                assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank();
            }
        }
    }

    @Test
    void closeIsIdempotent() {
        metrics.close();
        assertThatCode(metrics::close).doesNotThrowAnyException();
    }
}
