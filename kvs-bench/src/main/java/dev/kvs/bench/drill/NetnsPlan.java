package dev.kvs.bench.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names, addresses and {@code ip} command lines of a {@code kvs drill --netns} network, all
 * derived from the drill's pid so that concurrent drills do not collide and leftovers of a dead drill
 * can be recognised. No I/O: {@link NetnsNetwork} runs what this plans.
 *
 * <p>Each DC gets a namespace ({@code kvsdrill-PID-main}, {@code kvsdrill-PID-backup}) with two veth
 * ends: the inter-DC pair {@code kdPIDm}/{@code kdPIDb} (10.77.x.y/30), the only path between the
 * DCs, and an access pair to the root namespace ({@code khPIDm}/{@code knPIDm} in 10.78.x.y/30,
 * {@code khPIDb}/{@code knPIDb} in 10.79.x.y/30) over which the drill's clients and admin calls reach
 * the nodes. Neither namespace has a route to the other's access subnet, so replication can only
 * cross the inter-DC pair.
 *
 * @param pid the drill's pid
 * @param ip the {@code ip} binary
 */
record NetnsPlan(long pid, String ip) {
    /** Prefix of every namespace a drill creates. */
    static final String NAMESPACE_PREFIX = "kvsdrill-";
    /** Client port of both nodes, inside their namespaces (fresh, so every port is free). */
    static final int CLIENT_PORT = 6380;
    /** Replication port of both nodes. */
    static final int REPL_PORT = 7380;
    /** Admin port of both nodes. */
    static final int ADMIN_PORT = 8380;
    /** Where the {@code kvs wan} fallback listens, in the backup's namespace. */
    static final int WAN_PORT = 7381;

    private static final Pattern NAMESPACE = Pattern.compile("kvsdrill-(\\d+)-(?:main|backup)");
    private static final Pattern VETH = Pattern.compile("k[dhn](\\d+)[mb]");
    /** Linux's limit on interface names (IFNAMSIZ - 1). */
    private static final int MAX_IFNAME = 15;

    NetnsPlan {
        if (pid <= 0) throw new IllegalArgumentException("pid <= 0: " + pid);
        if (ip == null || ip.isEmpty()) throw new IllegalArgumentException("ip is empty: " + ip);
        if (vethName('d', pid, 'm').length() > MAX_IFNAME) {
            throw new IllegalArgumentException("pid too large for a veth name: " + pid);
        }
    }

    String mainNamespace() {
        return NAMESPACE_PREFIX + pid + "-main";
    }

    String backupNamespace() {
        return NAMESPACE_PREFIX + pid + "-backup";
    }

    /** The main DC's end of the inter-DC pair, in its namespace. */
    String mainLink() {
        return vethName('d', pid, 'm');
    }

    /** The backup DC's end of the inter-DC pair, in its namespace. */
    String backupLink() {
        return vethName('d', pid, 'b');
    }

    /** The root namespace's end of the main DC's access pair. */
    String mainHostVeth() {
        return vethName('h', pid, 'm');
    }

    /** The root namespace's end of the backup DC's access pair. */
    String backupHostVeth() {
        return vethName('h', pid, 'b');
    }

    String mainAccessVeth() {
        return vethName('n', pid, 'm');
    }

    String backupAccessVeth() {
        return vethName('n', pid, 'b');
    }

    /** Every veth name, root-side ends first (deleting one end deletes its pair). */
    List<String> veths() {
        return List.of(
                mainHostVeth(), backupHostVeth(), mainLink(), backupLink(), mainAccessVeth(), backupAccessVeth());
    }

    private static String vethName(char role, long pid, char dc) {
        return "k" + role + pid + dc;
    }

    /** Which /30 of the 10.77-79 ranges this pid gets: 16,384 of them, so pids rarely share one. */
    private String address(int secondOctet, int host) {
        int block = (int) (pid % 16_384);
        return "10." + secondOctet + "." + (block / 64) + "." + ((block % 64) * 4 + host);
    }

    /** The main DC's address on the inter-DC pair. */
    String mainLinkAddress() {
        return address(77, 1);
    }

    /** The backup DC's address on the inter-DC pair: the primary's peer (or the WanLink's). */
    String backupLinkAddress() {
        return address(77, 2);
    }

    /** Where the root namespace reaches the main DC. */
    String mainAddress() {
        return address(78, 2);
    }

    /** Where the root namespace reaches the backup DC. */
    String backupAddress() {
        return address(79, 2);
    }

    String mainHostAddress() {
        return address(78, 1);
    }

    String backupHostAddress() {
        return address(79, 1);
    }

