package dev.kvs.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.ChannelKind;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.RejectReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/** Sample frames of every type, and ways to turn frames into bytes and bytes into frames. */
final class Samples {
    static final int MAX = 8 * 1024 * 1024;

    private Samples() {}

    static List<Frame> all() {
        TxId t = TxId.of(3, 41);
        TxId big = TxId.of(Long.MAX_VALUE, Long.MAX_VALUE);
        return List.of(
                new Frame.Hello("dc-east", "node-1", "primary", 3, ChannelKind.KEY, 0, "10.0.0.1:6380", "shard-0"),
                new Frame.Hello("clüster-日本", "", "", 0, ChannelKind.VALUE, Integer.MAX_VALUE),
                new Frame.Welcome("dc-east", "node-2", "backup", 3, t, false),
                new Frame.Welcome("", "", "", Long.MAX_VALUE, TxId.ZERO, true),
                new Frame.Reject(RejectReason.STALE_EPOCH, 9, "saw epoch 9"),
                new Frame.Reject(RejectReason.BUSY, 0, ""),
                new Frame.KeyBatch(List.of()),
                new Frame.KeyBatch(List.of(
                        new Frame.KeyPacket(t, Op.PUT, bytes("user:1"), 120, 0xCAFEBABE, 1_700_000_000_123L),
                        new Frame.KeyPacket(t.next(), Op.DELETE, bytes("user:2"), 0, 0),
                        new Frame.KeyPacket(t.next().next(), Op.SKIP, new byte[0], 0, -1),
                        new Frame.KeyPacket(t.next().next().next(), Op.ASYNC, bytes("user:3"), 0, 0),
                        new Frame.KeyPacket(big, Op.PUT, new byte[0], Integer.MAX_VALUE, Integer.MIN_VALUE))),
                new Frame.KeyBatch(List.of(
                        Frame.KeyPacket.flush(t),
                        Frame.KeyPacket.rename(t.next(), bytes("user:1"), bytes("user:new"), 5, 7),
                        Frame.KeyPacket.rename(big, new byte[0], new byte[0], 0, 0))),
                new Frame.KeyAck(t),
                new Frame.Resend(TxId.ZERO),
                new Frame.ResyncBegin(big),
                new Frame.ResyncEnd(t),
                new Frame.ValueBatch(List.of()),
                new Frame.ValueBatch(List.of(
                        new Frame.ValueChunk(t, Op.PUT, bytes("user:1"), 5, 7, 0, bytes("hello")),
                        new Frame.ValueChunk(t.next(), Op.DELETE, bytes("user:2"), 0, 0, 0, new byte[0]),
                        new Frame.ValueChunk(t.next(), Op.PUT, new byte[0], 0, 0, 0, new byte[0]),
                        new Frame.ValueChunk(big, Op.PUT, bytes("k"), 100, -5, 97, bytes("end")),
                        new Frame.ValueChunk(t, Op.PUT, bytes("ttl"), 2, 3, 0, bytes("v1"), Long.MAX_VALUE))),
                new Frame.ValueAck(List.of()),
                new Frame.ValueAck(List.of(t, TxId.ZERO, big)),
                new Frame.ValueNack(t, bytes("user:1"), "checksum mismatch"),
                new Frame.ValueNack(TxId.ZERO, new byte[0], ""),
                new Frame.Heartbeat(123_456_789L, false),
                new Frame.Heartbeat(Long.MIN_VALUE, true),
                new Frame.Handover(7),
                new Frame.HandbackWants(t, List.of(), true),
                new Frame.HandbackWants(big, List.of(new Frame.KeyPacket(t, Op.PUT, bytes("user:1"), 5, 7)), false),
                new Frame.HandbackEnd(0),
                new Frame.HandbackEnd(Integer.MAX_VALUE),
                new Frame.ValueBatch(Long.MIN_VALUE, List.of()),
                new Frame.ValueReceipt(Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE),
                new Frame.AuthInit(filled(Frame.NONCE_BYTES, 1)),
                new Frame.AuthChallenge(filled(Frame.NONCE_BYTES, 2), filled(Frame.PROOF_BYTES, 3)),
                new Frame.AuthProof(filled(Frame.PROOF_BYTES, 4)),
                new Frame.Reject(RejectReason.AUTH, 1, "no proof"),
                new Frame.StagedChunk(123_456L, 7, bytes("user:big"), 100, 0, bytes("first")),
                new Frame.StagedChunk(0, Long.MIN_VALUE, new byte[0], 0, 0, new byte[0]),
                new Frame.StagedChunk(Long.MAX_VALUE, Long.MAX_VALUE, bytes("k"), Integer.MAX_VALUE, 97, bytes("mid")),
                new Frame.StageBind(7, t, bytes("user:big"), 0xCAFEBABE, 1_700_000_000_123L),
                new Frame.StageBind(Long.MIN_VALUE, big, new byte[0], -1, 0),
                new Frame.StageCancel(7),
                new Frame.StageCancel(-1),
                new Frame.ValueRefused(
                        t, bytes("user:1"), Frame.StoreRefusal.STORE_FULL, "store full: 200 entries (maxEntries 200)"),
                new Frame.ValueRefused(big, new byte[0], Frame.StoreRefusal.STORE_ERROR, ""),
                new Frame.ValueRefused(TxId.ZERO, bytes("k"), Frame.StoreRefusal.VALUE_TOO_LARGE, "ünïcode"),
                new Frame.ResyncWants(List.of()),
                new Frame.ResyncWants(List.of(
                        new Frame.KeyPacket(t, Op.PUT, bytes("user:1"), 120, 0xCAFEBABE, 1_700_000_000_123L),
                        new Frame.KeyPacket(big, Op.PUT, new byte[0], Integer.MAX_VALUE, Integer.MIN_VALUE))),
                // since version 9: hashes and sets, announced by their op and shipped as their image
                new Frame.KeyBatch(List.of(
                        new Frame.KeyPacket(t, Op.HASH, bytes("session:1"), 0, 0, 1_700_000_000_123L),
                        new Frame.KeyPacket(t.next(), Op.SET, bytes("tokens"), 0, 0))),
                new Frame.ValueBatch(
                        7,
                        List.of(
                                new Frame.ValueChunk(t, Op.HASH, bytes("session:1"), 9, 3, 0, bytes("image"), 5),
                                new Frame.ValueChunk(big, Op.SET, bytes("tokens"), 100, -5, 97, bytes("end")))),
                // since version 10: what one write did to a structure, on its base TxId
                new Frame.Effect(
                        7,
                        t.next(),
                        t,
                        Op.HASH,
                        bytes("session:1"),
                        1_700_000_000_123L,
                        List.of(new Frame.EffectMember(bytes("f"), bytes("v"))),
                        List.of(bytes("gone"))),
                new Frame.Effect(
                        0,
                        big,
                        TxId.ZERO,
                        Op.SET,
                        new byte[0],
                        0,
                        List.of(new Frame.EffectMember(bytes("m"), new byte[0])),
                        List.of()),
                // since version 11: the key packets of one EXEC name their unit
                new Frame.KeyBatch(List.of(
                        new Frame.KeyPacket(t, Op.PUT, bytes("a"), 1, 2, 3).inUnit(new Frame.Unit(t, 3)),
                        new Frame.KeyPacket(t.next(), Op.HASH, bytes("h"), 0, 0).inUnit(new Frame.Unit(t, 3)),
                        Frame.KeyPacket.rename(t.next().next(), bytes("a"), bytes("b"), 1, 2)
                                .inUnit(new Frame.Unit(t, 3)),
                        new Frame.KeyPacket(big, Op.ASYNC, bytes("z"), 0, 0)
                                .inUnit(new Frame.Unit(TxId.of(Long.MAX_VALUE, 0), Frame.Unit.MAX_SIZE)))));
    }

