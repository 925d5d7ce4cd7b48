package dev.kvs.replication.wire;

import dev.kvs.core.TxId;
import java.util.Arrays;
import java.util.List;

/**
 * Every message of the replication protocol between a primary and its backup.
 *
 * <p>On the wire a frame is {@code int length | byte version | byte type | payload}, big-endian;
 * {@code length} counts the bytes after itself. Two kinds of TCP connection carry frames and are
 * never mixed: one <b>key channel</b> and one or more <b>value channels</b>; each starts with a
 * {@link Hello} from the primary answered by a {@link Welcome} or a {@link Reject} from the backup.
 *
 * <pre>
 * key channel   primary -> backup: Hello, KeyBatch, ResyncBegin, ResyncEnd, Handover, Heartbeat
 *               backup -> primary: Welcome, Reject, KeyAck, Resend, ResyncWants, Heartbeat
 * value channel primary -> backup: Hello, ValueBatch, StagedChunk, StageBind, StageCancel, Effect,
 *                                  Heartbeat
 *               backup -> primary: Welcome, Reject, ValueReceipt, ValueAck, ValueNack, ValueRefused,
 *                                  Heartbeat
 * handback      old primary -> new primary: Hello, ValueBatch, HandbackEnd
 *               new primary -> old primary: HandbackWants..., Reject, ValueAck
 * </pre>
 *
 * <p>With a cluster secret configured, every connection first proves it, in both directions, before
 * its {@code Hello}: the dialler sends {@link AuthInit} with a fresh nonce, the listener answers
 * {@link AuthChallenge} with its own nonce and an HMAC over both, and the dialler answers {@link
 * AuthProof}, an HMAC over both nonces in the other order. A peer that cannot prove the secret never
 * gets its {@code Hello} read, and an old proof is worthless on a new connection.
 *
 * <p>Version 4 added two key-packet ops that change more than one key in one TxId: {@link Op#FLUSH}
 * (every key written before it is gone) and {@link Op#RENAME} (a key packet naming its {@code
 * source} key as well). A value chunk is still only {@code PUT} or {@code DELETE}.
 *
 * <p>Version 5 added <b>cut-through</b> on value channels: a large SET's value is shipped while
 * the primary still receives it from its client, before the write has a TxId, as {@link
 * StagedChunk}s named by a stage id; when the SET commits a {@link StageBind} gives the staged value
 * its TxId, checksum and expiry, and the value's remaining bytes follow as ordinary {@link
 * ValueChunk}s of that TxId; a {@link StageCancel} drops a staged value that will not be written.
 *
 * <p>Version 6 added {@link ValueRefused}: a value that arrived intact but that the backup's store
 * would not take (full, too large, failing). Unlike a {@link ValueNack} it asks for no resend:
 * the primary holds the value and retries it later, and raises an alarm until it lands. It also
 * announces {@code async} writes with their key ({@link Op#ASYNC}, which used to be a {@link
 * Op#SKIP}), so that the backup knows every value still on its way and can collect the tombstones
 * of deleted keys, and makes a full resync incremental: the backup answers each batch of the listing
 * with the values it lacks ({@link ResyncWants}), and only those are shipped.
 *
 * <p>Version 7 added a <b>MAC on every frame after the challenge-response</b> when a cluster secret is
 * set and TLS is not: each side derives a key per direction from the secret and both nonces, and every
 * frame it sends (the {@link Hello} first) is followed by a 16-byte tag over the frame and its sequence
 * number in that direction, counted by both sides and never sent ({@link FrameMac}). A frame whose tag
 * is wrong (altered, injected, replayed, reordered, or one before it dropped) closes the connection
 * before anything of it is read. Without a secret, or with TLS (which protects every byte already),
 * frames carry no tag, as before.
 *
 * <p>Version 8 added the shard to {@link Hello}.
 *
 * <p>Version 9 added hashes and sets: the ops {@link Op#HASH} and {@link Op#SET} announce a write that
 * leaves a structure in its key (a key packet of that op, with no length or checksum), and a value
 * chunk of that op carries the structure's canonical image, checksummed and chunked like a string's
 * value. The backup rebuilds the structure from it, replacing what the key held.
 *
 * <p>Version 10 added {@link Effect}, on value channels: what one write did to a hash or set (the
 * members it set, with their values, and the members it removed), to be applied by a backup that
 * holds the structure complete at exactly the effect's base TxId, so a small change to a large
 * structure ships as the change, not as the whole image.
 *
 * <p>Version 11 added the {@link Unit} marker to {@link KeyPacket}: every key packet of an {@code EXEC}
 * of two or more writes names its unit (the TxId of its first key packet and how many there are), so
 * the backup applies the unit's values together, never half of them visible. On the wire the op byte
 * of a marked packet has its high bit set and the marker follows the packet's other fields.
 *
 * <p>Version 12 added lists: the op {@link Op#LIST} announces, and its value chunk carries, a list's
 * canonical image (its bounds, then its elements in order), as {@link Op#HASH} does for a hash. A list
 * write ships no {@link Effect}: its image replaces what the backup's key held.
 *
 * <p>A <b>handback</b> connection is failback: a deposed primary dials the node that replaced it,
 * is told which fenced keys (TxId, length, checksum) the new primary misses, sends the values it
 * still holds for them, and learns which were accepted.
 */
