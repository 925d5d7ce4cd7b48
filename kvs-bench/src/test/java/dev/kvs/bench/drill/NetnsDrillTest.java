package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.bench.cli.InProcessKvs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvs drill --netns} end to end: real namespaces, veths and node processes. Root only (CI runs
 * as root); skipped elsewhere.
 */
class NetnsDrillTest {
    @TempDir
    Path dir;

    private final InProcessKvs kvs = new InProcessKvs();

    @Test
    @Timeout(90)
    void idFirstDrillAcrossNamespacesCutsTheVethLosesNothingSilentlyAndLeavesNothing() throws Exception {
        assumeTrue(NetnsNetwork.isRoot(), "needs root");
        Optional<String> ip = NetnsNetwork.which("ip");
        assumeTrue(ip.isPresent(), "needs ip (iproute2)");
        assumeTrue(NetnsNetwork.run(List.of(ip.get(), "netns", "list")).ok(), "needs ip netns");
        Path json = dir.resolve("drill.json");

        int code = kvs.run(
                "drill",
                "--netns",
                "--mode",
                "id-first",
                "--disaster",
                "cut-link",
                "--duration",
                "6s",
                "--value-size",
                "16KiB",
                "--clients",
                "2",
                "--bandwidth-mbit",
                "50",
                "--seed",
                // the cut at 87% of the load (5.2 s): writes are acknowledged before it on a slow machine too
                "2048",
                "--json",
                json.toString(),
                "--dir",
                dir.resolve("run").toString());

        assertThat(code).as("%s", kvs).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.get("network").asText()).isEqualTo("netns");
        assertThat(report.get("wan").asText()).isIn("netem", "wanlink");
        JsonNode idFirst = report.get("modes").get(0);
        assertThat(idFirst.get("acked").asLong())
                .as("%s%nstderr:%n%s", idFirst, kvs.err())
                .isPositive();
        assertThat(idFirst.get("dataLoss").asLong()).isZero();
        assertThat(idFirst.get("unreadable").asLong()).isZero();
        NetnsPlan plan = new NetnsPlan(ProcessHandle.current().pid(), ip.get());
        assertThat(kvs.err()).contains("dc-main in " + plan.mainNamespace());
        assertThat(Files.readString(dir.resolve("run/id-first/dc-main.log"))).contains("listening on 0.0.0.0");
        NetnsNetworkTest.assertNothingLeft(plan);
        InProcessKvs.assertNothingLeftRunning();
    }
}