    private static byte[] filled(int n, int v) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    /** The bytes {@link FrameEncoder} writes for {@code frame}. */
    static byte[] encode(Frame frame) {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameEncoder());
        channel.writeOutbound(frame);
        ByteBuf buf = channel.readOutbound();
        try {
            byte[] b = new byte[buf.readableBytes()];
            buf.readBytes(b);
            return b;
        } finally {
            buf.release();
            channel.finishAndReleaseAll();
        }
    }

    /** A frame of the given version and type around whatever {@code payload} writes; length is consistent. */
    static ByteBuf raw(int version, int type, Consumer<ByteBuf> payload) {
        ByteBuf body = Unpooled.buffer();
        body.writeByte(version).writeByte(type);
        payload.accept(body);
        ByteBuf frame = Unpooled.buffer(4 + body.readableBytes());
        frame.writeInt(body.readableBytes()).writeBytes(body);
        body.release();
        return frame;
    }

    static ByteBuf raw(int type, Consumer<ByteBuf> payload) {
        return raw(Frame.VERSION, type, payload);
    }

    /** A valid frame chosen at random, with random contents, every type equally likely. */
    static Frame random(Random r) {
        switch (r.nextInt(22)) {
            case 0:
                return new Frame.Hello(
                        string(r),
                        string(r),
                        string(r),
                        r.nextLong(),
                        pick(r, ChannelKind.values()),
                        r.nextInt(),
                        string(r),
                        string(r));
            case 1:
                return new Frame.Welcome(string(r), string(r), string(r), r.nextLong(), txId(r), r.nextBoolean());
            case 2:
                return new Frame.Reject(pick(r, RejectReason.values()), r.nextLong(), string(r));
            case 3: {
                List<Frame.KeyPacket> packets = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    Op op = pick(r, Op.values());
                    if (op == Op.FLUSH) packets.add(Frame.KeyPacket.flush(txId(r)));
                    else if (op == Op.RENAME) {
                        packets.add(Frame.KeyPacket.rename(
                                txId(r), bytes(r, 20), bytes(r, 20), r.nextInt(1 << 20), r.nextInt()));
                    } else {
                        packets.add(new Frame.KeyPacket(
                                txId(r),
                                op,
                                op == Op.SKIP ? new byte[0] : bytes(r, 20),
                                r.nextInt(1 << 20),
                                r.nextInt()));
                    }
                }
                return new Frame.KeyBatch(packets);
            }
            case 4:
                return new Frame.KeyAck(txId(r));
            case 5:
                return new Frame.Resend(txId(r));
            case 6:
                return new Frame.ResyncBegin(txId(r));
            case 7:
                return new Frame.ResyncEnd(txId(r));
            case 8: {
                List<Frame.ValueChunk> chunks = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    byte[] data = bytes(r, 64);
                    int offset = r.nextInt(100);
                    int total = offset + data.length + r.nextInt(3);
                    Op op = pick(r, new Op[] {Op.PUT, Op.DELETE, Op.HASH, Op.SET});
                    chunks.add(new Frame.ValueChunk(txId(r), op, bytes(r, 20), total, r.nextInt(), offset, data));
                }
                return new Frame.ValueBatch(r.nextLong(), chunks);
            }
            case 9: {
                List<TxId> txIds = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) txIds.add(txId(r));
                return new Frame.ValueAck(txIds);
            }
            case 10:
                return new Frame.ValueNack(txId(r), bytes(r, 20), string(r));
            case 11:
                return new Frame.Handover(r.nextLong());
            case 12: {
                List<Frame.KeyPacket> packets = new ArrayList<>();
                for (int i = r.nextInt(3); i > 0; i--) {
                    packets.add(new Frame.KeyPacket(txId(r), Op.PUT, bytes(r, 20), r.nextInt(1 << 20), r.nextInt()));
                }
                return new Frame.HandbackWants(txId(r), packets, r.nextBoolean());
            }
            case 13:
                return new Frame.HandbackEnd(r.nextInt());
            case 14:
                return new Frame.ValueReceipt(r.nextLong(), r.nextLong(), r.nextInt() & Integer.MAX_VALUE);
            case 15: {
                byte[] data = bytes(r, 64);
                int offset = r.nextInt(100);
                int total = offset + data.length + r.nextInt(3);
                return new Frame.StagedChunk(r.nextLong(), r.nextLong(), bytes(r, 20), total, offset, data);
            }
            case 16:
                return new Frame.StageBind(
                        r.nextLong(),
                        txId(r),
                        bytes(r, 20),
                        r.nextInt(),
                        r.nextBoolean() ? 0 : r.nextLong() & Long.MAX_VALUE);
            case 17:
                return new Frame.StageCancel(r.nextLong());
            case 18:
                return new Frame.ValueRefused(txId(r), bytes(r, 20), pick(r, Frame.StoreRefusal.values()), string(r));
            case 19: {
                List<Frame.KeyPacket> wanted = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    wanted.add(new Frame.KeyPacket(
                            txId(r),
                            Op.PUT,
                            bytes(r, 20),
                            r.nextInt(1 << 20),
                            r.nextInt(),
                            r.nextLong() & Long.MAX_VALUE));
                }
                return new Frame.ResyncWants(wanted);
            }
            case 20: {
                Op op = r.nextBoolean() ? Op.HASH : Op.SET;
                List<Frame.EffectMember> set = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    set.add(new Frame.EffectMember(bytes(r, 20), op == Op.SET ? new byte[0] : bytes(r, 20)));
                }
                List<byte[]> removed = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) removed.add(bytes(r, 20));
                TxId txId = TxId.of(r.nextInt(100), 1 + (r.nextLong() & (Long.MAX_VALUE >> 1)));
                TxId base = TxId.of(txId.epoch(), r.nextLong(txId.seq()));
                return new Frame.Effect(
                        r.nextLong(), txId, base, op, bytes(r, 20), r.nextLong() & Long.MAX_VALUE, set, removed);
            }
            default:
                return new Frame.Heartbeat(r.nextLong(), r.nextBoolean());
        }
    }

    private static TxId txId(Random r) {
        return TxId.of(r.nextInt(5) == 0 ? Long.MAX_VALUE : r.nextInt(100), r.nextLong() & Long.MAX_VALUE);
    }

    private static byte[] bytes(Random r, int maxLength) {
        byte[] b = new byte[r.nextInt(maxLength + 1)];
        r.nextBytes(b);
        return b;
    }

    private static String string(Random r) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(12); i > 0; i--) {
            s.append(r.nextInt(4) == 0 ? (char) (0x80 + r.nextInt(0xD000)) : (char) ('a' + r.nextInt(26)));
        }
        return s.toString();
    }

    private static <E> E pick(Random r, E[] values) {
        return values[r.nextInt(values.length)];
    }
}
