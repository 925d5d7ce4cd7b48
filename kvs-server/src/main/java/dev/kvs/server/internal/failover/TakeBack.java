package dev.kvs.server.internal.failover;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import dev.kvs.replication.Handback;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.WantedValue;
import dev.kvs.server.internal.role.LostKeys;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.role.RoleMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The new primary's side of a handback (failback): what it offers a deposed primary that dials in, the
 * values of its fenced (unfinished or lost) keys, and it takes a value back only if it matches a fenced
 * key exactly (TxId, length, checksum). Once the deposed node is done, it starts replicating to it as
 * its backup. Takes values under the failover's lock, which {@link Failover#declareLost} and {@link
 * Failover#resolve} hold while they change the same queue and manifest.
 */
final class TakeBack implements Handback {
    private static final Logger log = LoggerFactory.getLogger(TakeBack.class);

    private final Object lock;
    private final KvStore store;
    private final ReadGate gate;
    private final RoleMachine roles;
    private final Supplier<TxId> keysUpTo;

    /**
     * @param lock the failover's lock
     * @param keysUpTo the TxId up to which the last promotion had received every key packet
     */
    TakeBack(Object lock, KvStore store, ReadGate gate, RoleMachine roles, Supplier<TxId> keysUpTo) {
        this.lock = lock;
        this.store = store;
        this.gate = gate;
        this.roles = roles;
        this.keysUpTo = keysUpTo;
    }

    @Override
    public TxId keysUpTo() {
        return keysUpTo.get();
    }

    @Override
    public List<WantedValue> wanted() {
        List<WantedValue> wanted = new ArrayList<>();
        UnfinishedKeys queue = gate.unfinished();
        if (queue != null) {
            for (UnfinishedKeys.Pending p : queue.snapshot()) {
                UnfinishedKeys.Pending newest = queue.newest(p.key());
                if (newest == null || !newest.txId().equals(p.txId())) continue;
                wanted.add(new WantedValue(p.txId(), p.key(), p.valueLength(), p.checksum()));
            }
        }
        for (LostKeys.Entry e : gate.lost().snapshot()) {
            wanted.add(new WantedValue(e.txId(), e.key(), e.valueLength(), e.checksum()));
        }
        return wanted;
    }

    @Override
    public boolean accept(byte[] key, TxId txId, boolean delete, int checksum, byte[] value, long expireAtMillis) {
        synchronized (lock) {
            UnfinishedKeys queue = gate.unfinished();
            UnfinishedKeys.Pending p = queue == null ? null : queue.newest(key);
            LostKeys.Entry lost = gate.lost().get(key);
            boolean matches = p != null
                    ? p.txId().equals(txId) && p.valueLength() == value.length && p.checksum() == checksum
                    : lost != null
                            && lost.txId().equals(txId)
                            && lost.valueLength() == value.length
                            && lost.checksum() == checksum;
            if (!matches) return false;
            // a primary needs no tombstone: no older value of the key can reach it any more
            Write write = delete ? Write.remove() : Write.put(StoredValue.complete(txId, value, expireAtMillis));
            store.update(key, h -> h == null || h.txId().isBefore(txId) ? write : Write.keep());
            if (p != null) queue.resolve(key, txId);
            else gate.lost().remove(key);
            return true;
        }
    }

    @Override
    public boolean acceptStructure(
            byte[] key, TxId txId, ValueType type, int checksum, byte[] image, long expireAtMillis) {
        synchronized (lock) {
            UnfinishedKeys queue = gate.unfinished();
            UnfinishedKeys.Pending p = queue == null ? null : queue.newest(key);
            LostKeys.Entry lost = gate.lost().get(key);
            // a structure's fenced entry has no length or checksum: its TxId names the write
            boolean matches = p != null
                    ? p.txId().equals(txId) && p.valueLength() == 0
                    : lost != null && lost.txId().equals(txId) && lost.valueLength() == 0;
            if (!matches) return false;
            RecordHeader header = RecordHeader.structure(RecordState.COMPLETE, txId, type, expireAtMillis);
            try {
                store.putImage(key, image, h -> h == null || h.txId().isBefore(txId) ? header : null);
            } catch (IllegalArgumentException e) {
                return false; // not a structure's image: the key stays fenced
            }
            if (p != null) queue.resolve(key, txId);
            else gate.lost().remove(key);
            return true;
        }
    }

    @Override
    public void finished(String from, int offered, int accepted) {
        log.warn(
                "failback from {}: {} values offered, {} accepted; {} keys still lost, {} unfinished",
                from,
                offered,
                accepted,
                gate.lost().size(),
                gate.unfinished() == null ? 0 : gate.unfinished().size());
        Thread t = new Thread(roles::attachBackup, "kvs-attach-backup");
        t.setDaemon(true);
        t.start();
    }
}
