package dev.kvs.cluster;

/**
 * The hash slot of a key, as Redis Cluster computes it: {@code CRC16(key) mod 16384}, where CRC16 is
 * the XMODEM variant (polynomial 0x1021, initial value 0), and only the part between the first
 * {@code '{'} and the first {@code '}'} after it is hashed when that part is not empty (a hash tag,
 * which puts related keys in one slot). Cluster-aware clients (redis-cli -c, JedisCluster, Lettuce)
 * compute the same function, which is what lets them route to kvs unchanged.
 *
 * <p>Thread-safe, allocation-free.
 */
public final class HashSlots {
    /** The number of slots; a slot is {@code 0..SLOTS-1}. */
    public static final int SLOTS = 16_384;

    private static final char[] TABLE = table();

    private HashSlots() {}

    /** The slot of {@code key}. */
    public static int slot(byte[] key) {
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) return crc16(key, open + 1, close) & (SLOTS - 1);
        }
        return crc16(key, 0, key.length) & (SLOTS - 1);
    }

    /** CRC16/XMODEM of {@code bytes[from..to)}. */
    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xff]) & 0xffff;
        }
        return crc;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) return i;
        }
        return -1;
    }

    private static char[] table() {
        char[] t = new char[256];
        for (int n = 0; n < 256; n++) {
            int c = n << 8;
            for (int bit = 0; bit < 8; bit++) {
                c = (c & 0x8000) != 0 ? (c << 1) ^ 0x1021 : c << 1;
            }
            t[n] = (char) (c & 0xffff);
        }
        return t;
    }
}
