package dev.kvs.bench.jmh.replication;

import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
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
 * The replication frame codec: encoding and decoding a key batch of {@code packets} 32-byte-key
 * packets, through the codec's Netty handlers. Average time per frame.
 */
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameCodecBenchmark {
    @Param({"1", "64"})
    public int packets;

    private EmbeddedChannel encoder;
    private EmbeddedChannel decoder;
    private Frame.KeyBatch batch;
    private ByteBuf encoded;

    @Setup(Level.Trial)
    public void setUp() {
        List<Frame.KeyPacket> list = new ArrayList<>(packets);
        for (int i = 0; i < packets; i++) {
            list.add(new Frame.KeyPacket(TxId.of(1, i + 1), Frame.Op.PUT, new byte[32], 1024, i));
        }
        batch = new Frame.KeyBatch(list);
        encoder = new EmbeddedChannel();
        FrameCodec.install(encoder.pipeline(), 8 << 20);
        decoder = new EmbeddedChannel();
        FrameCodec.install(decoder.pipeline(), 8 << 20);
        encoder.writeOutbound(batch);
        encoded = encoder.readOutbound();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        encoded.release();
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
    }

    @Benchmark
    public int encode() {
        encoder.writeOutbound(batch);
        ByteBuf b = encoder.readOutbound();
        int n = b.readableBytes();
        b.release();
        return n;
    }

    @Benchmark
    public Object decode() {
        decoder.writeInbound(encoded.retainedDuplicate());
        return decoder.readInbound();
    }
}