public sealed interface Frame {
    /** Protocol version written in every frame; a peer speaking another version is rejected. */
    byte VERSION = 12;

    /** The kind of connection a {@link Hello} opens. */
    enum ChannelKind {
        KEY,
        VALUE,
        /** A deposed primary handing back values the new primary lacks (failback). */
        HANDBACK
    }

    /** What a key packet or value chunk does to its key. */
    enum Op {
        /** The key was written; a value follows on a value channel. */
        PUT,
        /** The key was deleted; a tombstone follows on a value channel. */
        DELETE,
        /**
         * A seq with no key to announce: a write that failed after it was ordered (and, before version
         * 6, an {@code async} write). Keeps seq gap-free.
         */
        SKIP,
        /**
         * FLUSHDB/FLUSHALL: every key whose last write is before this TxId is gone; later writes stay.
         * No key, no value: the backup clears what is older (the store and the unfinished-key queue)
         * and discards any value of an older TxId that arrives afterwards. Sent as a key packet in
         * every mode, {@code async} included (there is no value that could carry it).
         */
        FLUSH,
        /**
         * RENAME/RENAMENX: in one TxId, {@code source} is deleted and {@code key} gets the value
         * {@code source} had (length and checksum as announced). The backup writes the source's
         * tombstone at this TxId from the packet itself (a delete needs no value); the value follows
         * as for a PUT of {@code key} at this TxId (shipped again under the new name: the backup may
         * not hold the source's value yet), and a backup holding the source's value complete gives it
         * to {@code key} at once from its own copy. Not used in {@code async} mode, which fences nothing:
         * there a rename is a delete and a write, two {@link #ASYNC} packets with a TxId each.
         */
        RENAME,
        /**
         * An {@code async} write of {@code key} (since version 6): its value, or its delete's tombstone,
         * follows on a value channel. The backup does not fence the key (losing it silently is async's
         * risk), but it knows the value is on its way: a value of a TxId the key channel has passed is
         * applied only while the backup still awaits it, so a delete's tombstone is not needed once
         * every key packet up to it has arrived. No length, checksum or expiry.
         */
        ASYNC,
        /**
         * The key was written and holds a hash (since version 9): as {@link #PUT}, but what follows on a
         * value channel is the hash's canonical image ({@code dev.kvs.core.MembersImage}), checksummed
         * and chunked like a string's value, which replaces whatever the backup's key held. The key
         * packet carries no length or checksum (0: the image is read when it ships, not when the write
         * is ordered), only the expiry.
         */
        HASH,
        /** As {@link #HASH}, for a set (since version 9). */
        SET,
        /** As {@link #HASH}, for a list (since version 12). */
        LIST;

