package dev.kvs.bench.jmh.core;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
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
 * What emptying a full Chronicle Map store costs, the question behind FLUSHDB's design: {@code
 * clear()} (holds every key lock throughout: every writer would wait for all of it), {@code
 * removeBefore} (the sweep FLUSHDB runs: one key lock at a time), and {@code exclusive} + {@code
 * hideBefore} (the only part of a FLUSHDB every writer waits for). Each invocation starts from a
 * store of {@code keys} 100-byte values; single shot, milliseconds.
 */
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FlushBenchmark {
    @Param({"1000000"})
    public int keys;

    private KvStore store;
    private long seq;

    @Setup(Level.Trial)
    public void open() {
        store = KvStore.builder()
                .maxEntries(keys + 1000L)
                .maxBytes((long) keys * 256)
                .open();
    }

    @Setup(Level.Invocation)
    public void fill() {
        byte[] value = new byte[100];
        for (int i = 0; i < keys; i++) {
            store.put(("key:" + i).getBytes(), StoredValue.complete(TxId.of(1, ++seq), value));
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        store.close();
    }

    @Benchmark
    public void clear() {
        store.clear();
    }

    @Benchmark
    public long removeBefore() {
        return store.removeBefore(TxId.of(1, ++seq));
    }

    @Benchmark
    public TxId exclusiveHide() {
        TxId mark = store.exclusive(() -> TxId.of(1, ++seq));
        store.hideBefore(mark);
        return mark;
    }
}
