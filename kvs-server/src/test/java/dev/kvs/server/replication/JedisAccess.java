package dev.kvs.server.replication;

import dev.kvs.testing.cluster.TwoDc;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * Jedis connections to a {@link TwoDc}'s nodes, and the two replies the replication tests read: {@code
 * KVS.PEEK} and {@code INFO replication}. Kept out of the fixture, which other modules use without Jedis.
 */
final class JedisAccess {
    private JedisAccess() {}

    static Jedis primary(TwoDc dc) {
        return new Jedis(TwoDc.HOST, dc.primary().port(), 30_000);
    }

    static Jedis backup(TwoDc dc) {
        return new Jedis(TwoDc.HOST, dc.backup().port(), 30_000);
    }

    /** {@code KVS.PEEK key}: [state, txid, length, crc, value|nil], or null. */
    @SuppressWarnings("unchecked")
    static List<Object> peek(Jedis jedis, byte[] key) {
        return (List<Object>) jedis.sendCommand(() -> "KVS.PEEK".getBytes(), key);
    }

    static String info(Jedis jedis, String field) {
        for (String line : jedis.info("replication").split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        throw new AssertionError("no " + field + " in INFO replication");
    }
}