        /** True for the ops a value chunk may carry. */
        public boolean carriesValue() {
            return this == PUT || this == DELETE || isStructure();
        }

        /** True for the ops whose value is a structure's image ({@link #HASH}, {@link #SET}, {@link #LIST}). */
        public boolean isStructure() {
            return this == HASH || this == SET || this == LIST;
        }

        /** The op of a write that leaves {@code type} in its key: {@link #PUT}, or the structure's op. */
        public static Op writing(dev.kvs.core.ValueType type) {
            return switch (type) {
                case STRING -> PUT;
                case HASH -> HASH;
                case SET -> SET;
                case LIST -> LIST;
            };
        }

        /**
         * What the key holds after a write of this op.
         *
         * @throws IllegalStateException for an op that writes no value ({@link #DELETE} and the rest)
         */
        public dev.kvs.core.ValueType type() {
            return switch (this) {
                case PUT -> dev.kvs.core.ValueType.STRING;
                case HASH -> dev.kvs.core.ValueType.HASH;
                case SET -> dev.kvs.core.ValueType.SET;
                case LIST -> dev.kvs.core.ValueType.LIST;
                default -> throw new IllegalStateException(this + " writes no value");
            };
        }
    }

    /** Why a backup refuses a connection. */
    enum RejectReason {
        /** The cluster names differ. */
        CLUSTER_MISMATCH,
        /** The backup has seen a higher epoch: the dialling primary is stale and must demote itself. */
        STALE_EPOCH,
        /** The receiving node is not a backup (two primaries). */
        NOT_BACKUP,
        /** The peer speaks another protocol version. */
        VERSION,
        /** The backup is out of resources (e.g. too many connections). */
        BUSY,
        /** A handback was offered to a node that is not a promoted primary. */
        NOT_PRIMARY,
        /** The peer did not prove the cluster secret (or one side has none configured). */
        AUTH
    }

    /** Why a backup's store would not take a value ({@link ValueRefused}). */
    enum StoreRefusal {
        /** The store is at its {@code maxEntries} or {@code maxBytes}: room may come back (deletes). */
        STORE_FULL("store full"),
        /** The value (or its key) is longer than the backup's store accepts: it never fits as it is. */
        VALUE_TOO_LARGE("value too large"),
        /** Any other failure of the store (I/O, a closed store). */
        STORE_ERROR("store error");

        private final String label;

        StoreRefusal(String label) {
            this.label = label;
        }

        /** How status, {@code INFO} and errors name it, e.g. {@code store full}. */
        public String label() {
            return label;
        }
    }

    /**
     * Opens a channel. {@code stream} numbers value channels from 0; 0 for the key channel. {@code
     * clientAddress} is the dialling node's client (RESP) address, {@code host:port}, so that a backup
     * can name its primary in {@code -NOTPRIMARY} replies; empty when unknown (value and handback
     * channels send it empty). Since version 4. {@code shard} is the shard of the cluster map the dialling
     * node is a member of, empty for a node without coordination: a backup of another shard refuses it
     * ({@link RejectReason#CLUSTER_MISMATCH}), so a miswired node cannot attach to another shard; an
     * empty shard on either side is not checked. Since version 8.
     */
    record Hello(
            String cluster,
            String node,
            String role,
            long epoch,
            ChannelKind kind,
            int stream,
            String clientAddress,
            String shard)
            implements Frame {
        public Hello {
            if (clientAddress == null) throw new IllegalArgumentException("clientAddress == null (use \"\")");
            if (shard == null) throw new IllegalArgumentException("shard == null (use \"\")");
        }

        /** A {@code Hello} of a node without a shard. */
        public Hello(
                String cluster,
                String node,
                String role,
                long epoch,
                ChannelKind kind,
                int stream,
                String clientAddress) {
            this(cluster, node, role, epoch, kind, stream, clientAddress, "");
        }

        /** A {@code Hello} that advertises no client address and no shard. */
        public Hello(String cluster, String node, String role, long epoch, ChannelKind kind, int stream) {
            this(cluster, node, role, epoch, kind, stream, "", "");
        }
    }

