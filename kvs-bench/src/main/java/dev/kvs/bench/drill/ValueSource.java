package dev.kvs.bench.drill;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Deterministic values: the value of a (key, attempt) is always the same bytes, so a reader can tell
 * it from any other. It starts with {@code key#attempt|} and continues with bytes of a fixed
 * pseudo-random pool from an offset derived from both; copying from the pool keeps generation at
 * memory speed, which matters when a 2-core machine must write 1 MiB values at full speed.
 * Thread-safe.
 */
public final class ValueSource {
    private static final int POOL_BYTES = (1 << 20) + 4099;
    private static final byte[] POOL = pool();

    private ValueSource() {}

    /** The value of attempt {@code attempt} of {@code key}, {@code size} bytes long. */
    public static byte[] value(String key, int attempt, int size) {
        if (size < 0) throw new IllegalArgumentException("size < 0: " + size);
        byte[] v = new byte[size];
        byte[] stamp = (key + "#" + attempt + "|").getBytes(StandardCharsets.UTF_8);
        int n = Math.min(stamp.length, size);
        System.arraycopy(stamp, 0, v, 0, n);
        long h = key.hashCode() * 0x9E3779B97F4A7C15L + attempt;
        int from = (int) Math.floorMod(h ^ (h >>> 29), (long) POOL_BYTES);
        for (int at = n; at < size; ) {
            int len = Math.min(size - at, POOL_BYTES - from);
            System.arraycopy(POOL, from, v, at, len);
            at += len;
            from = 0;
        }
        return v;
    }

    private static byte[] pool() {
        byte[] p = new byte[POOL_BYTES];
        SplittableRandom r = new SplittableRandom(0x6B7673L);
        for (int i = 0; i < p.length; i++) p[i] = (byte) r.nextInt(256);
        return p;
    }
}
