package dev.kvs.bench.jmh;

import dev.kvs.bench.resp.RespConnection;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * End to end, in one JVM: a backup node, a FIFO {@link WanLink} (5 ms one way, 1000 Mbit/s) in front of
 * its replication port and a primary replicating through it, as two datacenters; one client writes one
 * value at a time over plain RESP on loopback ({@link RespConnection}: no pooling, no retries).
 *
 * <ul>
 *   <li>{@link #timeToConsistencyProtection}: {@code SET} until its reply, in the connection's mode
 *       ({@code KVS.MODE}): the paper's Fig. 3(a). {@code sync} answers once the value is applied on
 *       the backup, {@code id-first} once its key packet is acknowledged, {@code async} at once.
 *   <li>{@link #timeToValueOnBackup}: {@code SET} until the backup's store holds the value, complete, at
 *       the write's TxId: the paper's Fig. 3(b). The benchmark thread reads the backup's store in
 *       process ({@link KvsNode#store()}, the record header only): a few spins, then parks of 20 µs
 *       between reads, so the moment is seen within about 0.1 ms (Linux's timer slack). The server
 *       exposes no per-write signal for "value applied" to a client, and a poll over RESP ({@code
 *       KVS.PEEK} returns the value) would cost far more.
 * </ul>
 *
 * <p>After every invocation (outside the measured time) the benchmark waits until the value is on the
 * backup, so each write starts on an idle link with nothing queued, as in the paper: one write at a
 * time. The nodes run on the defaults a user gets (flow control on, in-memory Chronicle store), and
 * both write the same key, so the store does not grow. The pair is set up once per trial (a trial is
 * one mode and one value size).
 *
 * <p>Before JMH's own warm-up, the set-up warms the JIT with a burst of writes of the trial's mode and
 * size ({@link #warmUpJit}): one write at a time through a 10 ms round trip is about 80 writes a
 * second, so JMH's warm-up alone left the request path interpreted or only C1-compiled, which
 * measured about 1 ms more per write than a server that has run for a while (a running server is
 * warm; Redis has no JIT to warm). Runs short by default (1 fork, 1 x 1 s warm-up, 2 x 2 s measured):
 * about 10 to 20 s per trial with the fork and the set-up, 24 trials.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 2, time = 2)
public class ReplicationLatencyBenchmark {
    /** One-way delay of the emulated WAN. */
    public static final Duration ONE_WAY_DELAY = Duration.ofMillis(5);
    /** Its bandwidth each way. */
    static final long BITS_PER_SECOND = 1_000_000_000L;
    /** How long a write or its value may take before the benchmark fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    /**
     * {@code -Dkvs.stages=true} ({@code ./kvs bench jmh --stages}): each trial also prints when each stage of its
     * writes happened ({@link WriteStages}), over its last iteration.
     */
    static final String STAGES_PROPERTY = "kvs.stages";

    private static final boolean STAGES = Boolean.getBoolean(STAGES_PROPERTY);

    /** Where both nodes mark each write's stages: a recording with {@link #STAGES_PROPERTY}, else off. */
    private WriteStages stages = WriteStages.OFF;

    @Param({"async", "sync", "id-first"})
    public String mode;

    @Param({"100", "100000", "1048576", "10485760"})
    public int valueSize;

    /**
     * The primary's {@code replication.cutThrough}: a SET's value of 64 KiB or more leaves while it arrives.
     * {@code -p cutThrough=true,false} compares with and without in one run.
     */
    @Param({"true"})
    public boolean cutThrough;

    /**
     * The client's own link to the primary, bits per second: 0 connects it directly (loopback, which on this
     * machine uploads 1 MiB in about a millisecond); say {@code -p clientBitsPerSecond=1000000000} for a client
     * on another machine of the primary's DC, behind a FIFO link of that bandwidth and no delay, whose upload
     * then takes as long as it would there.
     */
    @Param({"0"})
    public long clientBitsPerSecond;

    /** The client's link to the primary, or null. */
    private WanLink clientLink;

    private KvsNode backup;
    private WanLink link;
    private KvsNode primary;
    private KvStore backupStore;
    private RespConnection client;
    private final byte[] key = "jmh-replication-latency".getBytes(StandardCharsets.UTF_8);
    private byte[] value;
    /** The TxId of the key's record on the backup after the last write arrived. */
    private TxId lastOnBackup = TxId.ZERO;
    /** Whether the last write's value has not been seen on the backup yet. */
    private boolean pending;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ReplicationMode m = ReplicationMode.parse(mode);
        StoreConfig store = StoreConfig.builder().maxBytes(256L << 20).build();
        if (STAGES) stages = WriteStages.recording(100_000); // restarted for each iteration
        backup = KvsNode.start(
                NodeConfig.builder()
                        .name("jmh-backup")
                        .role(Role.BACKUP)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .store(store)
                        .build(),
                stages);
        link = WanLink.builder()
                .target("127.0.0.1", backup.replPort())
                .delay(ONE_WAY_DELAY)
                .bandwidthBitsPerSecond(BITS_PER_SECOND)
                .queueing(WanLink.Queueing.FIFO)
                .build();
        primary = KvsNode.start(
                NodeConfig.builder()
                        .name("jmh-primary")
                        .role(Role.PRIMARY)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .peer("127.0.0.1:" + link.port())
                        .mode(m)
                        .replication(ReplicatorConfig.builder()
                                .cutThrough(cutThrough)
                                .build())
                        .store(store)
                        .build(),
                stages);
        backupStore = backup.store();
        clientLink = clientLink(primary.port(), clientBitsPerSecond);
        client = RespConnection.open(
                "127.0.0.1", clientLink != null ? clientLink.port() : primary.port(), Duration.ofSeconds(5), TIMEOUT);
        expect("OK", client.call("KVS.MODE", m.label()), "KVS.MODE " + m.label());
        value = new byte[valueSize];
        new Random(valueSize).nextBytes(value);
        // the first write waits for the replication links to come up; it is not measured
        set();
        awaitValueOnBackup();
        warmUpJit(m);
    }

    /**
     * A FIFO link of {@code bitsPerSecond} and no delay in front of the server on {@code port}, for the benchmark's
     * client; null if {@code bitsPerSecond} is 0 (the client connects directly).
     */
    static WanLink clientLink(int port, long bitsPerSecond) {
        if (bitsPerSecond == 0) return null;
        return WanLink.builder()
                .target("127.0.0.1", port)
                .delay(Duration.ZERO)
                .bandwidthBitsPerSecond(bitsPerSecond)
                .queueing(WanLink.Queueing.FIFO)
                .build();
    }

    /** Values written by the JIT warm-up, in all: enough for tens of thousands of small writes. */
    static final long WARM_UP_BYTES = 256L << 20;
    /**
     * The most writes the JIT warm-up makes; {@code -p warmUpWrites=0} measures a cold path (as every
     * run before the warm-up existed did).
     */
    @Param({"20000"})
    public int warmUpWrites;

    /**
     * Writes {@code min(warmUpWrites, 256 MiB / size)} values (at least 16) of the trial's size in its mode on 8
     * connections, 16 pipelined each, to keys of their own (at most 64 MiB of them, so the store does
     * not fill), then waits until the backup holds every one: the code on the path runs compiled, and
     * the link is idle again before JMH starts.
     */
    private void warmUpJit(ReplicationMode m) throws IOException {
        if (warmUpWrites <= 0) return;
        int writes = (int) Math.max(16, Math.min(warmUpWrites, WARM_UP_BYTES / valueSize));
        int keys = (int) Math.max(1, Math.min(128, (64L << 20) / valueSize));
        int connections = Math.min(8, keys);
        int depth = Math.max(1, Math.min(16, keys / connections));
        List<RespConnection> conns = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                RespConnection conn = RespConnection.open("127.0.0.1", primary.port(), Duration.ofSeconds(5), TIMEOUT);
                conns.add(conn);
                expect("OK", conn.call("KVS.MODE", m.label()), "KVS.MODE " + m.label());
            }
            int sent = 0;
            while (sent < writes) {
                for (int c = 0; c < connections; c++) {
                    for (int d = 0; d < depth; d++) conns.get(c).send("SET", warmKey(c * depth + d), value);
                }
                for (RespConnection conn : conns) {
                    for (int d = 0; d < depth; d++) expect("OK", conn.read(), "warm-up SET of " + valueSize + " bytes");
                }
                sent += connections * depth;
            }
        } finally {
            conns.forEach(RespConnection::close);
        }
        KvStore primaryStore = primary.store();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (int k = 0; k < connections * depth; k++) {
            byte[] warm = warmKey(k);
            TxId written = primaryStore.header(warm).txId();
            while (true) {
                RecordHeader h = backupStore.header(warm);
                if (h != null && h.state() == RecordState.COMPLETE && !h.txId().isBefore(written)) break;
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the JIT warm-up's values did not reach the backup in "
                            + TIMEOUT.toSeconds() + " s (" + mode + ", " + valueSize + " bytes)");
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static byte[] warmKey(int k) {
        return ("jmh-warm:" + k).getBytes(StandardCharsets.UTF_8);
    }

    /** Fig. 3(a): the SET's reply, in the connection's mode. */
    @Benchmark
    public Object timeToConsistencyProtection() throws IOException {
        return set();
    }

    /** Fig. 3(b): the SET, then until the backup holds its value. */
    @Benchmark
    public TxId timeToValueOnBackup() throws IOException {
        set();
        return awaitValueOnBackup();
    }

    /** With {@link #STAGES_PROPERTY}: each iteration records its writes' stages afresh. */
    @Setup(Level.Iteration)
    public void recordStages() {
        stages.restart();
    }

    /** Not measured: the next write starts with the link idle and the backup caught up. */
    @TearDown(Level.Invocation)
    public void drain() throws IOException {
        if (pending) awaitValueOnBackup();
        if (STAGES) awaitValueAcked();
    }

    /**
     * With {@link #STAGES_PROPERTY}, also until the primary has the value's ack ({@code kvs_value_lag_count:0}):
     * in the modes that answer before it (id-first, async), the stages after the reply are then this write's,
     * not stamped on the next one.
     */
    private void awaitValueAcked() throws IOException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            Object info = client.call("INFO", "replication");
            if (info instanceof byte[] b
                    && new String(b, StandardCharsets.UTF_8).contains("\r\nkvs_value_lag_count:0\r\n")) return;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the primary had no ack for the value of " + valueSize + " bytes in "
                        + TIMEOUT.toSeconds() + " s (" + mode + ")");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    private Object set() throws IOException {
        pending = true;
        stages.begin();
        Object reply = client.call("SET", key, value);
        stages.end();
        expect("OK", reply, "SET of " + valueSize + " bytes");
        return reply;
    }

    private TxId awaitValueOnBackup() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        int spins = 0;
        while (true) {
            RecordHeader h = backupStore.header(key);
            if (h != null && h.state() == RecordState.COMPLETE && h.txId().isAfter(lastOnBackup)) {
                lastOnBackup = h.txId();
                pending = false;
                return h.txId();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the value of " + valueSize + " bytes did not reach the backup in "
                        + TIMEOUT.toSeconds() + " s (" + mode + "); backup record: " + h);
            }
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(20_000);
            }
        }
    }

    static void expect(String expected, Object reply, String what) {
        if (!expected.equals(reply)) {
            String got = reply instanceof RespConnection.ErrorReply e ? "-" + e.message() : String.valueOf(reply);
            throw new IllegalStateException(what + " answered " + got + ", expected " + expected);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (STAGES) {
            System.out.printf(
                    "%nStages of %s SETs of %d bytes (%d writes, the trial's last iteration):%n%s%n",
                    mode, valueSize, stages.writes(), stages.table());
        }
        if (client != null) client.close();
        if (clientLink != null) clientLink.close();
        if (primary != null) primary.close();
        if (link != null) link.close();
        if (backup != null) backup.close();
    }
}