    /**
     * Accepts a channel. {@code contiguous} is the backup's highest key TxId such that it has every
     * key packet of that epoch up to it ({@link TxId#ZERO} for an empty backup); {@code empty} says the
     * backup holds no data at all and needs a full resync.
     */
    record Welcome(String cluster, String node, String role, long epoch, TxId contiguous, boolean empty)
            implements Frame {}

    /** Refuses a channel; the backup closes it after sending this. */
    record Reject(RejectReason reason, long epoch, String message) implements Frame {}

    /**
     * One write announced to the backup: TxId, op, key, the length and CRC32C its value will have, and
     * when the key expires ({@code expireAtMillis}: the primary's absolute time, epoch millis; 0 for
     * never), so a key the backup fences keeps its expiry. {@code source} is the renamed key of a
     * {@link Op#RENAME} (the value moves from it to {@code key}) and empty for every other op; {@link
     * Op#SKIP} and {@link Op#FLUSH} carry no key.
     */
    record KeyPacket(
            TxId txId,
            Op op,
            byte[] key,
            int valueLength,
            int checksum,
            long expireAtMillis,
            byte[] source,
            Unit unit) {
        private static final byte[] NONE = new byte[0];

        public KeyPacket {
            if ((op == Op.SKIP || op == Op.FLUSH) && key.length != 0)
                throw new IllegalArgumentException(op + " packet carries a key");
            if (op == Op.FLUSH && valueLength != 0) throw new IllegalArgumentException("FLUSH packet has a value");
            if (op != Op.RENAME && source.length != 0)
                throw new IllegalArgumentException(op + " packet carries a source key");
            if (valueLength < 0) throw new IllegalArgumentException("valueLength < 0: " + valueLength);
            if (expireAtMillis < 0) throw new IllegalArgumentException("expireAtMillis < 0: " + expireAtMillis);
            if (unit != null
                    && (unit.first().compareTo(txId) > 0 || unit.first().epoch() != txId.epoch()))
                throw new IllegalArgumentException("unit " + unit + " does not start at or before " + txId);
        }

        /** A packet in no unit. */
        public KeyPacket(
                TxId txId, Op op, byte[] key, int valueLength, int checksum, long expireAtMillis, byte[] source) {
            this(txId, op, key, valueLength, checksum, expireAtMillis, source, null);
        }

        /** This packet as a member of {@code unit} (null: of none). */
        public KeyPacket inUnit(Unit unit) {
            return new KeyPacket(txId, op, key, valueLength, checksum, expireAtMillis, source, unit);
        }

        /** A packet of any op but {@link Op#RENAME}, of a key without expiry. */
        public KeyPacket(TxId txId, Op op, byte[] key, int valueLength, int checksum) {
            this(txId, op, key, valueLength, checksum, 0, NONE);
        }

        /** A packet of any op but {@link Op#RENAME}. */
        public KeyPacket(TxId txId, Op op, byte[] key, int valueLength, int checksum, long expireAtMillis) {
            this(txId, op, key, valueLength, checksum, expireAtMillis, NONE);
        }

        /** The rename of {@code source} to {@code key} at {@code txId}; the value's length and checksum. */
        public static KeyPacket rename(TxId txId, byte[] source, byte[] key, int valueLength, int checksum) {
            return rename(txId, source, key, valueLength, checksum, 0);
        }

        /** The rename of {@code source} to {@code key}, which keeps the source's expiry (0: none). */
        public static KeyPacket rename(
                TxId txId, byte[] source, byte[] key, int valueLength, int checksum, long expireAtMillis) {
            return new KeyPacket(txId, Op.RENAME, key, valueLength, checksum, expireAtMillis, source);
        }

        /** The flush at {@code txId}. */
        public static KeyPacket flush(TxId txId) {
            return new KeyPacket(txId, Op.FLUSH, NONE, 0, 0, 0, NONE);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof KeyPacket p
                    && txId.equals(p.txId)
                    && op == p.op
                    && Arrays.equals(key, p.key)
                    && valueLength == p.valueLength
                    && checksum == p.checksum
                    && expireAtMillis == p.expireAtMillis
                    && Arrays.equals(source, p.source)
                    && java.util.Objects.equals(unit, p.unit);
        }

        @Override
        public int hashCode() {
            return txId.hashCode() * 31 + Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return "KeyPacket[" + txId + " " + op + " key=" + key.length + "B"
                    + (op == Op.RENAME ? " from=" + source.length + "B" : "") + " len=" + valueLength
                    + (unit == null ? "" : " " + unit) + "]";
        }
    }

