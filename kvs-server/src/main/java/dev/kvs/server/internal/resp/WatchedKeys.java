package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.TxId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys a connection {@code WATCH}es, each with what the store held for it then: {@link #touched}
 * says at {@code EXEC} whether any was written since. Every write of a key gives its record a new
 * TxId, so comparing TxIds sees any write by any client (SET, DEL, EXPIRE, HSET, RENAME, ...) without
 * the writers knowing who watches: nothing on the write path pays for WATCH, and a closed connection
 * leaves nothing behind.
 *
 * <p>As Redis 7.0: a key that existed when watched is touched if it was written, deleted, flushed, or
 * if its expiry has passed since (it expired while watched); a key that was already expired when
 * watched (stale) is touched only if it holds a live value again (its deletion, by expiry, DEL or
 * FLUSHDB, is no change); an absent key is touched if anything was written to it (a value, or a
 * delete after one: a new tombstone), not by a flush. A write that changes nothing takes no TxId and
 * touches nothing (Redis would count {@code HSET} of the value a field holds). Confined to the
 * connection's event loop.
 */
final class WatchedKeys {
    private final List<byte[]> keys = new ArrayList<>();
    /** Per key: the TxId of its record when watched (a tombstone's for an absent key), or null if none. */
    private final List<TxId> txIds = new ArrayList<>();
    /** Per key: what it held when watched. */
    private final List<Held> held = new ArrayList<>();

    private enum Held {
        LIVE,
        STALE,
        ABSENT
    }

    /** Watches {@code key}, as the store holds it at {@code nowMillis}; a key watched already is kept as it was. */
    void watch(KvStore store, byte[] key, long nowMillis) {
        for (byte[] k : keys) if (Arrays.equals(k, key)) return;
        RecordHeader h = store.header(key);
        keys.add(key);
        txIds.add(h == null ? null : h.txId());
        held.add(heldBy(h, nowMillis));
    }

    boolean isEmpty() {
        return keys.isEmpty();
    }

    /** True if any key was written since it was watched (see the class comment), judged at {@code nowMillis}. */
    boolean touched(KvStore store, long nowMillis) {
        for (int i = 0; i < keys.size(); i++) {
            RecordHeader h = store.header(keys.get(i));
            Held now = heldBy(h, nowMillis);
            boolean touched = switch (held.get(i)) {
                case LIVE -> now != Held.LIVE || !h.txId().equals(txIds.get(i));
                case STALE -> now == Held.LIVE;
                case ABSENT -> h != null && !h.txId().equals(txIds.get(i));
            };
            if (touched) return true;
        }
        return false;
    }

    private static Held heldBy(RecordHeader h, long nowMillis) {
        if (h == null || h.state() == RecordState.TOMBSTONE) return Held.ABSENT;
        return h.expiredAt(nowMillis) ? Held.STALE : Held.LIVE;
    }
}
