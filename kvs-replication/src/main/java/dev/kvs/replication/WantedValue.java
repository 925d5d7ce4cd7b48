package dev.kvs.replication;

import dev.kvs.core.TxId;

/**
 * A value a promoted node lacks and asks the deposed primary for (failback): the write of {@code key}
 * in {@code txId}, whose value must have {@code valueLength} bytes and CRC32C {@code checksum}.
 */
public record WantedValue(TxId txId, byte[] key, int valueLength, int checksum) {}
