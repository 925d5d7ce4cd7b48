package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class NetnsNetworkTest {
    private final StringWriter err = new StringWriter();

    @Test
    void withoutRootTheDrillSaysWhy() {
        assertThat(NetnsNetwork.precondition(false, Optional.of("/usr/sbin/ip")))
                .isEqualTo("--netns needs root: it creates network namespaces and veth pairs (run it as root,"
                        + " e.g. with sudo)");
    }

    @Test
    void withoutIpTheDrillSaysWhereItLooked() {
        assertThat(NetnsNetwork.precondition(true, Optional.empty()))
                .startsWith("--netns needs the ip command (iproute2)")
                .contains("/usr/sbin");
        assertThat(NetnsNetwork.precondition(true, Optional.of("/usr/sbin/ip"))).isNull();
    }

    @Test
    void aCommandThatCannotStartIsAFailureNotAnException() {
        NetnsNetwork.Result r = NetnsNetwork.run(List.of("/nonexistent/ip", "netns", "list"));
        assertThat(r.ok()).isFalse();
        assertThat(r.output()).contains("/nonexistent/ip");
    }

    @Test
    void aCommandsOutputAndExitCodeAreKept() {
        assertThat(NetnsNetwork.run(List.of("sh", "-c", "echo out; echo err >&2; exit 3")))
                .isEqualTo(new NetnsNetwork.Result(false, "out\nerr\n"));
        assertThat(NetnsNetwork.run(List.of("sh", "-c", "true")).ok()).isTrue();
    }

    @Test
    void whichFindsExecutables() {
        assertThat(NetnsNetwork.which("sh")).isPresent();
        assertThat(NetnsNetwork.which("no-such-binary-for-kvs")).isEmpty();
    }

    /** Root only: builds the real network, checks both DCs see each other, removes it. */
    @Test
    @Timeout(60)
    void buildThenTearDownLeavesNothing() {
        assumeNetns();
        try (NetnsNetwork net = NetnsNetwork.open(new PrintWriter(err, true))) {
            NetnsPlan p = net.plan();
            NetnsNetwork.Wan wan = net.build(Duration.ofMillis(1), 0);

            assertThat(wan).isNotNull();
            assertThat(ip("netns", "list")).contains(p.mainNamespace(), p.backupNamespace());
            assertThat(ip("-o", "link", "show")).contains(p.mainHostVeth(), p.backupHostVeth());
            assertThat(ip("-n", p.mainNamespace(), "-o", "addr", "show", "dev", p.mainLink()))
                    .contains(p.mainLinkAddress() + "/30");
            // the backup's namespace has no route to the main DC's access subnet: only the inter-DC pair
            assertThat(ip("-n", p.backupNamespace(), "route", "get", p.mainAddress()))
                    .contains("unreachable");
            net.cut();
            assertThat(ip("-n", p.mainNamespace(), "-o", "link", "show", "dev", p.mainLink()))
                    .contains("state DOWN");

            net.tearDown();
            assertNothingLeft(p);
            // a second build of the same names works: each mode gets a fresh network
            net.build(Duration.ZERO, 0);
            assertThat(ip("netns", "list")).contains(p.mainNamespace());
            net.close();
            assertNothingLeft(p);
            assertThatThrownBy(() -> net.build(Duration.ZERO, 0)).hasMessageContaining("the drill is stopping");
        }
    }

    /** Root only: the namespaces of a drill that died (kill -9) are removed by the next one. */
    @Test
    @Timeout(60)
    void leftoversOfADeadDrillAreRemoved() throws Exception {
        assumeNetns();
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        NetnsPlan p = new NetnsPlan(dead.pid(), NetnsNetwork.which("ip").orElseThrow());
        assumeTrue(ProcessHandle.of(dead.pid()).isEmpty(), "pid reused");
        assertThat(NetnsNetwork.run(p.setUpCommands().get(0)).ok()).isTrue();
        assertThat(NetnsNetwork.run(List.of(
                                p.ip(), "link", "add", p.mainHostVeth(), "type", "veth", "peer", "name", "kvstest0"))
                        .ok())
                .isTrue();

        NetnsNetwork.removeLeftovers(p.ip(), new PrintWriter(err, true));

        assertNothingLeft(p);
        assertThat(err.toString()).contains("left by drill " + dead.pid());
    }

    private static void assumeNetns() {
        assumeTrue(NetnsNetwork.isRoot(), "needs root");
        Optional<String> ip = NetnsNetwork.which("ip");
        assumeTrue(ip.isPresent(), "needs ip (iproute2)");
        assumeTrue(NetnsNetwork.run(List.of(ip.get(), "netns", "list")).ok(), "needs ip netns");
    }

    private static String ip(String... args) {
        List<String> c =
                new java.util.ArrayList<>(List.of(NetnsNetwork.which("ip").orElseThrow()));
        c.addAll(List.of(args));
        return NetnsNetwork.run(c).output();
    }

    static void assertNothingLeft(NetnsPlan p) {
        assertThat(ip("netns", "list")).doesNotContain(p.mainNamespace(), p.backupNamespace());
        String links = ip("-o", "link", "show");
        for (String veth : p.veths()) assertThat(links).doesNotContain(veth + ":", veth + "@");
    }
}
