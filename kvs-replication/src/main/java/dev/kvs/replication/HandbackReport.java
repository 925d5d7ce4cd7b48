package dev.kvs.replication;

import dev.kvs.core.TxId;
import java.util.List;

/**
 * What a deposed primary's handback (failback) did.
 *
 * @param newPrimary the address of the node it handed back to
 * @param keysUpTo the TxId up to which the new primary had received every key packet
 * @param wanted fenced keys the new primary asked for
 * @param sent values this node still held with the wanted TxId, length and checksum, and sent
 * @param accepted values the new primary took: those keys are whole again
 * @param rolledBack this node's writes the new primary never received a key packet for, removed from
 *     this node's store (in {@code id-first} and {@code sync} no client was told they succeeded)
 */
public record HandbackReport(
        String newPrimary, TxId keysUpTo, int wanted, int sent, int accepted, List<RolledBack> rolledBack) {

    /**
     * One rolled-back write.
     *
     * @param key the key
     * @param txId the TxId this node had given it
     * @param delete whether the write was a delete
     * @param valueLength its value's length
     * @param checksum its value's CRC32C
     */
    public record RolledBack(byte[] key, TxId txId, boolean delete, int valueLength, int checksum) {}
}