    /**
     * The unit a key packet belongs to (since version 11): the key packets of one {@code EXEC} of two or
     * more writes, which the backup makes visible together. {@code first} is the TxId of the unit's first
     * key packet (its name), {@code size} how many key packets it has. Their TxIds ascend but need not
     * follow each other: the primary's own writes (active expiry) may take one in between.
     */
    record Unit(TxId first, int size) {
        /** The most key packets a unit may have; beyond it a decoder rejects the frame. */
        public static final int MAX_SIZE = 1 << 20;

        public Unit {
            java.util.Objects.requireNonNull(first, "first == null");
            if (size < 2 || size > MAX_SIZE) throw new IllegalArgumentException("unit size " + size);
        }

        @Override
        public String toString() {
            return "unit=" + first + "x" + size;
        }
    }

    /** Key packets in TxId order, group-committed into one frame. */
    record KeyBatch(List<KeyPacket> packets) implements Frame {}

    /** Cumulative ack: the backup has every key packet of {@code upTo}'s epoch up to {@code upTo}. */
    record KeyAck(TxId upTo) implements Frame {}

    /** The backup saw a gap: resend every key packet after {@code after}. */
    record Resend(TxId after) implements Frame {}

    /**
     * Full resync starts: the key batches until {@link ResyncEnd} list every key the primary holds
     * (with their own TxIds, not contiguous), then normal key packets continue after {@code upTo}.
     */
    record ResyncBegin(TxId upTo) implements Frame {}

    /** Full resync's key listing is complete; the backup now has every key packet up to {@code upTo}. */
    record ResyncEnd(TxId upTo) implements Frame {}

    /**
     * The backup's answer to one batch of a full resync's listing: the listed keys whose values it
     * lacks (it holds no record of that TxId, or one whose length or checksum differs), as they were
     * listed. The primary ships only those (if the key still has that TxId: a newer write ships
     * anyway): a backup that was away ships only what changed meanwhile. Since version 6.
     */
    record ResyncWants(List<KeyPacket> wanted) implements Frame {}

    /**
     * A piece of one value: bytes {@code [offset, offset + data.length)} of a value of {@code
     * totalLength} bytes with CRC32C {@code checksum}, of a key that expires at {@code expireAtMillis}
     * (epoch millis, 0 for never). A small value is one chunk; a delete is one empty chunk with op
     * {@link Op#DELETE}. An empty chunk at {@code offset == totalLength > 0} is a <b>cancel</b>: the
     * primary abandoned the value after some of its chunks (its key was rewritten meanwhile) and the
     * backup drops what it assembled of it (no nack; older backups nack it, which the primary ignores).
     */
    record ValueChunk(
            TxId txId, Op op, byte[] key, int totalLength, int checksum, int offset, byte[] data, long expireAtMillis) {
        /** A chunk of a key without expiry. */
        public ValueChunk(TxId txId, Op op, byte[] key, int totalLength, int checksum, int offset, byte[] data) {
            this(txId, op, key, totalLength, checksum, offset, data, 0);
        }

        public ValueChunk {
            if (expireAtMillis < 0) throw new IllegalArgumentException("expireAtMillis < 0: " + expireAtMillis);
            if (!op.carriesValue()) throw new IllegalArgumentException("a value chunk cannot be " + op);
            if (offset < 0 || totalLength < 0 || offset + (long) data.length > totalLength) {
                throw new IllegalArgumentException(
                        "chunk [" + offset + ", +" + data.length + ") outside value of " + totalLength + " bytes");
            }
        }

        public boolean isLast() {
            return offset + data.length == totalLength;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ValueChunk c
                    && txId.equals(c.txId)
                    && op == c.op
                    && Arrays.equals(key, c.key)
                    && totalLength == c.totalLength
                    && checksum == c.checksum
                    && offset == c.offset
                    && Arrays.equals(data, c.data)
                    && expireAtMillis == c.expireAtMillis;
        }

        @Override
        public int hashCode() {
            return txId.hashCode() * 31 + offset;
        }

        @Override
        public String toString() {
            return "ValueChunk[" + txId + " " + op + " [" + offset + ", +" + data.length + ") of " + totalLength + "]";
        }
    }

