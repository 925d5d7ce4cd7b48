package dev.kvs.bench.latency;

import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.server.cli.KvsVersionProvider;
import dev.kvs.wan.WanLink;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kvs bench abuse}: issue 12's resource attacks against a real node, its heap sampled. See
 * {@link Abuse} and {@link AbuseReport#verdict}.
 */
@Command(
        name = "abuse",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Bad clients against a real node: its heap must stay bounded and real clients must get in.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup and dc-main as separate JVMs (-Xmx --node-heap, requirepass set to a random"
                    + " password, authTimeoutSeconds --auth-timeout-seconds, maxClients default) on loopback,"
                    + " joined by a WAN link emulator in this process, then attacks dc-main three times, dc-backup's replication port once and dc-main's admin port once:",
            "1. --connections unauthenticated connections each send *2\\r\\n$67108864\\r\\n (a 64 MiB bulk"
                    + " header) and nothing more, held for the auth timeout + 1 s;",
            "2. --idle-sockets silent unauthenticated sockets are opened, then a client sends AUTH and PING;"
                    + " the sockets are held until the node closed them all, at most the auth timeout + 2 s;",
            "3. with the replication link cut, one authenticated client sends a SET (which waits for its key"
                    + " ack) and --gets GETs of a --value-size value, reads no reply, and is held --hold-seconds.",
            "4. --repl-squatters idle or slow connections (from --repl-sources loopback addresses) are held on"
                    + " dc-backup's replication port, reopened every 10 s, beside a stranger reconnecting"
                    + " --repl-churn-per-second times a second, while the link is cut --repl-drops times; PASS needs"
                    + " streaming again within 3 s of each heal and at most 3 WARN lines a second.",
            "5. --admin-posts unauthenticated POST /promote requests with a --admin-body-size body, then"
                    + " --admin-half-open connections sending half a request head, on the admin port (admin.token"
                    + " set): its direct memory (/metrics) is sampled, a RESP client PINGs, a new value is written"
                    + " during each phase and read from the backup.",
            "During each, dc-main's used heap (GET /status) is sampled every --sample-millis; before and after"
                    + " each, jcmd PID GC.run forces a GC first. Connections the node closed are counted.",
            "",
            "4. (first, on a pair of nodes of their own, authTimeoutSeconds 0, maxClientMemory at its default)"
                    + " --memory-clients unauthenticated clients each send 10 bulk strings of 16 KiB, Redis's pre-auth"
                    + " caps, the last one byte short, while an authenticated client sends PING and SET every 2 ms;"
                    + " needs ulimit -n above twice that.",
            "PASS when the bulk headers grow the heap (peak - before) by < 50 MB, the output-buffer attack's"
                    + " heap peak is < 100 MB, and the authenticated client gets PONG within the auth timeout"
                    + " (issue 12's bounds); with --memory-clients the client-memory figure stays within"
                    + " maxClientMemory, every probe is answered and its PING p99 is under 50 ms; the replication"
                    + " squatters' bounds above; and the admin attack grows direct memory by <= 64 MiB, logs no"
                    + " OutOfMemoryError, PING p99 <= 50 ms and both values reach the backup (issue 32's)."
        },
        optionListHeading = "%nOptions:%n")
public final class AbuseCommand implements Callable<Integer> {
    @Option(
            names = "--connections",
            paramLabel = "N",
            description = "Unauthenticated connections sending a 64 MiB bulk header (default: ${DEFAULT-VALUE})")
    private int connections = 110;

    @Option(
            names = "--idle-sockets",
            paramLabel = "N",
            description = "Silent unauthenticated sockets (default: ${DEFAULT-VALUE})")
    private int idleSockets = 2000;

    @Option(
            names = "--memory-clients",
            paramLabel = "N",
            description = "Unauthenticated clients at Redis's pre-auth caps against maxClientMemory, on a pair of"
                    + " nodes of their own; 0: skip (default: ${DEFAULT-VALUE})")
    private int memoryClients = 9_800;

    @Option(
            names = "--gets",
            paramLabel = "N",
            description = "GETs the output-buffer client sends without reading (default: ${DEFAULT-VALUE})")
    private int gets = 1000;

    @Option(
            names = "--value-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Bytes of the value those GETs read (default: 1MiB)")
    private long valueSize = 1 << 20;

    @Option(
            names = "--hold-seconds",
            paramLabel = "S",
            description = "How long the output-buffer client is held without reading (default: ${DEFAULT-VALUE})")
    private double holdSeconds = 5;

    @Option(
            names = "--auth-timeout-seconds",
            paramLabel = "S",
            description = "The node's authTimeoutSeconds (default: ${DEFAULT-VALUE})")
    private int authTimeoutSeconds = 2;

    @Option(
            names = "--sample-millis",
            paramLabel = "MS",
            description = "Time between two samples of the node's heap (default: ${DEFAULT-VALUE})")
    private long sampleMillis = 100;

    @Option(
            names = "--node-heap",
            paramLabel = "SIZE",
            description = "The nodes' -Xmx: large enough that a leak shows (default: ${DEFAULT-VALUE})")
    private String nodeHeap = "2g";

    @Option(
            names = "--admin-posts",
            paramLabel = "N",
            description = "Unauthenticated POST /promote requests with a body on the admin port (issue 32: 2200;"
                    + " default: ${DEFAULT-VALUE})")
    private int adminPosts = 200;

    @Option(
            names = "--admin-body-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Body of each of those POSTs (default: 1MiB)")
    private long adminBodySize = 1 << 20;

    @Option(
            names = "--admin-half-open",
            paramLabel = "N",
            description = "Admin connections sending half a request head, then nothing (issue 32: 20000; needs"
                    + " ulimit -n above the open ones; default: ${DEFAULT-VALUE})")
    private int adminHalfOpen = 2000;

    @Mixin
    private RunOptions run;

    @Mixin
    private ReplicationSquatters.Options squatters = new ReplicationSquatters.Options();

    @Override
    public Integer call() throws InterruptedException {
        return run.run(this::benchmark);
    }

    /** The benchmark the options describe, checked. */
    Abuse benchmark() {
        return new Abuse(
                settings(),
                squatters.settings(),
                adminSettings(),
                new LinkSettings(Duration.ofMillis(1), 1_000_000_000, 4 << 20, WanLink.Queueing.FIFO));
    }

    /** The admin port attack's settings, checked: the half-open connections are held 6 s, past the head timeout. */
    AdminAbuse.Settings adminSettings() {
        if (adminPosts < 1 || adminPosts > 100_000) {
            throw new IllegalArgumentException("--admin-posts is not in 1..100000: " + adminPosts);
        }
        if (adminBodySize < 1 || adminBodySize > BenchOptions.MAX_VALUE_SIZE) {
            throw new IllegalArgumentException("--admin-body-size is not in 1B..64MiB: " + adminBodySize);
        }
        if (adminHalfOpen < 1 || adminHalfOpen > 100_000) {
            throw new IllegalArgumentException("--admin-half-open is not in 1..100000: " + adminHalfOpen);
        }
        return new AdminAbuse.Settings(adminPosts, (int) adminBodySize, adminHalfOpen, 6000);
    }

    /** The settings, checked. */
    AbuseReport.Settings settings() {
        if (connections < 1 || connections > 10_000) {
            throw new IllegalArgumentException("--connections is not in 1..10000: " + connections);
        }
        if (idleSockets < 1 || idleSockets > 9_000) {
            throw new IllegalArgumentException("--idle-sockets is not in 1..9000: " + idleSockets);
        }
        if (memoryClients < 0 || memoryClients > 10_000) {
            throw new IllegalArgumentException("--memory-clients is not in 0..10000: " + memoryClients);
        }
        if (gets < 1 || gets > 100_000) throw new IllegalArgumentException("--gets is not in 1..100000: " + gets);
        if (valueSize < 1 || valueSize > BenchOptions.MAX_VALUE_SIZE) {
            throw new IllegalArgumentException("--value-size is not in 1B..64MiB: " + valueSize);
        }
        if (!(holdSeconds >= 0.5 && holdSeconds <= 50)) {
            throw new IllegalArgumentException("--hold-seconds is not in 0.5..50: " + holdSeconds);
        }
        if (authTimeoutSeconds < 1 || authTimeoutSeconds > 60) {
            throw new IllegalArgumentException("--auth-timeout-seconds is not in 1..60: " + authTimeoutSeconds);
        }
        if (sampleMillis < 10 || sampleMillis > 10_000) {
            throw new IllegalArgumentException("--sample-millis is not in 10..10000: " + sampleMillis);
        }
        if (!nodeHeap.matches("\\d+[kKmMgG]?")) {
            throw new IllegalArgumentException("--node-heap is not a -Xmx size like 2g: " + nodeHeap);
        }
        return new AbuseReport.Settings(
                connections,
                gets,
                valueSize,
                idleSockets,
                holdSeconds,
                authTimeoutSeconds,
                nodeHeap,
                sampleMillis,
                run.flowControl(),
                memoryClients);
    }
}
