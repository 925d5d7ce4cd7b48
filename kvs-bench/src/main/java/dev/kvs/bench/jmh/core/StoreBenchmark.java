package dev.kvs.bench.jmh.core;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
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
 * The Chronicle Map store: one put, and one get, of a value of {@code valueBytes}, over a working set
 * of 64 keys (a put replaces a value of the same size). Average time per operation.
 *
 * <p>The fork's heap is fixed and pre-touched: every get allocates its value's array, and on a virtual
 * machine whose pages cost about 10 µs at their first touch, a heap still being touched for the first time
 * made a 100 kB get take 218 µs instead of 9 (BENCHMARKS.md, "Fifth run").
 */
@State(Scope.Thread)
@Fork(
        value = 1,
        jvmArgs = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StoreBenchmark {
    private static final int KEYS = 64;

    @Param({"100", "102400", "1048576", "10485760"})
    public int valueBytes;

    private KvStore store;
    private byte[][] keys;
    private byte[] value;
    private long seq;
    private int next;

    @Setup(Level.Trial)
    public void open() {
        store = KvStore.builder()
                .maxEntries(4 * KEYS)
                .maxBytes(4L * KEYS * (valueBytes + 64))
                .maxValueBytes(Math.max(valueBytes, 1024))
                .open();
        keys = new byte[KEYS][];
        value = new byte[valueBytes];
        new Random(1).nextBytes(value);
        for (int i = 0; i < KEYS; i++) {
            keys[i] = ("bench-key-" + i).getBytes();
            store.put(keys[i], StoredValue.complete(TxId.of(1, ++seq), value));
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        store.close();
    }

    @Benchmark
    public void put() {
        int i = next++ & (KEYS - 1);
        store.put(keys[i], StoredValue.complete(TxId.of(1, ++seq), value));
    }

    @Benchmark
    public StoredValue get() {
        return store.get(keys[next++ & (KEYS - 1)]);
    }
}
