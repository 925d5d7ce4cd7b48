package dev.kvs.replication;

import dev.kvs.replication.wire.Frame.StoreRefusal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Values a backup's store refused (it was full, the value too large, or the store failing), as a
 * primary heard of them or as the backup counted them; for {@code /status}, {@code INFO replication}
 * and metrics.
 *
 * @param reason why the last one was refused: {@code store full}, {@code value too large} or {@code
 *     store error} ({@link StoreRefusal#label()}); empty if none was
 * @param detail the backup store's message for the last one, e.g. {@code store full: 200 entries
 *     (maxEntries 200)}; empty if none was
 * @param byReason values refused so far, by reason, every reason listed (0 if none)
 */
public record ValueRefusals(String reason, String detail, Map<String, Long> byReason) {
    public ValueRefusals {
        if (reason == null) throw new IllegalArgumentException("reason == null (use \"\")");
        if (detail == null) throw new IllegalArgumentException("detail == null (use \"\")");
        byReason = Collections.unmodifiableMap(new LinkedHashMap<>(byReason));
    }

    /** None refused. */
    public static ValueRefusals none() {
        Map<String, Long> zero = new LinkedHashMap<>();
        for (StoreRefusal r : StoreRefusal.values()) zero.put(r.label(), 0L);
        return new ValueRefusals("", "", zero);
    }

    /** Values refused so far, whatever the reason. */
    public long total() {
        long n = 0;
        for (long v : byReason.values()) n += v;
        return n;
    }
}
