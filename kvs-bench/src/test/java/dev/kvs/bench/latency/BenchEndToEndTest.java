package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cli.InProcessKvs;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each benchmark once, end to end with tiny settings: real node processes, a real link, every field of
 * the report filled, nothing left running. No bound is asserted: a loaded 2-core machine decides
 * those, and without flow control keys-under-load is meant to fail them.
 */
class BenchEndToEndTest {
    @TempDir
    Path dir;

    private final InProcessKvs kvs = new InProcessKvs();

    @Test
    @Timeout(120)
    void keysUnderLoadRunsBothPhasesAndReportsEveryField() throws Exception {
        Path json = dir.resolve("kul.json");

        int code = kvs.run(
                "bench",
                "keys-under-load",
                "--delay-ms=2",
                "--bandwidth-mbit=40",
                "--writers=2",
                "--value-size=256KiB",
                "--interval-ms=20",
                "--idle-seconds=1",
                "--ramp-seconds=0.5",
                "--loaded-seconds=1.5",
                "--json=" + json,
                "--dir=" + dir.resolve("run"));

        assertThat(code).as("%s", kvs).isIn(0, 3);
        JsonNode r = Report.JSON.readTree(json.toFile());
        assertThat(r.path("idle").path("ok").asLong()).isPositive();
        assertThat(r.path("idle").path("p50Ms").isNumber()).isTrue();
        assertThat(r.path("loaded").path("ok").asLong()).isPositive();
        assertThat(r.path("loaded").path("p99Ms").isNumber()).isTrue();
        assertThat(r.path("writers").path("acked").asLong()).isPositive();
        assertThat(r.path("goodput").path("bytes").asLong()).isPositive();
        assertThat(r.path("goodput").path("percentOfLink").isNumber()).isTrue();
        assertThat(r.path("primary").path("state").asText()).isEqualTo("streaming");
        assertThat(r.path("primary").path("flowControl").has("windowBytes")).isTrue();
        assertThat(r.path("primary").path("flowControl").has("minRateAlarm")).isTrue();
        assertThat(r.path("verdict").path("checks")).hasSize(4);
        assertThat(r.path("verdict").path("pass").asBoolean()).isEqualTo(code == 0);
        assertThat(kvs.out())
                .contains("idle", "loaded", "value goodput", "flow control", "value lag")
                .containsPattern("(?m)^(PASS|FAIL): ");
        assertThat(kvs.err()).contains("run directory").contains("loaded  [");
        assertThat(Files.readString(dir.resolve("run/dc-main.log"))).contains("listening on");
        InProcessKvs.assertNothingLeftRunning();
    }

    @Test
    @Timeout(120)
    void valueLagSamplesTheLagKillsThePrimaryAndReportsWhatItsBackupFenced() throws Exception {
        Path json = dir.resolve("vlag.json");

        int code = kvs.run(
                "bench",
                "value-lag",
                "--delay-ms=2",
                "--bandwidth-mbit=40",
                "--writers=2",
                "--value-size=256KiB",
                "--interval-ms=20",
                "--idle-seconds=1",
                "--ramp-seconds=0.5",
                "--duration=2s",
                "--max-value-lag-ms=2000",
                "--json=" + json,
                "--dir=" + dir.resolve("run"));

        assertThat(code).as("%s", kvs).isIn(0, 3);
        JsonNode r = Report.JSON.readTree(json.toFile());
        assertThat(r.path("maxValueLagMillis").asLong()).isEqualTo(2_000);
        assertThat(r.path("lag").path("samples").asLong()).isPositive();
        assertThat(r.path("loaded").path("ok").asLong()).isPositive();
        assertThat(r.path("writers").path("acked").asLong()).isPositive();
        assertThat(r.path("goodput").path("percentOfLink").isNumber()).isTrue();
        assertThat(r.path("primary").path("maxValueLagMillis").asLong()).isEqualTo(2_000);
        assertThat(r.path("fenced").has("keys")).isTrue();
        assertThat(r.path("fenced").path("oldestAgeMillis").asLong()).isNotNegative();
        assertThat(r.path("verdict").path("checks")).hasSize(7);
        assertThat(r.path("verdict").path("pass").asBoolean()).isEqualTo(code == 0);
        assertThat(kvs.out()).contains("value lag: max", "after the kill").containsPattern("(?m)^(PASS|FAIL): ");
        assertThat(kvs.err()).contains("dc-main killed");
        InProcessKvs.assertNothingLeftRunning();
    }

