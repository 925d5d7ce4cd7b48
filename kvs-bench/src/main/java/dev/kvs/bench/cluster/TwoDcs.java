package dev.kvs.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Two DCs on this machine, each a kvs node process: a backup, and a primary replicating to it across
 * an emulated WAN. {@link #startOnLoopback} starts them on loopback joined by a {@link WanLink} in
 * this process (the primary's peer is the link, the link's target the backup's replication port);
 * {@link #of} takes nodes started elsewhere (in network namespaces, say). Closing it kills the nodes
 * and closes the link.
 */
public final class TwoDcs implements AutoCloseable {
    /** The address the nodes bind and are reached on by {@link #startOnLoopback}. */
    public static final String LOOPBACK = "127.0.0.1";

    /**
     * One DC.
     *
     * @param node its node process
     * @param host the address its ports are reached on from this process
     * @param ports the ports the node bound
     */
    public record Dc(NodeProcess node, String host, NodeProcess.Ports ports) {
        /** {@code host:port} of its RESP port. */
        public String endpoint() {
            return host + ":" + ports.client();
        }
    }

    /**
     * How to start two DCs on loopback: what differs between a drill and a benchmark.
     *
     * @param yaml what both nodes' configs say besides where they listen
     * @param primaryFlags flags appended to the primary's {@code kvs server} command line
     * @param link the WAN between the DCs
     * @param startTimeout how long a node may take to start and the replication to come up
     */
    public record Settings(NodeYaml yaml, List<String> primaryFlags, LinkSettings link, Duration startTimeout) {
        public Settings {
            primaryFlags = List.copyOf(primaryFlags);
        }
    }

    private final AdminClient admin;
    private final Dc primary;
    private final Dc backup;
    private final WanLink link;
    private final NodeProcess wan;

    private TwoDcs(Dc primary, Dc backup, WanLink link, NodeProcess wan, String adminToken, ClientTlsFiles tls) {
        this.admin = new AdminClient(adminToken, tls);
        this.primary = primary;
        this.backup = backup;
        this.link = link;
        this.wan = wan;
    }

    /**
     * Starts the backup, the link and the primary on loopback, and waits until the primary streams to
     * the backup. The backup's replication port is chosen up front so the three start at once; if
     * another socket takes it before the backup listens (an outgoing connection's ephemeral port), the
     * three are stopped and started again on another port, up to {@value #START_ATTEMPTS} times.
     *
     * @throws IllegalStateException naming the node and quoting its log if a node does not start, or
     *     if the replication does not come up
     * @throws UncheckedIOException if a config cannot be written or a process started
     */
    public static TwoDcs startOnLoopback(Settings s, Path dir, JavaCommand java, ChildProcesses children)
            throws InterruptedException {
        return startOnLoopback(s, dir, java, children, TwoDcs::freePort);
    }

    /** As above, with the backup's replication port of each attempt from {@code ports}. */
    static TwoDcs startOnLoopback(Settings s, Path dir, JavaCommand java, ChildProcesses children, IntSupplier ports)
            throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnLoopback(s, dir, java, children, ports.getAsInt());
            } catch (IllegalStateException e) {
                if (attempt == START_ATTEMPTS || !replicationPortTaken(e)) throw e;
                System.err.println("kvs: the backup's replication port was taken before it listened; starting the"
                        + " two DCs again on another port (attempt " + (attempt + 1) + " of " + START_ATTEMPTS
                        + ")");
            }
        }
    }

    /** Whether {@code e} says the backup could not listen on its replication port, which another socket took. */
    static boolean replicationPortTaken(IllegalStateException e) {
        String m = e.getMessage();
        return m != null && m.startsWith("dc-backup ") && m.contains("(replication port): address already in use");
    }

    private static TwoDcs startOnLoopback(
            Settings s, Path dir, JavaCommand java, ChildProcesses children, int backupRepl)
            throws InterruptedException {
        WanLink link = s.link().start(LOOPBACK, backupRepl);
        NodeProcess backup = null;
        NodeProcess primary = null;
        try {
            Path backupConfig = s.yaml().write(dir, "dc-backup", "backup", LOOPBACK, 0, backupRepl, 0, null);
            Path primaryConfig =
                    s.yaml().write(dir, "dc-main", "primary", LOOPBACK, 0, 0, 0, LOOPBACK + ":" + link.port());
            backup = NodeProcess.start(
                    "dc-backup", java.kvs(server(backupConfig, List.of())), dir.resolve("dc-backup.log"), children);
            primary = NodeProcess.start(
                    "dc-main", java.kvs(server(primaryConfig, s.primaryFlags())), dir.resolve("dc-main.log"), children);
            NodeProcess.Ports b = backup.awaitReady(s.startTimeout());
            NodeProcess.Ports p = primary.awaitReady(s.startTimeout());
            TwoDcs dcs = new TwoDcs(
                    new Dc(primary, LOOPBACK, p),
                    new Dc(backup, LOOPBACK, b),
                    link,
                    null,
                    s.yaml().adminToken(),
                    s.yaml().tls() ? s.yaml().pki().clientTls() : null);
            dcs.awaitStreaming(s.startTimeout());
            return dcs;
        } catch (InterruptedException | RuntimeException e) {
            if (primary != null) primary.kill();
            if (backup != null) backup.kill();
            link.close();
            throw e;
        }
    }

    /**
     * Two DCs whose nodes were started elsewhere and are ready, joined by {@code wan} (a {@code kvs wan}
     * process, killed with the nodes) or by nothing this process runs (null).
     *
     * @param adminToken the nodes' {@code admin.token}, sent on every admin request; null for none
     * @param adminTls for nodes with {@code tls.admin: true}: the CA their certificates lead to; null
     *     for plain HTTP
     */
    public static TwoDcs of(Dc primary, Dc backup, NodeProcess wan, String adminToken, ClientTlsFiles adminTls) {
        return new TwoDcs(primary, backup, null, wan, adminToken, adminTls);
    }

    /** {@code kvs server --config FILE FLAGS}. */
    public static List<String> server(Path config, List<String> flags) {
        List<String> args = new ArrayList<>(List.of("server", "--config", config.toString()));
        args.addAll(flags);
        return args;
    }

    private static final int START_ATTEMPTS = 3;

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port: " + e.getMessage(), e);
        }
    }

    /** The primary DC. */
    public Dc primary() {
        return primary;
    }

    /** The backup DC. */
    public Dc backup() {
        return backup;
    }

    /** The link in this process the replication crosses; null for nodes started elsewhere. */
    public WanLink link() {
        return link;
    }

    /**
     * {@code GET path} on {@code dc}'s admin port, e.g. {@code /status}.
     *
     * @throws UncheckedIOException if the request fails
     * @throws IllegalStateException if the answer is not 200
     */
    public JsonNode get(Dc dc, String path) {
        return admin.get(dc.host(), dc.ports().admin(), path);
    }

    /** {@code POST path} on {@code dc}'s admin port, e.g. {@code /promote}; fails as {@link #get} does. */
    public JsonNode post(Dc dc, String path) {
        return admin.post(dc.host(), dc.ports().admin(), path);
    }

    /**
     * Waits until the primary's replication to the backup is {@code streaming}.
     *
     * @throws IllegalStateException quoting the processes' logs if it is not after {@code timeout}, or
     *     a process has exited
     */
    public void awaitStreaming(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = "unknown";
        while (System.nanoTime() < deadline && processes().stream().allMatch(NodeProcess::isAlive)) {
            try {
                state = get(primary, "/status")
                        .path("replication")
                        .path("state")
                        .asText();
                if (state.equals("streaming")) return;
            } catch (UncheckedIOException e) {
                state = e.getMessage();
            }
            // polling the admin port is the only way to learn the link state from outside
            TimeUnit.MILLISECONDS.sleep(50);
        }
        StringBuilder logs = new StringBuilder();
        for (NodeProcess n : processes()) {
            logs.append(logs.isEmpty() ? "" : "\n")
                    .append(n.log())
                    .append(" ends with:\n")
                    .append(n.tail(10));
        }
        throw new IllegalStateException("the primary's link to the backup is not up after " + timeout.toSeconds()
                + " s (state: " + state + "); " + logs);
    }

    /**
     * Fails with the last log lines of a node that has exited.
     *
     * @throws IllegalStateException if either node has exited
     */
    public void checkAlive() {
        for (NodeProcess n : List.of(primary.node(), backup.node())) {
            if (!n.isAlive()) {
                throw new IllegalStateException(n.name() + " exited; " + n.log() + " ends with:\n" + n.tail(20));
            }
        }
    }

    /** The primary, the backup, and the WAN emulator process if there is one, in that order. */
    private List<NodeProcess> processes() {
        return wan == null ? List.of(primary.node(), backup.node()) : List.of(primary.node(), backup.node(), wan);
    }

    /** Kills both nodes and the WAN emulator process, and closes the link. */
    @Override
    public void close() {
        primary.node().kill();
        if (wan != null) wan.kill();
        backup.node().kill();
        if (link != null) link.close();
    }
}
