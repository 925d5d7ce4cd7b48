package dev.kvs.bench.jmh.server;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A node's whole request path without the sockets: a read of {@value #PIPELINE} pipelined commands, as
 * {@code redis-benchmark -P 16} sends them, decoded, run against the store and answered, on one thread
 * through the handlers a client connection has ({@link KvsNode#embeddedConnection}). Average time per
 * command. What {@code redis-benchmark} measures on top of this is the kernel's (system time, equal for
 * kvs and Redis at these sizes) and the machine's: two cores shared with the load generator, whose speed
 * swings by a quarter for seconds at a time (BENCHMARKS.md, session 30). This one thread's time per
 * command is the user time issue 36 is about, measured to a few percent.
 *
 * <ul>
 *   <li>{@code set-hot}: {@code SET} of one key, 1 KiB values (redis-benchmark without {@code -r});
 *   <li>{@code set}: {@code SET} of 100,000 keys, 1 KiB values;
 *   <li>{@code get}: {@code GET} of those keys;
 *   <li>{@code spop-empty}: {@code SPOP} of a set that holds nothing (most of redis-benchmark's SPOPs);
 *   <li>{@code hset-unchanged}: {@code HSET} of fields that hold the value already, 1 KiB values (most of
 *       redis-benchmark's HSETs).
 * </ul>
 */
@State(Scope.Thread)
@Fork(
        value = 1,
        jvmArgs = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RequestPathBenchmark {
    /** Commands per read. */
    static final int PIPELINE = 16;

    /** Keys (and hash fields) the random workloads draw from, as redis-benchmark's {@code -r 100000}. */
    static final int KEYS = 100_000;

    /** Reads prepared, used in turn: enough that a read's keys are not the cache's last ones. */
    private static final int READS = 4096;

    @Param({"set-hot", "set", "get", "spop-empty", "hset-unchanged"})
    public String workload;

    private KvsNode node;
    private EmbeddedChannel connection;
    private ByteBuf[] reads;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        node = KvsNode.start(NodeConfig.builder()
                .name("jmh-request-path")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(4 * KEYS)
                        .maxBytes(1L << 30)
                        .build())
                .build());
        connection = node.embeddedConnection();
        Random random = new Random(36);
        byte[] value = new byte[1024];
        Arrays.fill(value, (byte) 'x');
        reads = new ByteBuf[READS];
        for (int r = 0; r < READS; r++) {
            ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(PIPELINE * 1100);
            for (int c = 0; c < PIPELINE; c++) command(b, workload, random.nextInt(KEYS), value);
            reads[r] = b;
        }
        // the keys and fields the reads find (GET, HSET's unchanged fields), unmeasured
        String fill = workload.equals("get") ? "set" : workload.equals("hset-unchanged") ? workload : null;
        if (fill != null) {
            for (int k = 0; k < KEYS; k += PIPELINE) {
                ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(PIPELINE * 1100);
                for (int c = 0; c < PIPELINE; c++) command(b, fill, k + c, value);
                run(b);
            }
        }
    }

    /** Appends {@code workload}'s command for key (or field) number {@code n}. */
    private static void command(ByteBuf b, String workload, int n, byte[] value) {
        String key = String.format("key:%012d", n);
        switch (workload) {
            case "set-hot" -> resp(b, bytes("SET"), bytes("key:__rand_int__"), value);
            case "set" -> resp(b, bytes("SET"), bytes(key), value);
            case "get" -> resp(b, bytes("GET"), bytes(key));
            case "spop-empty" -> resp(b, bytes("SPOP"), bytes("myset"));
            case "hset-unchanged" -> resp(b, bytes("HSET"), bytes("myhash"), bytes("element:" + n), value);
            default -> throw new IllegalArgumentException("unknown workload " + workload);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void resp(ByteBuf b, byte[]... args) {
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(a).writeByte('\r').writeByte('\n');
        }
    }

    /** Delivers {@code read} as one read of the connection and drops the replies; returns their bytes. */
    private int run(ByteBuf read) {
        connection.writeInbound(read);
        int bytes = 0;
        for (Object o; (o = connection.readOutbound()) != null; ) {
            if (o instanceof ByteBuf reply) bytes += reply.readableBytes();
            ReferenceCountUtil.release(o);
        }
        if (bytes == 0) throw new IllegalStateException(workload + ": no reply");
        return bytes;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        connection.finishAndReleaseAll();
        for (ByteBuf b : reads) b.release();
        node.close();
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public int pipelinedRead() {
        ByteBuf read = reads[next];
        next = (next + 1) % READS;
        // the buffer itself, as a socket's read buffer reaches the decoder (a duplicate would make every
        // byte the decoder reads go through one more layer); it is read whole, so the decoder lets it go
        return run(read.readerIndex(0).retain());
    }
}
