package dev.kvs.bench.latency;

import dev.kvs.bench.drill.ValueSource;
import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Before the soak's load, fills both nodes' stores close to their {@code maxBytes} and empties them
 * again: once with values stored inline in the records, once with values of 1 MiB stored in chunks.
 * The store reserves its memory up front but touches a page only when a record first lands there,
 * and it places records low in their segment, so a store under a steady load touches more pages
 * whenever its occupancy reaches a new high: RSS creeps up for hours toward the reservation, no leak
 * but no flat line either. Filled once, every page is touched, as {@code -XX:+AlwaysPreTouch} does
 * for the heap, and RSS then grows only with what is not the store. The backup's values must land
 * before the keys are deleted (a delete that overtakes a value makes the backup skip it), so the
 * primary's backlog is drained before each delete.
 */
final class SoakPretouch {
    /** The share of {@code maxBytes} and of {@code maxEntries} each fill takes. */
    static final double FILL = 0.9;
    /** Largest value stored inline in a record: the store's {@code RecordMaps.INLINE_MAX}. */
    static final int INLINE_BYTES = 4096;
    /** The values stored in chunks. */
    static final int CHUNKED_BYTES = 1 << 20;
    /** Value bytes sent before their replies are read. */
    private static final int BATCH_BYTES = 1 << 20;

    private SoakPretouch() {}

    /** Waits until the backup has acknowledged everything the primary ordered. */
    @FunctionalInterface
    interface Drain {
        void await() throws InterruptedException;
    }

    /** How many values of {@code size} bytes one fill writes. */
    static long count(SoakReport.Settings s, int size) {
        return (long) Math.min(FILL * s.maxEntries(), FILL * s.maxBytes() / (size + 64));
    }

    /**
     * Fills and empties the store of the primary at {@code connection} twice, waiting on {@code drain}
     * before each emptying; the writes are {@code async}, so they are quick and still reach the backup.
     *
     * @throws IOException if a command fails or is refused
     */
    static void run(RespConnection connection, SoakReport.Settings s, String keyPrefix, Drain drain)
            throws IOException, InterruptedException {
        expect("KVS.MODE async", connection.call("KVS.MODE", "async"), "OK");
        for (int size : new int[] {INLINE_BYTES, CHUNKED_BYTES}) {
            List<String> keys = new ArrayList<>();
            long n = count(s, size);
            for (long i = 0; i < n; i++) keys.add(keyPrefix + size + "-" + i);
            int perBatch = Math.max(1, BATCH_BYTES / size);
            for (int from = 0; from < keys.size(); from += perBatch) {
                List<String> batch = keys.subList(from, Math.min(keys.size(), from + perBatch));
                for (String k : batch) connection.send("SET", k, ValueSource.value(k, 0, size));
                for (String k : batch) expect("SET " + k, connection.read(), "OK");
            }
            drain.await();
            for (int from = 0; from < keys.size(); from += 256) {
                List<String> batch = keys.subList(from, Math.min(keys.size(), from + 256));
                Object[] del = new Object[batch.size() + 1];
                del[0] = "DEL";
                for (int i = 0; i < batch.size(); i++) del[i + 1] = batch.get(i);
                expect("DEL", connection.call(del), (long) batch.size());
            }
            drain.await();
        }
    }

    private static void expect(String what, Object reply, Object expected) throws IOException {
        if (!expected.equals(reply)) {
            throw new IOException("filling the store before the soak: " + what + " answered " + reply
                    + (reply instanceof RespConnection.ErrorReply ? "" : ", not " + expected));
        }
    }

    /** How long one fill may take to reach the backup. */
    static Duration drainTimeout(SoakReport.Settings s) {
        double seconds = s.bandwidthMbit() > 0 ? s.maxBytes() * 8 / (s.bandwidthMbit() * 1e6) : 0;
        return Duration.ofSeconds(60 + Math.round(4 * seconds));
    }
}
