package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.bench.cli.InProcessKvs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class DrillCommandTest {
    @TempDir
    Path dir;

    private final InProcessKvs kvs = new InProcessKvs();

    @Test
    void helpNamesEveryOptionAndTheHalves() {
        assertThat(kvs.run("drill", "--help")).isZero();
        assertThat(kvs.out())
                .contains("Usage: kvs drill")
                .contains("--mode=MODE", "--disaster=kill-primary|cut-link", "--clients=N", "--value-size=SIZE")
                .contains("--duration=TIME", "--delay-ms=MS", "--bandwidth-mbit=MBIT", "--seed=N", "--json=FILE")
                .contains("--netns", "Root only")
                .contains("load", "verify");
    }

    @Test
    void loadAndVerifyHaveTheOptionsScriptsUse() {
        assertThat(kvs.run("drill", "load", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--endpoints=HOST:PORT[,HOST:PORT]", "--clients=N", "--value-size=SIZE", "--duration=TIME")
                .contains("--mode=MODE", "--out=FILE");
        assertThat(kvs.run("drill", "verify", "--help")).isZero();
        assertThat(kvs.out()).contains("--endpoints=HOST:PORT", "--in=FILE", "--json=FILE");
    }

    @Test
    void aBadSizeIsAUsageError() {
        assertThat(kvs.run("drill", "--value-size", "12XB")).isEqualTo(2);
        assertThat(kvs.err())
                .startsWith("kvs drill: Invalid value for option '--value-size': not a byte size")
                .contains("12XB");
    }

    @Test
    void aTooLargeSizeIsAUsageError() {
        assertThat(kvs.run("drill", "--value-size", "1GiB")).isEqualTo(2);
        assertThat(kvs.err()).contains("size is not in 1B..64MiB: 1GiB");
    }

    @Test
    void aBadModeIsAUsageError() {
        assertThat(kvs.run("drill", "--mode", "id-first,fast")).isEqualTo(2);
        assertThat(kvs.err())
                .contains("Invalid value for option '--mode'")
                .contains("mode is not sync, id-first, id-first-after-reply or async: fast (or all)");
    }

    @Test
    void allMeansEveryModeStrongestFirst() {
        assertThat(LoadOptions.modes("all").stream().map(m -> m.label()))
                .containsExactly("sync", "id-first", "id-first-after-reply", "async");
        assertThat(LoadOptions.modes("async, id-first").stream().map(m -> m.label()))
                .containsExactly("async", "id-first");
    }

    @Test
    void aBadDisasterIsAUsageError() {
        assertThat(kvs.run("drill", "--disaster", "flood")).isEqualTo(2);
        assertThat(kvs.err())
                .contains("disaster is not kill-primary, cut-link, isolate-dc or isolate-backup-dc: flood");
    }

    @Test
    void isolatingADcNeedsShards() {
        assertThat(kvs.run("drill", "--disaster", "isolate-dc")).isEqualTo(2);
        assertThat(kvs.err()).contains("isolate-dc needs --shards: a pair has no ZooKeeper to isolate a DC from");
    }

    @Test
    void badNumbersAreUsageErrors() {
        assertThat(kvs.run("drill", "--duration", "10 parsecs")).isEqualTo(2);
        assertThat(kvs.err()).contains("not a duration (e.g. 10s, 500ms, 2m): 10 parsecs");
        assertThat(kvs.run("drill", "--clients", "0")).isEqualTo(2);
        assertThat(kvs.err()).contains("--clients is not in 1..1024: 0");
        assertThat(kvs.run("drill", "--delay-ms", "-1")).isEqualTo(2);
        assertThat(kvs.err()).contains("--delay-ms is not in 0..60000: -1.0");
    }

    @Test
    void durationsTakeUnits() {
        LoadOptions.DurationConverter c = new LoadOptions.DurationConverter();
        assertThat(c.convert("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.convert("2")).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.convert("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(c.convert("2m")).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void loadNeedsEndpointsAndAFile() {
        assertThat(kvs.run("drill", "load", "--out", dir.resolve("a.tsv").toString()))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("Missing required option: '--endpoints=HOST:PORT[,HOST:PORT]'");
        assertThat(kvs.run("drill", "load", "--endpoints", "nope", "--out", "x"))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("--endpoints:").contains("nope");
    }

    @Test
    void verifyOfAMissingFileFails() {
        assertThat(kvs.run(
                        "drill",
                        "verify",
                        "--endpoints",
                        "127.0.0.1:1",
                        "--in",
                        dir.resolve("none.tsv").toString()))
                .isEqualTo(1);
        assertThat(kvs.err()).contains("cannot read").contains("none.tsv");
    }

    /**
     * The whole drill, in-process: real node processes, a real kill, zero silent loss, nothing left
     * running afterwards.
     */
    @Test
    @Timeout(120)
    void idFirstDrillKillsThePrimaryAndLosesNothingSilently() throws Exception {
        Path json = dir.resolve("drill.json");

        int code = kvs.run(
                "drill",
                "--mode",
                "id-first",
                "--disaster",
                "kill-primary",
                "--duration",
                "2s",
                "--value-size",
                "2KiB",
                "--clients",
                "2",
                "--bandwidth-mbit",
                "20",
                "--seed",
                "42",
                "--json",
                json.toString(),
                "--dir",
                dir.resolve("run").toString());

        assertThat(code).as("%s", kvs).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        JsonNode idFirst = report.get("modes").get(0);
        assertThat(idFirst.get("mode").asText()).isEqualTo("id-first");
        assertThat(idFirst.get("acked").asLong()).as("%s", kvs).isPositive();
        assertThat(idFirst.get("dataLoss").asLong()).isZero();
        assertThat(idFirst.get("unreadable").asLong()).isZero();
        assertThat(idFirst.get("complete").asLong() + idFirst.get("errorDetect").asLong())
                .isEqualTo(idFirst.get("acked").asLong());
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(kvs.out()).contains("id-first").contains("No acknowledged write was silently lost");
        assertThat(kvs.err()).contains("seed 42").contains("run directory");
        assertThat(Files.readString(dir.resolve("run/id-first/dc-main.log"))).contains("listening on");
        InProcessKvs.assertNothingLeftRunning();
    }

    /**
     * {@code --tls}: the same drill with TLS on every port (a fresh CA, mutual TLS on replication,
     * TLS-only client and admin ports, the drill's clients and promotion over TLS): still zero silent
     * loss, and the nodes' logs show they served TLS only. Longer than the plain drill above: on a
     * loaded machine the first writes through cold TLS code take over a second, and the load must
     * acknowledge some before the kill (at 80% of the duration with seed 7).
     */
    @Test
    @Timeout(180)
    void tlsDrillRunsEveryPortOverTlsAndLosesNothingSilently() throws Exception {
        Path json = dir.resolve("drill.json");
        Path run = dir.resolve("run");

        int code = kvs.run(
                "drill",
                "--tls",
                "--mode",
                "id-first",
                "--duration",
                "2s",
                "--value-size",
                "2KiB",
                "--clients",
                "2",
                "--bandwidth-mbit",
                "20",
                "--seed",
                "7",
                "--json",
                json.toString(),
                "--dir",
                run.toString());

        assertThat(code).as("%s", kvs).isZero();
        JsonNode idFirst =
                new ObjectMapper().readTree(json.toFile()).get("modes").get(0);
        assertThat(idFirst.get("acked").asLong()).as("%s", kvs).isPositive();
        assertThat(idFirst.get("dataLoss").asLong()).isZero();
        assertThat(idFirst.get("unreadable").asLong()).isZero();
        assertThat(kvs.err()).contains("TLS on every port (mutual TLS on replication)");
        for (String node : new String[] {"dc-main", "dc-backup"}) {
            assertThat(Files.readString(run.resolve("id-first/" + node + ".yaml")))
                    .contains("tls:\n", "  clients: true\n", "  admin: true\n", "clusterSecret: ");
            assertThat(Files.readString(run.resolve("id-first/" + node + ".log")))
                    .contains("serving RESP (TLS)", "admin (HTTPS)", "replication TLS with");
        }
        assertThat(run.resolve("id-first/tls/dc-main.key")).exists();
        InProcessKvs.assertNothingLeftRunning();
    }
}
