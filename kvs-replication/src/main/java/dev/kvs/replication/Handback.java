package dev.kvs.replication;

import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.util.List;

/**
 * What a promoted node offers the primary it replaced, on a handback connection (failback): the
 * fenced keys it lacks values for, and a way to take those values back.
 *
 * <p>Implementations must be thread-safe; {@link #accept} is called on a network event loop.
 */
public interface Handback {
    /**
     * The TxId up to which this node received every key packet of the deposed primary's epoch: the
     * deposed primary's writes after it were never acknowledged by this node.
     */
    TxId keysUpTo();

    /** The fenced keys (unfinished or lost), each with the TxId, length and checksum it must have. */
    List<WantedValue> wanted();

    /**
     * A value (or, with {@code delete}, a tombstone) the deposed primary holds for a wanted key, its
     * checksum already verified, with the key's expiry ({@code expireAtMillis}, epoch millis; 0 for
     * never) as that write set it.
     *
     * @return true if it matched a fenced key's TxId, length and checksum and the key is whole again
     */
    boolean accept(byte[] key, TxId txId, boolean delete, int checksum, byte[] value, long expireAtMillis);

    /**
     * A hash's or set's canonical image ({@code dev.kvs.core.MembersImage}) the deposed primary holds for
     * a wanted key, of {@code type}, its checksum already verified, with the key's expiry. A structure's
     * wanted entry has no length or checksum (0): it matches by TxId. This default takes none.
     *
     * @return true if it matched a fenced key's TxId and the key is whole again
     */
    default boolean acceptStructure(
            byte[] key, TxId txId, ValueType type, int checksum, byte[] image, long expireAtMillis) {
        return false;
    }

    /** The deposed primary {@code node} finished its handback: {@code accepted} of {@code offered} taken. */
    void finished(String node, int offered, int accepted);
}
