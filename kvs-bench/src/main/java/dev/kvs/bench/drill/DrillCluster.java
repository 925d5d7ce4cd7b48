package dev.kvs.bench.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.client.ReplicationMode;
import dev.kvs.replication.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Two DCs on one machine: a backup node and a primary node as separate processes. On loopback they
 * are joined by an in-process {@link WanLink} (the primary's {@code peer} is the link, the link's
 * target is the backup's replication port). With {@code --netns} each node runs in its own network
 * namespace ({@link NetnsNetwork}) and the primary's peer is the backup's address across the inter-DC
 * veth pair, delayed there by {@code tc netem}, or by a {@code kvs wan} process in the backup's
 * namespace. The nodes start in parallel: the backup's replication port is chosen up front so the
 * link and the primary can be set up before the backup is listening.
 */
final class DrillCluster implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOST = "127.0.0.1";
    private static final Pattern WAN_READY = Pattern.compile("WAN link listening on ");

    /**
     * How to set the cluster up.
     *
     * @param mode the primary's default mode (clients ask for theirs too)
     * @param delay one-way WAN delay
     * @param bandwidthBitsPerSecond WAN bandwidth per direction, 0 for unlimited
     * @param startTimeout how long a node may take to start and the link to come up
     */
    record Settings(ReplicationMode mode, Duration delay, long bandwidthBitsPerSecond, Duration startTimeout) {}

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final NodeProcess primary;
    private final NodeProcess backup;
    private final WanLink link;
    private final NodeProcess wanProcess;
    private final NetnsNetwork net;
    private final String primaryHost;
    private final String backupHost;
    private final NodeProcess.Ports primaryPorts;
    private final NodeProcess.Ports backupPorts;

    private DrillCluster(
            NodeProcess primary,
            NodeProcess backup,
            WanLink link,
            NodeProcess wanProcess,
            NetnsNetwork net,
            String primaryHost,
            String backupHost,
            NodeProcess.Ports primaryPorts,
            NodeProcess.Ports backupPorts) {
        this.primary = primary;
        this.backup = backup;
        this.link = link;
        this.wanProcess = wanProcess;
        this.net = net;
        this.primaryHost = primaryHost;
        this.backupHost = backupHost;
        this.primaryPorts = primaryPorts;
        this.backupPorts = backupPorts;
    }

    /**
     * Starts the backup, the link and the primary on loopback, and waits until the primary streams to
     * the backup.
     *
     * @throws IllegalStateException naming the node and quoting its log if a node does not start
     */
    static DrillCluster start(Settings s, Path dir, JavaCommand java, ChildProcesses children)
            throws InterruptedException {
        int backupRepl = freePort();
        WanLink link = WanLink.builder()
                .target(HOST, backupRepl)
                .delay(s.delay())
                .bandwidthBitsPerSecond(s.bandwidthBitsPerSecond())
                .queueing(WanLink.Queueing.FAIR)
                .build();
        NodeProcess backup = null;
        NodeProcess primary = null;
        try {
            Path backupConfig = writeConfig(dir, "dc-backup", "backup", HOST, 0, backupRepl, 0, null, s.mode());
            Path primaryConfig =
                    writeConfig(dir, "dc-main", "primary", HOST, 0, 0, 0, HOST + ":" + link.port(), s.mode());
            backup = NodeProcess.start(
                    "dc-backup", java.kvs(serverArgs(backupConfig)), dir.resolve("dc-backup.log"), children);
            primary = NodeProcess.start(
                    "dc-main", java.kvs(serverArgs(primaryConfig)), dir.resolve("dc-main.log"), children);
            NodeProcess.Ports b = backup.awaitReady(s.startTimeout());
            NodeProcess.Ports p = primary.awaitReady(s.startTimeout());
            DrillCluster c = new DrillCluster(primary, backup, link, null, null, HOST, HOST, p, b);
            c.awaitLinkUp(s.startTimeout());
            return c;
        } catch (InterruptedException | RuntimeException e) {
            if (primary != null) primary.kill();
            if (backup != null) backup.kill();
            link.close();
            throw e;
        }
    }

    /**
     * Starts the backup, the WAN emulator if {@code wan} says so, and the primary in the namespaces of
     * {@code net} (already built), and waits until the primary streams to the backup. Every node binds
     * all the addresses of its namespace on fixed ports: the namespaces are fresh.
     *
     * @throws IllegalStateException naming the process and quoting its log if one does not start
     */
    static DrillCluster startInNamespaces(
            Settings s, Path dir, JavaCommand java, ChildProcesses children, NetnsNetwork net, NetnsNetwork.Wan wan)
            throws InterruptedException {
        NetnsPlan plan = net.plan();
        String peer = plan.backupLinkAddress() + ":"
                + (wan == NetnsNetwork.Wan.WAN_LINK ? NetnsPlan.WAN_PORT : NetnsPlan.REPL_PORT);
        NodeProcess backup = null;
        NodeProcess primary = null;
        NodeProcess wanProcess = null;
        String any = "0.0.0.0";
        try {
            Path backupConfig = writeConfig(
                    dir,
                    "dc-backup",
                    "backup",
                    any,
                    NetnsPlan.CLIENT_PORT,
                    NetnsPlan.REPL_PORT,
                    NetnsPlan.ADMIN_PORT,
                    null,
                    s.mode());
            Path primaryConfig = writeConfig(
                    dir,
                    "dc-main",
                    "primary",
                    any,
                    NetnsPlan.CLIENT_PORT,
                    NetnsPlan.REPL_PORT,
                    NetnsPlan.ADMIN_PORT,
                    peer,
                    s.mode());
            backup = NodeProcess.start(
                    "dc-backup",
                    plan.inNamespace(plan.backupNamespace(), java.kvs(serverArgs(backupConfig))),
                    dir.resolve("dc-backup.log"),
                    children);
            if (wan == NetnsNetwork.Wan.WAN_LINK) {
                wanProcess = NodeProcess.start(
                        "kvs wan",
                        plan.inNamespace(
                                plan.backupNamespace(), java.kvs(plan.wanArgs(s.delay(), s.bandwidthBitsPerSecond()))),
                        dir.resolve("wan.log"),
                        children);
            }
            primary = NodeProcess.start(
                    "dc-main",
                    plan.inNamespace(plan.mainNamespace(), java.kvs(serverArgs(primaryConfig))),
                    dir.resolve("dc-main.log"),
                    children);
            NodeProcess.Ports b = backup.awaitReady(s.startTimeout());
            NodeProcess.Ports p = primary.awaitReady(s.startTimeout());
            if (wanProcess != null) wanProcess.awaitLine(WAN_READY, s.startTimeout());
            DrillCluster c = new DrillCluster(
                    primary, backup, null, wanProcess, net, plan.mainAddress(), plan.backupAddress(), p, b);
            c.awaitLinkUp(s.startTimeout());
            return c;
        } catch (InterruptedException | RuntimeException e) {
            if (primary != null) primary.kill();
            if (wanProcess != null) wanProcess.kill();
            if (backup != null) backup.kill();
            throw e;
        }
    }

    private static List<String> serverArgs(Path config) {
        return List.of("server", "--config", config.toString());
    }

    /**
     * The node's YAML: memory only, room for a full-speed run of large values, a write timeout short
     * enough that writes stuck behind a cut link fail quickly, and a promoted backup that answers
     * fenced keys at once.
     */
    private static Path writeConfig(
            Path dir,
            String name,
            String role,
            String bind,
            int port,
            int replPort,
            int adminPort,
            String peer,
            ReplicationMode mode) {
        String yaml = "cluster: kvs-drill\n"
                + "name: " + name + "\n"
                + "role: " + role + "\n"
                + "bind: " + bind + "\n"
                + "port: " + port + "\n"
                + "replPort: " + replPort + "\n"
                + "adminPort: " + adminPort + "\n"
                + (peer == null ? "" : "peer: " + peer + "\n")
                + "mode: " + mode.label() + "\n"
                + "store:\n"
                + "  maxBytes: 4GiB\n"
                + "replication:\n"
                + "  maxPendingValueBytes: 3GiB\n"
                + "  writeTimeoutMs: 3000\n"
                + "failover:\n"
                + "  readPolicy: reject\n"
                + "  blockTimeoutMs: 0\n"
                + "  lostAfterMs: 0\n";
        Path file = dir.resolve(name + ".yaml");
        try {
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port: " + e.getMessage(), e);
        }
    }

    String primaryEndpoint() {
        return primaryHost + ":" + primaryPorts.client();
    }

    String backupEndpoint() {
        return backupHost + ":" + backupPorts.client();
    }

    NodeProcess primary() {
        return primary;
    }

    NodeProcess backup() {
        return backup;
    }

    /** Waits until the primary's replication to the backup is {@code streaming}. */
    void awaitLinkUp(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = "unknown";
        while (System.nanoTime() < deadline) {
            if (!primary.isAlive() || !backup.isAlive() || (wanProcess != null && !wanProcess.isAlive())) break;
            try {
                JsonNode status = get(primaryHost, primaryPorts.admin(), "/status");
                state = status.path("replication").path("state").asText();
                if (state.equals("streaming")) return;
            } catch (UncheckedIOException e) {
                state = e.getMessage();
            }
            // polling the admin port is the only way to learn the link state from outside
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException("the primary's link to the backup is not up after " + timeout.toSeconds()
                + " s (state: " + state + "); " + primary.log() + " ends with:\n" + primary.tail(10) + "\n"
                + backup.log() + " ends with:\n" + backup.tail(10)
                + (wanProcess == null ? "" : "\n" + wanProcess.log() + " ends with:\n" + wanProcess.tail(10)));
    }

    /** The disaster: kills the primary or cuts the link (with {@code --netns}: the veth goes down). */
    void disaster(Disaster d) {
        switch (d) {
            case KILL_PRIMARY -> primary.kill();
            case CUT_LINK -> {
                if (net != null) net.cut();
                else link.cut();
            }
        }
    }

    /** {@code POST /promote?lost=true} on the backup: it becomes the primary, unfinished keys lost. */
    JsonNode promote() {
        return post(backupHost, backupPorts.admin(), "/promote?lost=true");
    }

    private JsonNode get(String host, int port, String path) {
        return send(HttpRequest.newBuilder(uri(host, port, path)).GET());
    }

    private JsonNode post(String host, int port, String path) {
        return send(HttpRequest.newBuilder(uri(host, port, path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static URI uri(String host, int port, String path) {
        return URI.create("http://" + host + ":" + port + path);
    }

    private JsonNode send(HttpRequest.Builder request) {
        HttpRequest r = request.timeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        r.method() + " " + r.uri() + " answered " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(r.method() + " " + r.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + r.method() + " " + r.uri(), e);
        }
    }

    /** Kills both nodes and the WAN emulator; the network namespaces are their owner's to remove. */
    @Override
    public void close() {
        primary.kill();
        if (wanProcess != null) wanProcess.kill();
        backup.kill();
        if (link != null) link.close();
    }
}