    /**
     * Value chunks batched into one frame. {@code sentNanos} is the sender's clock ({@link
     * System#nanoTime()}) when the frame was written, which a backup echoes in a {@link ValueReceipt}
     * for flow control; 0 asks for no receipt (handback).
     */
    record ValueBatch(long sentNanos, List<ValueChunk> chunks) implements Frame {
        /** A batch that asks for no receipt. */
        public ValueBatch(List<ValueChunk> chunks) {
            this(0, chunks);
        }
    }

    /**
     * What one write did to the hash or set at {@code key} (since version 10): the members it set
     * ({@code set}, with their values; a set's members have empty values) and the members it removed
     * ({@code removed}), leaving the structure at {@code txId} expiring at {@code expireAtMillis}
     * (epoch millis, 0 for never). {@code base} is the key's TxId before the write: a backup applies
     * the effect only if it holds the structure complete at exactly that TxId, and otherwise asks for
     * the whole image. An effect is deterministic and idempotent (HINCRBY ships its result, SPOP the
     * members it removed), so it can be applied to the base without the command that made it. {@code
     * sentNanos} as in {@link ValueBatch}.
     */
    record Effect(
            long sentNanos,
            TxId txId,
            TxId base,
            Op op,
            byte[] key,
            long expireAtMillis,
            List<EffectMember> set,
            List<byte[]> removed)
            implements Frame {
        public Effect {
            if (!op.isStructure()) throw new IllegalArgumentException("an effect cannot be " + op);
            if (expireAtMillis < 0) throw new IllegalArgumentException("expireAtMillis < 0: " + expireAtMillis);
            if (base.compareTo(txId) >= 0) {
                throw new IllegalArgumentException("effect's base " + base + " not before its TxId " + txId);
            }
            set = List.copyOf(set);
            removed = List.copyOf(removed);
            if (op == Op.SET) {
                for (EffectMember m : set) {
                    if (m.value().length != 0) throw new IllegalArgumentException("a set's member has no value");
                }
            }
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Effect e
                    && sentNanos == e.sentNanos
                    && txId.equals(e.txId)
                    && base.equals(e.base)
                    && op == e.op
                    && Arrays.equals(key, e.key)
                    && expireAtMillis == e.expireAtMillis
                    && set.equals(e.set)
                    && removed.size() == e.removed.size())) {
                return false;
            }
            for (int i = 0; i < removed.size(); i++) {
                if (!Arrays.equals(removed.get(i), e.removed.get(i))) return false;
            }
            return true;
        }

        @Override
        public int hashCode() {
            return txId.hashCode() * 31 + Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return "Effect[" + txId + " on " + base + " " + op + " set " + set.size() + " removed " + removed.size()
                    + "]";
        }
    }

    /** A member an {@link Effect} sets: its name and its value (empty for a set's member). */
    record EffectMember(byte[] name, byte[] value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof EffectMember m && Arrays.equals(name, m.name) && Arrays.equals(value, m.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(name) * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "EffectMember[" + name.length + " + " + value.length + " bytes]";
        }
    }

    /**
     * Bytes {@code [offset, offset + data.length)} of a SET's value of {@code totalLength} bytes, sent
     * while the primary still receives it (cut-through), before the write has a TxId; {@code stageId}
     * (unique within the primary process) names it until a {@link StageBind} or {@link StageCancel}.
     * {@code sentNanos} as in {@link ValueBatch}: unless 0, the backup answers a {@link ValueReceipt}.
     * Since version 5.
     */
    record StagedChunk(long sentNanos, long stageId, byte[] key, int totalLength, int offset, byte[] data)
            implements Frame {
        public StagedChunk {
            if (offset < 0 || totalLength < 0 || offset + (long) data.length > totalLength) {
                throw new IllegalArgumentException("staged chunk [" + offset + ", +" + data.length
                        + ") outside value of " + totalLength + " bytes");
            }
        }

        /** True if the chunk ends its value. */
        public boolean isLast() {
            return offset + data.length == totalLength;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StagedChunk c
                    && sentNanos == c.sentNanos
                    && stageId == c.stageId
                    && Arrays.equals(key, c.key)
                    && totalLength == c.totalLength
                    && offset == c.offset
                    && Arrays.equals(data, c.data);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(stageId) * 31 + offset;
        }

        @Override
        public String toString() {
            return "StagedChunk[stage " + stageId + " [" + offset + ", +" + data.length + ") of " + totalLength + "]";
        }
    }

    /**
     * The staged value {@code stageId} is the PUT of {@code key} at {@code txId}, of CRC32C {@code
     * checksum}, expiring at {@code expireAtMillis} (epoch millis, 0: never): its remaining bytes, if
     * any, follow as {@link ValueChunk}s of {@code txId} from the offset the staged chunks reached. A
     * backup that does not hold the staged value nacks {@code txId}, and the primary ships the value
     * again whole. Since version 5.
     */
    record StageBind(long stageId, TxId txId, byte[] key, int checksum, long expireAtMillis) implements Frame {
        public StageBind {
            if (expireAtMillis < 0) throw new IllegalArgumentException("expireAtMillis < 0: " + expireAtMillis);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StageBind b
                    && stageId == b.stageId
                    && txId.equals(b.txId)
                    && Arrays.equals(key, b.key)
                    && checksum == b.checksum
                    && expireAtMillis == b.expireAtMillis;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(stageId) * 31 + txId.hashCode();
        }

        @Override
        public String toString() {
            return "StageBind[stage " + stageId + " -> " + txId + " key=" + key.length + "B]";
        }
    }

    /**
     * The staged value {@code stageId} will not be written (the SET was refused, or its client left):
     * the backup drops it. Since version 5.
     */
    record StageCancel(long stageId) implements Frame {}

    /**
     * The backup received a {@link ValueBatch} (or a {@link StagedChunk}) of {@code bytes} (encoded,
     * length prefix included) that was sent at {@code sentNanos} (the primary's clock), at {@code
     * receivedNanos} (the backup's clock), before applying it. Sent at once, so the primary measures
     * one-way delay (up to the clock offset, which cancels against the base delay) and the bytes no
     * longer in flight.
     */
    record ValueReceipt(long sentNanos, long receivedNanos, int bytes) implements Frame {
        public ValueReceipt {
            if (bytes < 0) throw new IllegalArgumentException("bytes < 0: " + bytes);
        }
    }

    /**
     * The backup applied these values (or found a newer TxId of the same key already applied, which
     * makes them superseded): the primary stops tracking them.
     */
    record ValueAck(List<TxId> txIds) implements Frame {}

    /** A value arrived corrupt (checksum mismatch) or incomplete: send it again. */
    record ValueNack(TxId txId, byte[] key, String reason) implements Frame {
        @Override
        public boolean equals(Object o) {
            return o instanceof ValueNack n
                    && txId.equals(n.txId)
                    && Arrays.equals(key, n.key)
                    && reason.equals(n.reason);
        }

        @Override
        public int hashCode() {
            return txId.hashCode() * 31 + Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return "ValueNack[" + txId + " key=" + key.length + "B " + reason + "]";
        }
    }

    /**
     * The backup's store refused the value of {@code key} with {@code txId} for {@code reason}, though
     * it arrived intact (a value longer than the store accepts is refused at its first chunk, and its
     * other chunks are ignored); {@code detail} is the store's own message (e.g. {@code store full:
     * 200 entries (maxEntries 200)}). The key stays unfinished on the backup. Not a request to resend:
     * the primary keeps the value pending, raises an alarm, and retries it at a modest pace until it
     * lands (its {@link ValueAck}). Since version 6.
     */
    record ValueRefused(TxId txId, byte[] key, StoreRefusal reason, String detail) implements Frame {
        public ValueRefused {
            if (reason == null) throw new IllegalArgumentException("reason == null");
            if (detail == null) throw new IllegalArgumentException("detail == null (use \"\")");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ValueRefused r
                    && txId.equals(r.txId)
                    && Arrays.equals(key, r.key)
                    && reason == r.reason
                    && detail.equals(r.detail);
        }

        @Override
        public int hashCode() {
            return txId.hashCode() * 31 + Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return "ValueRefused[" + txId + " key=" + key.length + "B " + reason.label() + ": " + detail + "]";
        }
    }

    /**
     * Planned switchover, primary to backup on the key channel once every key and value is
     * acknowledged: take over as primary in {@code epoch}; the sender has stopped accepting writes.
     */
    record Handover(long epoch) implements Frame {}

    /**
     * On a handback connection, the new primary's answer to {@code Hello}: fenced keys it wants values
     * for (one frame per batch; {@code last} ends the list), and {@code keysUpTo}, the TxId up to
     * which it received every key packet of the deposed primary's epoch. The deposed primary's writes
     * after {@code keysUpTo} that are not wanted were never acknowledged to a client in id-first: they
     * are rolled back.
     */
    record HandbackWants(TxId keysUpTo, List<KeyPacket> wanted, boolean last) implements Frame {}

    /** The deposed primary has sent every wanted value it holds ({@code values} of them). */
    record HandbackEnd(int values) implements Frame {}

    /** Liveness probe, echoed by the other side with the same {@code nanos}. */
    record Heartbeat(long nanos, boolean reply) implements Frame {}

    /** Bytes of an authentication nonce. */
    int NONCE_BYTES = 32;

    /** Bytes of an authentication proof (HMAC-SHA256). */
    int PROOF_BYTES = 32;

    /** Dialler to listener, first frame when a cluster secret is set: a fresh random nonce. */
    record AuthInit(byte[] nonce) implements Frame {
        public AuthInit {
            checkLength(nonce, NONCE_BYTES, "nonce");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AuthInit a && Arrays.equals(nonce, a.nonce);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(nonce);
        }

        @Override
        public String toString() {
            return "AuthInit[]";
        }
    }

    /** Listener to dialler: its own fresh nonce, and its proof of the secret over both nonces. */
    record AuthChallenge(byte[] nonce, byte[] proof) implements Frame {
        public AuthChallenge {
            checkLength(nonce, NONCE_BYTES, "nonce");
            checkLength(proof, PROOF_BYTES, "proof");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AuthChallenge a && Arrays.equals(nonce, a.nonce) && Arrays.equals(proof, a.proof);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(nonce) * 31 + Arrays.hashCode(proof);
        }

        @Override
        public String toString() {
            return "AuthChallenge[]";
        }
    }

    /** Dialler to listener: its proof of the secret over both nonces. */
    record AuthProof(byte[] proof) implements Frame {
        public AuthProof {
            checkLength(proof, PROOF_BYTES, "proof");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AuthProof a && Arrays.equals(proof, a.proof);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(proof);
        }

        @Override
        public String toString() {
            return "AuthProof[]";
        }
    }

    private static void checkLength(byte[] b, int length, String what) {
        if (b == null || b.length != length) {
            throw new IllegalArgumentException(what + " must be " + length + " bytes");
        }
    }
}
