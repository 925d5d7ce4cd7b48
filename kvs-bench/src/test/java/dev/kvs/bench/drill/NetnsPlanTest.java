package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class NetnsPlanTest {
    private final NetnsPlan plan = new NetnsPlan(4242, "/usr/sbin/ip");

    @Test
    void namesCarryThePid() {
        assertThat(plan.mainNamespace()).isEqualTo("kvsdrill-4242-main");
        assertThat(plan.backupNamespace()).isEqualTo("kvsdrill-4242-backup");
        assertThat(plan.mainLink()).isEqualTo("kd4242m");
        assertThat(plan.backupLink()).isEqualTo("kd4242b");
        assertThat(plan.veths())
                .containsExactly("kh4242m", "kh4242b", "kd4242m", "kd4242b", "kn4242m", "kn4242b")
                .doesNotHaveDuplicates();
    }

    @Test
    void vethNamesFitLinuxsLimitForTheLargestPid() {
        // pid_max is at most 2^22 on Linux
        NetnsPlan big = new NetnsPlan(4_194_304, "ip");
        assertThat(big.veths()).allSatisfy(n -> assertThat(n.length()).isLessThanOrEqualTo(15));
    }

    @Test
    void aBadPidIsRefused() {
        assertThatThrownBy(() -> new NetnsPlan(0, "ip")).hasMessage("pid <= 0: 0");
        assertThatThrownBy(() -> new NetnsPlan(12_345_678_901_234L, "ip"))
                .hasMessageContaining("pid too large for a veth name: 12345678901234");
    }

    @Test
    void addressesArePrivateSlash30sDerivedFromThePid() {
        // 4242 = 66 * 64 + 18: block 66, hosts 18 * 4 + 1 and + 2
        assertThat(plan.mainLinkAddress()).isEqualTo("10.77.66.73");
        assertThat(plan.backupLinkAddress()).isEqualTo("10.77.66.74");
        assertThat(plan.mainHostAddress()).isEqualTo("10.78.66.73");
        assertThat(plan.mainAddress()).isEqualTo("10.78.66.74");
        assertThat(plan.backupHostAddress()).isEqualTo("10.79.66.73");
        assertThat(plan.backupAddress()).isEqualTo("10.79.66.74");
    }

    @Test
    void addressesStayInRangeForEveryPidBlock() {
        for (long pid : new long[] {1, 63, 64, 16_383, 16_384, 4_194_304}) {
            NetnsPlan p = new NetnsPlan(pid, "ip");
            for (String a : List.of(p.mainLinkAddress(), p.backupLinkAddress(), p.mainAddress(), p.backupAddress())) {
                assertThat(Stream.of(a.split("\\.")).mapToInt(Integer::parseInt))
                        .as(a)
                        .allMatch(o -> o >= 0 && o <= 255);
            }
        }
    }

    @Test
    void setUpPutsTheInterDcPairBetweenTheNamespacesAndAnAccessPairToEach() {
        List<String> lines =
                plan.setUpCommands().stream().map(c -> String.join(" ", c)).toList();
        assertThat(lines)
                .startsWith("/usr/sbin/ip netns add kvsdrill-4242-main", "/usr/sbin/ip netns add kvsdrill-4242-backup")
                .contains(
                        "/usr/sbin/ip link add kd4242m netns kvsdrill-4242-main type veth peer name kd4242b netns"
                                + " kvsdrill-4242-backup",
                        "/usr/sbin/ip link add kh4242m type veth peer name kn4242m netns kvsdrill-4242-main",
                        "/usr/sbin/ip link add kh4242b type veth peer name kn4242b netns kvsdrill-4242-backup",
                        "/usr/sbin/ip -n kvsdrill-4242-main addr add 10.77.66.73/30 dev kd4242m",
                        "/usr/sbin/ip -n kvsdrill-4242-backup addr add 10.77.66.74/30 dev kd4242b",
                        "/usr/sbin/ip -n kvsdrill-4242-main addr add 10.78.66.74/30 dev kn4242m",
                        "/usr/sbin/ip addr add 10.78.66.73/30 dev kh4242m",
                        "/usr/sbin/ip -n kvsdrill-4242-main link set lo up",
                        "/usr/sbin/ip -n kvsdrill-4242-backup link set kd4242b up",
                        "/usr/sbin/ip link set kh4242b up");
        // every address is added before its link goes up, so nothing routes through a half-built network
        int lastAddr = 0;
        int firstUp = lines.size();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(" addr add ")) lastAddr = i;
            if (lines.get(i).endsWith(" up")) firstUp = Math.min(firstUp, i);
        }
        assertThat(lastAddr).isLessThan(firstUp);
    }

    @Test
    void netemDelaysEachEndAndLimitsTheRate() {
        assertThat(String.join(" ", plan.netemCommand("tc", true, Duration.ofMillis(5), 1_000_000_000)))
                .isEqualTo("tc -n kvsdrill-4242-main qdisc add dev kd4242m root netem delay 5000us rate 1000000000bit"
                        + " limit 100000");
        assertThat(String.join(" ", plan.netemCommand("tc", false, Duration.ofNanos(1_500_000), 0)))
                .isEqualTo("tc -n kvsdrill-4242-backup qdisc add dev kd4242b root netem delay 1500us limit 100000");
    }

    @Test
    void theWanLinkListensAcrossTheInterDcPairAndRelaysToTheBackup() {
        assertThat(plan.wanArgs(Duration.ofMillis(5), 50_000_000))
                .containsExactly(
                        "wan",
                        "--listen",
                        "10.77.66.74:7381",
                        "--target",
                        "127.0.0.1:7380",
                        "--delay-ms",
                        "5",
                        "--bandwidth-mbit",
                        "50",
                        "--queueing",
                        "fifo",
                        "--no-stdin");
        assertThat(plan.wanArgs(Duration.ofNanos(2_500_000), 0)).contains("2.5", "0");
    }

    @Test
    void processesRunInANamespaceThroughIpNetnsExec() {
        assertThat(plan.inNamespace(plan.backupNamespace(), List.of("/usr/bin/java", "-cp", "kvs.jar")))
                .containsExactly(
                        "/usr/sbin/ip", "netns", "exec", "kvsdrill-4242-backup", "/usr/bin/java", "-cp", "kvs.jar");
    }

    @Test
    void theCutTakesTheMainEndOfTheInterDcPairDown() {
        assertThat(plan.cutCommand())
                .containsExactly("/usr/sbin/ip", "-n", "kvsdrill-4242-main", "link", "set", "kd4242m", "down");
    }

    @Test
    void leftoversAreRecognisedByName() {
        assertThat(NetnsPlan.owner("kvsdrill-17-main")).isEqualTo(OptionalLong.of(17));
        assertThat(NetnsPlan.owner("kvsdrill-17-backup")).isEqualTo(OptionalLong.of(17));
        assertThat(NetnsPlan.owner("kh4242b")).isEqualTo(OptionalLong.of(4242));
        assertThat(NetnsPlan.owner("kd4242m")).isEqualTo(OptionalLong.of(4242));
        assertThat(NetnsPlan.owner("kvsdrill-17-other")).isEmpty();
        assertThat(NetnsPlan.owner("eth0")).isEmpty();
        assertThat(NetnsPlan.owner("kx4242m")).isEmpty();
        assertThat(NetnsPlan.owner("kd4242")).isEmpty();
    }
}