    @Test
    @Timeout(180)
    void abuseRunsTheFourAttacksOnARealNodeAndReportsEveryField() throws Exception {
        Path json = dir.resolve("abuse.json");

        int code = kvs.run(
                "bench",
                "abuse",
                "--connections=10",
                "--idle-sockets=50",
                "--gets=50",
                "--hold-seconds=1",
                "--node-heap=256m",
                "--repl-drops=1",
                "--repl-churn-per-second=100",
                "--admin-posts=20",
                "--admin-body-size=64KiB",
                "--admin-half-open=300",
                "--memory-clients=300",
                "--json=" + json,
                "--dir=" + dir.resolve("run"));

        assertThat(code).as("%s", kvs).isIn(0, 3);
        JsonNode r = Report.JSON.readTree(json.toFile());
        assertThat(r.path("benchmark").asText()).isEqualTo("abuse");
        JsonNode squat = r.path("replicationSquatters");
        assertThat(squat.path("restreamMillis"))
                .as("one drop, one return measured")
                .hasSize(1);
        assertThat(squat.path("squatterConnections").asLong()).isGreaterThanOrEqualTo(16);
        assertThat(squat.path("churnConnections").asLong()).isPositive();
        assertThat(squat.path("refused").asLong())
                .as("the tight loop's connections are refused")
                .isPositive();
        assertThat(squat.path("warnLines").isNumber()).isTrue();
        JsonNode memory = r.path("clientMemory");
        assertThat(memory.path("opened").asInt()).isEqualTo(300);
        assertThat(memory.path("boundBytes").asLong()).isPositive();
        assertThat(memory.path("clientMemoryPeakBytes").asLong()).isPositive();
        assertThat(memory.path("probes").asLong()).isPositive();
        for (String name : new String[] {"bulkHeaders", "outputBuffer", "idleSockets"}) {
            JsonNode s = r.path(name);
            assertThat(s.path("heapBeforeBytes").asLong()).as(name).isPositive();
            assertThat(s.path("heapPeakBytes").asLong())
                    .as(name)
                    .isGreaterThanOrEqualTo(s.path("heapBeforeBytes").asLong());
            assertThat(s.path("heapAfterBytes").asLong()).as(name).isPositive();
            assertThat(s.path("samples").asInt()).as(name).isPositive();
            assertThat(s.path("outcome").asText()).as(name).isNotEmpty();
        }
        assertThat(r.path("bulkHeaders").path("connections").asInt()).isEqualTo(10);
        assertThat(r.path("bulkHeaders").path("closedByNode").asInt())
                .as("pre-auth limits or the auth timeout close every bulk header connection")
                .isEqualTo(10);
        assertThat(r.path("idleSockets").path("connections").asInt()).isEqualTo(50);
        assertThat(r.path("idleSockets").path("closedByNode").asInt())
                .as("the auth timeout closes every idle socket")
                .isEqualTo(50);
        assertThat(r.path("idleSockets").path("authMillis").isNumber())
                .as("the authenticated client got in")
                .isTrue();
        assertThat(r.path("outputBuffer").path("connections").asInt()).isEqualTo(1);
        assertThat(r.path("settings").path("idleSockets").asInt()).isEqualTo(50);
        JsonNode admin = r.path("adminPort");
        assertThat(admin.path("posts").asInt()).isEqualTo(20);
        assertThat(admin.path("postsRefused").asInt())
                .as("every unauthenticated POST is answered 401 on its head")
                .isEqualTo(20);
        assertThat(admin.path("halfOpenOpened").asInt()).isEqualTo(300);
        assertThat(admin.path("halfOpenClosedByNode").asInt())
                .as("the cap or the head timeout closes every half-open connection")
                .isEqualTo(300);
        assertThat(admin.path("directSamples").asInt()).isPositive();
        assertThat(admin.path("pings").asInt()).isPositive();
        assertThat(admin.path("valuesReplicated").asInt()).isEqualTo(2);
        assertThat(r.path("verdict").path("checks")).hasSize(12);
        assertThat(r.path("verdict").path("pass").asBoolean()).isEqualTo(code == 0);
        assertThat(kvs.out())
                .contains("bulk header", "idle sockets", "backup's replication port", "admin port")
                .containsPattern("(?m)^(PASS|FAIL): ");
        InProcessKvs.assertNothingLeftRunning();
    }