    /** The {@code ip} commands that build the network, in order; each must succeed. */
    List<List<String>> setUpCommands() {
        String m = mainNamespace();
        String b = backupNamespace();
        List<List<String>> c = new ArrayList<>();
        c.add(List.of(ip, "netns", "add", m));
        c.add(List.of(ip, "netns", "add", b));
        c.add(List.of(
                ip, "link", "add", mainLink(), "netns", m, "type", "veth", "peer", "name", backupLink(), "netns", b));
        c.add(List.of(ip, "link", "add", mainHostVeth(), "type", "veth", "peer", "name", mainAccessVeth(), "netns", m));
        c.add(List.of(
                ip, "link", "add", backupHostVeth(), "type", "veth", "peer", "name", backupAccessVeth(), "netns", b));
        c.add(List.of(ip, "-n", m, "addr", "add", mainLinkAddress() + "/30", "dev", mainLink()));
        c.add(List.of(ip, "-n", b, "addr", "add", backupLinkAddress() + "/30", "dev", backupLink()));
        c.add(List.of(ip, "-n", m, "addr", "add", mainAddress() + "/30", "dev", mainAccessVeth()));
        c.add(List.of(ip, "-n", b, "addr", "add", backupAddress() + "/30", "dev", backupAccessVeth()));
        c.add(List.of(ip, "addr", "add", mainHostAddress() + "/30", "dev", mainHostVeth()));
        c.add(List.of(ip, "addr", "add", backupHostAddress() + "/30", "dev", backupHostVeth()));
        for (String ns : List.of(m, b)) c.add(List.of(ip, "-n", ns, "link", "set", "lo", "up"));
        c.add(List.of(ip, "-n", m, "link", "set", mainLink(), "up"));
        c.add(List.of(ip, "-n", b, "link", "set", backupLink(), "up"));
        c.add(List.of(ip, "-n", m, "link", "set", mainAccessVeth(), "up"));
        c.add(List.of(ip, "-n", b, "link", "set", backupAccessVeth(), "up"));
        c.add(List.of(ip, "link", "set", mainHostVeth(), "up"));
        c.add(List.of(ip, "link", "set", backupHostVeth(), "up"));
        return c;
    }

    /**
     * {@code tc -n NS qdisc add dev DEV root netem delay D rate R limit N} for one end of the inter-DC
     * pair: each end delays what it sends, so each direction gets {@code delay} once.
     */
    List<String> netemCommand(String tc, boolean main, Duration delay, long bandwidthBitsPerSecond) {
        List<String> c = new ArrayList<>(List.of(
                tc,
                "-n",
                main ? mainNamespace() : backupNamespace(),
                "qdisc",
                "add",
                "dev",
                main ? mainLink() : backupLink(),
                "root",
                "netem",
                "delay",
                (delay.toNanos() / 1000) + "us"));
        if (bandwidthBitsPerSecond > 0) c.addAll(List.of("rate", bandwidthBitsPerSecond + "bit"));
        // netem's default queue of 1,000 packets drops at a fraction of a fast link's delay x bandwidth
        c.addAll(List.of("limit", "100000"));
        return c;
    }

    /**
     * The fallback WAN emulator, {@code kvs wan}, run in the backup's namespace: it listens on the
     * backup's inter-DC address and relays to the backup's replication port, so the primary's stream
     * crosses the inter-DC pair before it is delayed.
     */
    List<String> wanArgs(Duration delay, long bandwidthBitsPerSecond) {
        return List.of(
                "wan",
                "--listen",
                backupLinkAddress() + ":" + WAN_PORT,
                "--target",
                "127.0.0.1:" + REPL_PORT,
                "--delay-ms",
                number(delay.toNanos() / 1e6),
                "--bandwidth-mbit",
                number(bandwidthBitsPerSecond / 1e6),
                "--queueing",
                "fifo",
                "--no-stdin");
    }

    /** {@code ip netns exec NS COMMAND...}. */
    List<String> inNamespace(String namespace, List<String> command) {
        List<String> c = new ArrayList<>(List.of(ip, "netns", "exec", namespace));
        c.addAll(command);
        return c;
    }

    /** Cuts the link: the main DC's end of the inter-DC pair goes down, and the backup's loses carrier. */
    List<String> cutCommand() {
        return List.of(ip, "-n", mainNamespace(), "link", "set", mainLink(), "down");
    }

    /** The pid in a drill's namespace or veth name, if {@code name} is one. */
    static OptionalLong owner(String name) {
        for (Pattern p : List.of(NAMESPACE, VETH)) {
            Matcher m = p.matcher(name);
            if (m.matches() && m.group(1).length() <= 10) return OptionalLong.of(Long.parseLong(m.group(1)));
        }
        return OptionalLong.empty();
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}
