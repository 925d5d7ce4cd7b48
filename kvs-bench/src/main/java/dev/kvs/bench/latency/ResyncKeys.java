package dev.kvs.bench.latency;

import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntPredicate;

/**
 * The resync benchmark's keys and what each holds: key {@code i} holds version 0 of its value, or
 * version 1 once it is one of the changed keys (spread evenly over the key space). Every value is
 * unique to its key and version (both written into its first bytes), so a stale value, or one under
 * the wrong key, never passes for the right one. Writes and reads go pipelined, {@value #WINDOW}
 * commands at a time per connection.
 */
final class ResyncKeys {
    /** Commands sent before their replies are read. */
    static final int WINDOW = 512;
    /** The fewest bytes a value may have: room for its key's index and its version. */
    static final int MIN_VALUE_SIZE = 16;
    /** Connections loading the keys at once. */
    static final int LOADERS = 2;

    /**
     * Every key read back from a node.
     *
     * @param keys keys read
     * @param missing keys the node does not hold
     * @param unfinished keys whose value has not arrived
     * @param different keys holding another value than the last written
     */
    record Check(long keys, long missing, long unfinished, long different) {}

    /** Opens a connection to the node under test. */
    interface Connector {
        RespConnection open() throws IOException;
    }

    private final int keys;
    private final int valueSize;
    private final BitSet changed = new BitSet();
    private final byte[][] versions = new byte[2][];

    /**
     * @throws IllegalArgumentException quoting the value if {@code keys < 1}, {@code valueSize <
     *     16} or {@code changedKeys} is not in {@code 0..keys}
     */
    ResyncKeys(int keys, int valueSize, int changedKeys) {
        if (keys < 1) throw new IllegalArgumentException("keys < 1: " + keys);
        if (valueSize < MIN_VALUE_SIZE) throw new IllegalArgumentException("valueSize < 16: " + valueSize);
        if (changedKeys < 0 || changedKeys > keys) {
            throw new IllegalArgumentException("changedKeys not in 0..keys: " + changedKeys);
        }
        this.keys = keys;
        this.valueSize = valueSize;
        for (int j = 0; j < changedKeys; j++) changed.set((int) ((long) j * keys / changedKeys));
        Random random = new Random(31);
        for (int v = 0; v < versions.length; v++) {
            versions[v] = new byte[valueSize];
            random.nextBytes(versions[v]);
        }
    }

    /** Keys changed while the backup is away. */
    int changedKeys() {
        return changed.cardinality();
    }

    static String key(int i) {
        return "resync:" + i;
    }

    /** Version {@code version} of key {@code i}'s value. */
    byte[] value(int i, int version) {
        byte[] v = versions[version].clone();
        ByteBuffer.wrap(v).putInt(i).putInt(version);
        return v;
    }

    /** The value key {@code i} holds once the changes are written. */
    byte[] last(int i) {
        return value(i, changed.get(i) ? 1 : 0);
    }

    /**
     * Writes version 0 of every key on {@value #LOADERS} connections at once.
     *
     * @throws IllegalStateException quoting the reply if a SET is not answered {@code +OK}
     */
    void load(Connector node) throws IOException, InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(LOADERS);
        try {
            List<Future<Void>> slices = new ArrayList<>();
            for (int s = 0; s < LOADERS; s++) {
                int from = (int) ((long) s * keys / LOADERS);
                int to = (int) ((long) (s + 1) * keys / LOADERS);
                slices.add(pool.submit(() -> {
                    try (RespConnection c = node.open()) {
                        setAll(c, from, to, i -> true, 0);
                    }
                    return null;
                }));
            }
            for (Future<Void> f : slices) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) throw io;
                    if (e.getCause() instanceof RuntimeException r) throw r;
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Writes version 1 of every changed key. */
    void change(Connector node) throws IOException {
        try (RespConnection c = node.open()) {
            setAll(c, 0, keys, changed::get, 1);
        }
    }

    private void setAll(RespConnection c, int from, int to, IntPredicate which, int version) throws IOException {
        int[] sent = new int[WINDOW];
        int n = 0;
        for (int i = from; i < to; i++) {
            if (!which.test(i)) continue;
            c.send("SET", key(i), value(i, version));
            sent[n++] = i;
            if (n == WINDOW) {
                expectOk(c, sent, n);
                n = 0;
            }
        }
        expectOk(c, sent, n);
    }

    private static void expectOk(RespConnection c, int[] sent, int n) throws IOException {
        for (int k = 0; k < n; k++) {
            Object reply = c.read();
            if (!"OK".equals(reply)) {
                throw new IllegalStateException("SET " + key(sent[k]) + " answered " + RespConnection.describe(reply));
            }
        }
    }

    /** Reads every key back ({@code KVS.PEEK}) and compares it with the last value written. */
    Check check(Connector node) throws IOException {
        long missing = 0;
        long unfinished = 0;
        long different = 0;
        try (RespConnection c = node.open()) {
            for (int from = 0; from < keys; from += WINDOW) {
                int to = Math.min(keys, from + WINDOW);
                for (int i = from; i < to; i++) c.send("KVS.PEEK", key(i));
                for (int i = from; i < to; i++) {
                    Object reply = c.read();
                    if (reply == null) {
                        missing++;
                    } else if (!(reply instanceof List<?> l) || l.size() < 5) {
                        throw new IOException("KVS.PEEK " + key(i) + " answered " + RespConnection.describe(reply));
                    } else if (!(l.get(4) instanceof byte[] value)) {
                        unfinished++;
                    } else if (!Arrays.equals(value, last(i))) {
                        different++;
                    }
                }
            }
        }
        return new Check(keys, missing, unfinished, different);
    }

    int keys() {
        return keys;
    }

    long valueBytes() {
        return (long) keys * valueSize;
    }
}
