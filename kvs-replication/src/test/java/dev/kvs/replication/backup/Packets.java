package dev.kvs.replication.backup;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvs.core.Checksums;
import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.ValueChunk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Key packets, value chunks and whole values as a primary would send them, for tests. */
final class Packets {
    private static final byte[] EMPTY = new byte[0];

    private Packets() {}

    static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    static TxId tx(long seq) {
        return TxId.of(1, seq);
    }

    static KeyPacket putKey(TxId txId, String key, byte[] value) {
        return new KeyPacket(txId, Op.PUT, bytes(key), value.length, Checksums.crc32c(value));
    }

    static KeyPacket deleteKey(TxId txId, String key) {
        return new KeyPacket(txId, Op.DELETE, bytes(key), 0, 0);
    }

    static KeyPacket flush(TxId txId) {
        return KeyPacket.flush(txId);
    }

    static KeyPacket renameKey(TxId txId, String source, String key, byte[] value) {
        return KeyPacket.rename(txId, bytes(source), bytes(key), value.length, Checksums.crc32c(value));
    }

    /** An async write of {@code key}: awaited by the backup, never fenced. */
    static KeyPacket asyncKey(TxId txId, String key) {
        return new KeyPacket(txId, Op.ASYNC, bytes(key), 0, 0);
    }

    static KeyPacket skip(TxId txId) {
        return new KeyPacket(txId, Op.SKIP, EMPTY, 0, 0);
    }

    static ValueChunk putChunk(TxId txId, String key, byte[] value) {
        return new ValueChunk(txId, Op.PUT, bytes(key), value.length, Checksums.crc32c(value), 0, value);
    }

    static ValueChunk deleteChunk(TxId txId, String key) {
        return new ValueChunk(txId, Op.DELETE, bytes(key), 0, 0, 0, EMPTY);
    }

    /** {@code value} cut into chunks of at most {@code chunkBytes} (at least one chunk). */
    static List<ValueChunk> chunks(TxId txId, Op op, byte[] key, byte[] value, int chunkBytes) {
        int crc = Checksums.crc32c(value);
        List<ValueChunk> chunks = new ArrayList<>();
        int offset = 0;
        do {
            int n = Math.min(chunkBytes, value.length - offset);
            chunks.add(new ValueChunk(
                    txId, op, key, value.length, crc, offset, Arrays.copyOfRange(value, offset, offset + n)));
            offset += n;
        } while (offset < value.length);
        return chunks;
    }

    static ValueAssembler.Whole whole(TxId txId, String key, byte[] value) {
        return new ValueAssembler.Whole(txId, Op.PUT, bytes(key), value, Checksums.crc32c(value));
    }

    static ValueAssembler.Whole tombstone(TxId txId, String key) {
        return new ValueAssembler.Whole(txId, Op.DELETE, bytes(key), EMPTY, 0);
    }
}
