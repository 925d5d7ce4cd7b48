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
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A node's whole request path without the sockets: a read of {@value #PIPELINE} pipelined commands, as
 * {@code redis-benchmark -P 16} sends them, decoded, run against the store and answered, on one thread
 * through the handlers a client connection has ({@link KvsNode#embeddedConnection}). Average time per
 * command. What {@code redis-benchmark} measures on top of this is the kernel's (system time, equal for
 * kvs and Redis at these sizes) and the machine's: two cores shared with the load generator, whose speed
 * swings by a quarter for seconds at a time (BENCHMARKS.md, session 30). This one thread's time per
 * command is the user time issue 36 is about, measured to a few percent. {@code
 * pipelinedReadTwoThreads} runs two such connections at once on two threads, as a node's two event loops
 * run, for what the loops share (a hot key's lock, memory both write): JDK 17's cache of a class's last
 * interface check, written by turns from both loops on every bulk string reply, showed there and not on
 * one thread (session 31).
 *
 * <ul>
 *   <li>{@code set-hot}: {@code SET} of one key, 1 KiB values (redis-benchmark without {@code -r});
 *   <li>{@code set}: {@code SET} of 100,000 keys, 1 KiB values;
 *   <li>{@code get}: {@code GET} of those keys;
 *   <li>{@code spop-empty}: {@code SPOP} of a set that holds nothing (most of redis-benchmark's SPOPs);
 *   <li>{@code hset-unchanged}: {@code HSET} of fields that hold the value already, 1 KiB values (most of
 *       redis-benchmark's HSETs);
 *   <li>{@code sadd-unchanged}: {@code SADD} of members the set of 100,000 holds already (most of
 *       redis-benchmark's SADDs).
 * </ul>
 */
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

    /** The node, shared by the benchmark's threads, with the keys and members its workload finds. */
    @State(Scope.Benchmark)
    public static class Node {
        @Param({"set-hot", "set", "get", "spop-empty", "hset-unchanged", "sadd-unchanged"})
        public String workload;

        KvsNode node;
        /** Connections opened so far: each seeds its own draw of keys with its number. */
        final AtomicInteger connections = new AtomicInteger();

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
            // the keys and fields the reads find (GET, HSET's unchanged fields), unmeasured
            String fill = workload.equals("get") ? "set" : workload.endsWith("-unchanged") ? workload : null;
            if (fill != null) {
                EmbeddedChannel connection = node.embeddedConnection();
                for (int k = 0; k < KEYS; k += PIPELINE) {
                    ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(PIPELINE * 1100);
                    for (int c = 0; c < PIPELINE; c++) command(b, fill, k + c, VALUE);
                    run(connection, b, fill);
                }
                connection.finishAndReleaseAll();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            node.close();
        }
    }

    /** A client connection of one benchmark thread, and the reads it sends in turn. */
    @State(Scope.Thread)
    public static class Connection {
        EmbeddedChannel channel;
        ByteBuf[] reads;
        int next;
        String workload;

        @Setup(Level.Trial)
        public void setUp(Node node) {
            workload = node.workload;
            channel = node.node.embeddedConnection();
            // each thread its own draw of keys, as two clients' would be, the same in every run
            Random random = new Random(36 + node.connections.getAndIncrement());
            reads = new ByteBuf[READS];
            for (int r = 0; r < READS; r++) {
                ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(PIPELINE * 1100);
                for (int c = 0; c < PIPELINE; c++) command(b, workload, random.nextInt(KEYS), VALUE);
                reads[r] = b;
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            channel.finishAndReleaseAll();
            for (ByteBuf b : reads) b.release();
        }
    }

    private static final byte[] VALUE = value();

    private static byte[] value() {
        byte[] value = new byte[1024];
        Arrays.fill(value, (byte) 'x');
        return value;
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
            case "sadd-unchanged" -> resp(b, bytes("SADD"), bytes("myset"), bytes("element:" + n));
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

    /** Delivers {@code read} as one read of {@code connection} and drops the replies; returns their bytes. */
    private static int run(EmbeddedChannel connection, ByteBuf read, String workload) {
        connection.writeInbound(read);
        int bytes = 0;
        for (Object o; (o = connection.readOutbound()) != null; ) {
            if (o instanceof ByteBuf reply) bytes += reply.readableBytes();
            ReferenceCountUtil.release(o);
        }
        if (bytes == 0) throw new IllegalStateException(workload + ": no reply");
        return bytes;
    }

    private static int nextRead(Connection c) {
        ByteBuf read = c.reads[c.next];
        c.next = (c.next + 1) % READS;
        // the buffer itself, as a socket's read buffer reaches the decoder (a duplicate would make every
        // byte the decoder reads go through one more layer); it is read whole, so the decoder lets it go
        return run(c.channel, read.readerIndex(0).retain(), c.workload);
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public int pipelinedRead(Node node, Connection connection) {
        return nextRead(connection);
    }

    /**
     * The same on two threads at once, each with its own connection to the one node, as two event loops
     * serve a node's clients: what they share shows here (a hot key's lock, the lines both write).
     */
    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(PIPELINE)
    public int pipelinedReadTwoThreads(Node node, Connection connection) {
        return nextRead(connection);
    }
}