    @Test
    @Timeout(120)
    void idFirstOverheadMeasuresEverySizeInBothModesWithJsonOnStdout() throws Exception {
        int code = kvs.run(
                "bench",
                "id-first-overhead",
                "--delay-ms=1",
                "--bandwidth-mbit=100",
                "--sizes=100B,64KiB,2MiB",
                "--count=3",
                "--large-count=2",
                "--warm-up=1",
                "--pings=3",
                "--json",
                "--dir=" + dir.resolve("run"));

        assertThat(code).as("%s", kvs).isIn(0, 3);
        JsonNode r = Report.JSON.readTree(kvs.out());
        assertThat(r.path("linkRoundTrip").path("ok").asLong()).isEqualTo(3);
        assertThat(r.path("linkRoundTrip").path("p50Ms").asDouble()).isPositive();
        assertThat(r.path("sizes")).hasSize(3);
        for (JsonNode s : r.path("sizes")) {
            assertThat(s.path("async").path("p50Ms").isNumber()).as("%s", s).isTrue();
            assertThat(s.path("idFirst").path("p50Ms").isNumber()).as("%s", s).isTrue();
            assertThat(s.path("overheadRoundTrips").isNumber()).as("%s", s).isTrue();
        }
        assertThat(r.path("sizes").get(2).path("idFirst").path("sent").asLong())
                .as("over 1 MiB: --large-count")
                .isEqualTo(2);
        assertThat(kvs.err()).contains("value size").containsPattern("(?m)^(PASS|FAIL): ");
        InProcessKvs.assertNothingLeftRunning();
    }

    @Test
    @Timeout(120)
    void resyncShipsOnlyTheChangedValuesToABackupRestartedOnItsDataAndEveryValueToAnEmptyOne() throws Exception {
        Path json = dir.resolve("resync.json");

        int code = kvs.run(
                "bench",
                "resync",
                "--keys=2000",
                "--value-size=512B",
                "--changed-percent=1",
                "--node-heap=256m",
                "--timeout=60s",
                "--json=" + json,
                "--dir=" + dir.resolve("run"));

        // bytes, not times, decide this verdict: it holds on a loaded machine too
        assertThat(code).as("%s", kvs).isZero();
        JsonNode r = Report.JSON.readTree(json.toFile());
        JsonNode inc = r.path("incremental");
        JsonNode full = r.path("full");
        assertThat(r.path("settings").path("changedKeys").asInt()).isEqualTo(20);
        assertThat(inc.path("keysListed").asLong()).as("%s", inc).isEqualTo(2000);
        // the changed values ship as pending ones too: the listing may find some of them landed already
        assertThat(inc.path("resyncValueBytesShipped").asLong())
                .as("the backup asks for at most the 20 changed values")
                .isBetween(0L, 20L * 512);
        assertThat(inc.path("resyncValueBytesSaved").asLong()
                        + inc.path("resyncValueBytesShipped").asLong())
                .as("every value listed is asked for or saved")
                .isEqualTo(2000L * 512);
        assertThat(full.path("resyncValueBytesShipped").asLong())
                .as("an empty backup asks for every value")
                .isEqualTo(2000L * 512);
        assertThat(full.path("valueBytesShipped").asLong()).isGreaterThanOrEqualTo(2000L * 512);
        for (JsonNode p : new JsonNode[] {inc, full}) {
            assertThat(p.path("secondsToConverge").isNumber()).as("%s", p).isTrue();
            assertThat(p.path("backupKeys").asLong()).as("%s", p).isEqualTo(2000);
            assertThat(p.path("check").path("keys").asLong()).isEqualTo(2000);
            assertThat(p.path("check").path("different").asLong()).isZero();
        }
        assertThat(r.path("shippedPercent").asDouble()).isLessThanOrEqualTo(5.0);
        assertThat(kvs.out()).contains("incremental / full value bytes shipped").contains("PASS: every bound met");
        assertThat(Files.readString(dir.resolve("run/dc-main.log"))).contains("full resync to");
        assertThat(dir.resolve("run/dc-backup-full.log")).exists();
        assertThat(dir.resolve("run/dc-backup-data"))
                .as("the backup's files are removed")
                .doesNotExist();
        InProcessKvs.assertNothingLeftRunning();
    }
}
