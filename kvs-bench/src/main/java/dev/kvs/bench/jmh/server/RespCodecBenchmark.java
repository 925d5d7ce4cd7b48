package dev.kvs.bench.jmh.server;

import dev.kvs.server.internal.resp.RespCodecs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
 * The client port's RESP codec, through its Netty handlers: decoding a {@code SET key value} request that
 * arrived in one read (a direct buffer, as the socket's), and encoding the reply of a GET of the value.
 * Average time per command.
 *
 * <p>The fork's heap is fixed and pre-touched: every decode allocates its value's array, and on a virtual
 * machine whose pages cost about 10 µs at their first touch, a heap still being touched for the first time
 * made a 100 kB decode take 14 to 430 µs (BENCHMARKS.md, "Fifth run").
 */
@State(Scope.Thread)
@Fork(
        value = 1,
        jvmArgs = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RespCodecBenchmark {
    @Param({"100", "102400", "1048576"})
    public int valueBytes;

    private EmbeddedChannel decoder;
    private EmbeddedChannel encoder;
    private ByteBuf request;
    private byte[] value;

    @Setup(Level.Trial)
    public void setUp() {
        value = new byte[valueBytes];
        new Random(1).nextBytes(value);
        byte[] head = ("*3\r\n$3\r\nSET\r\n$16\r\nbench-key-000001\r\n$" + valueBytes + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        request = ByteBufAllocator.DEFAULT.directBuffer(head.length + valueBytes + 2);
        request.writeBytes(head).writeBytes(value).writeByte('\r').writeByte('\n');
        decoder = RespCodecs.decoder();
        encoder = RespCodecs.encoder();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        request.release();
        decoder.finishAndReleaseAll();
        encoder.finishAndReleaseAll();
    }

    @Benchmark
    public Object decodeSet() {
        decoder.writeInbound(request.retainedDuplicate());
        return decoder.readInbound();
    }

    @Benchmark
    public int encodeGetReply() {
        encoder.writeOutbound(RespCodecs.bulkReply(value));
        int bytes = 0;
        for (Object o; (o = encoder.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            bytes += b.readableBytes();
            b.release();
        }
        return bytes;
    }
}
