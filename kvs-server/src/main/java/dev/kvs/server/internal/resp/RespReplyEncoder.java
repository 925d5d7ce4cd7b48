package dev.kvs.server.internal.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Encodes replies (codec-redis message types and {@link TypedReplies}) to RESP2, or to RESP3 from the
 * {@link TypedReplies.Hello} reply of a {@code HELLO 3} on (back to RESP2 from a {@code HELLO 2}'s):
 * the switch happens where that reply is in the stream, so the replies before it, even those that
 * waited for replication, keep the protocol they were asked in. Measured hot path: the small replies written
 * between two flushes (one read batch of a pipelining client) are encoded into one buffer, passed on
 * at the flush or once it holds {@link #BATCH_BYTES}, so a batch of 16 SETs costs one buffer and one
 * outbound entry, not 16; small bulk values are copied into it; a large value is passed on without
 * copying, between its header and trailer (also inside an array: an MGET of long values). A write with a real promise (not the void one) passes the
 * batch on first, then goes on its own, so its promise completes when its bytes are written. One
 * instance per channel (not sharable).
 */
final class RespReplyEncoder extends ChannelOutboundHandlerAdapter {
    /** Values up to this size are copied into the reply buffer; larger ones are written as they are. */
    static final int COPY_LIMIT = 16 * 1024;

    /**
     * A batch is passed on once it holds this many bytes: the bytes held here, outside the channel's
     * outbound buffer (which the output limits count), stay below this plus one reply.
     */
    static final int BATCH_BYTES = 8 * 1024;

    /** Small replies encoded since the last flush and not yet passed on; null if none. */
    private ByteBuf batch;

    /** The connection speaks RESP3 (since a {@code HELLO 3}'s reply). */
    private boolean resp3;

    /** This handler's context: {@link #reserve} runs outside a write, on the caller's thread. */
    private ChannelHandlerContext context;

    /**
     * The reply last {@link #reserve reserved} in the batch and not yet written: its bytes lie past the
     * batch's writer index, and nothing is written over them while it is referenced; null if none.
     */
    private BatchedBulk reserved;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    /**
     * Room in the batch, past what it holds, for the bulk reply of a value of {@code length} bytes, its
     * header and CRLF already written: the caller (a GET, through {@link DirectValues}) has the store
     * copy the value into {@link BatchedBulk#valueBuffer} and replies with the {@link BatchedBulk}; if
     * that is the next reply written, it costs no copy here. Null off the connection's event loop or for
     * a value longer than {@link #COPY_LIMIT}.
     */
    BatchedBulk reserve(int length) {
        ChannelHandlerContext ctx = context;
        if (ctx == null || length > COPY_LIMIT || !ctx.executor().inEventLoop()) return null;
        settleReserved(ctx);
        int digits = digits(length);
        int header = 1 + digits + 2;
        int total = header + length + 2;
        if (batch == null) {
            batch = ctx.alloc().ioBuffer(BATCH_BYTES + total); // room for a batch of such replies: no regrowth
        } else if (batch.writableBytes() < total) {
            batch.ensureWritable(total); // nothing past the writer index to keep (settled above)
        }
        ByteBuf b = batch;
        int start = b.writerIndex();
        b.setByte(start, '$');
        for (int i = start + digits, v = length; i > start; i--, v /= 10) b.setByte(i, '0' + v % 10);
        b.setShort(start + 1 + digits, CRLF);
        b.setShort(start + header + length, CRLF);
        reserved = new BatchedBulk(b, start, start + header, length, start + total);
        return reserved;
    }

    private static int digits(int v) {
        int n = 1;
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }

    /**
     * Before anything else goes into the batch: a reserved reply still referenced keeps its bytes, so the
     * batch is passed on as a slice of what it holds (whoever handles it downstream cannot write past
     * that) and a new one starts; a released one's bytes are free.
     */
    private void settleReserved(ChannelHandlerContext ctx) {
        BatchedBulk r = reserved;
        if (r == null) return;
        reserved = null;
        if (r.released() || r.batch != batch) return;
        ByteBuf b = batch;
        batch = null;
        if (b.isReadable()) ctx.write(b.retainedSlice(b.readerIndex(), b.readableBytes()), ctx.voidPromise());
        b.release();
    }

    /**
     * {@code msg} as a reply to encode, or null to pass on as it is. The common replies are told by their
     * classes, not by the interface {@code RedisMessage}: on JDK 17 an {@code instanceof} of an interface
     * that is true stores that interface in the object's class as its one cached answer (JDK-8180450,
     * fixed in JDK 23), and Netty's pipeline asks the same replies for {@code ReferenceCounted} (its leak
     * detector's touch, and the release after encoding). The two answers then took turns in that cache on
     * every bulk string and array reply, a cache line the event loops passed between them.
     */
    private static RedisMessage reply(Object msg) {
        if (msg instanceof FullBulkStringRedisMessage b) return b;
        if (msg instanceof ArrayRedisMessage a) return a;
        if (msg instanceof IntegerRedisMessage i) return i;
        if (msg instanceof SimpleStringRedisMessage s) return s;
        if (msg instanceof ErrorRedisMessage e) return e;
        return msg instanceof RedisMessage m ? m : null;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        RedisMessage m = reply(msg);
        if (m == null) {
            passBatchOn(ctx);
            ctx.write(msg, promise);
            return;
        }
        try {
            if (m == reserved && promise.isVoid() && batch == reserved.batch && batch.writerIndex() == reserved.start) {
                batch.writerIndex(reserved.end); // its bytes are already in place: the store put them there
                reserved = null;
                if (batch.readableBytes() >= BATCH_BYTES) passBatchOn(ctx);
                return;
            }
            settleReserved(ctx);
            if (m instanceof FullBulkStringRedisMessage bulk && isLarge(bulk)) {
                passBatchOn(ctx);
                writeLargeBulk(ctx, bulk, promise);
                return;
            }
            if (m instanceof ArrayRedisMessage a && hasLarge(a)) {
                writeParts(ctx, a); // small parts batched, large values passed on between them
                if (!promise.isVoid()) {
                    ByteBuf last = batch == null ? Unpooled.EMPTY_BUFFER : batch;
                    batch = null;
                    ctx.write(last, promise);
                } else if (batch != null && batch.readableBytes() >= BATCH_BYTES) {
                    passBatchOn(ctx);
                }
                return;
            }
            if (promise.isVoid()) {
                if (batch == null) batch = ctx.alloc().ioBuffer(Math.max(256, estimate(m)));
                int mark = batch.writerIndex();
                try {
                    encode(m, batch);
                } catch (RuntimeException e) {
                    batch.writerIndex(mark);
                    throw e;
                }
                if (batch.readableBytes() >= BATCH_BYTES) passBatchOn(ctx);
                return;
            }
            passBatchOn(ctx);
            ByteBuf out = ctx.alloc().ioBuffer(estimate(m));
            try {
                encode(m, out);
            } catch (RuntimeException e) {
                out.release();
                throw e;
            }
            ctx.write(out, promise);
        } catch (RuntimeException e) {
            promise.tryFailure(new EncoderException(e));
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        passBatchOn(ctx);
        ctx.flush();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        passBatchOn(ctx); // keeps the order of writes (unflushed, the close drops it, as before)
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        reserved = null; // a reply reserved in the batch holds a reference of its own
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }

    private void passBatchOn(ChannelHandlerContext ctx) {
        settleReserved(ctx);
        ByteBuf b = batch;
        if (b == null) return;
        batch = null;
        if (b.isReadable()) ctx.write(b, ctx.voidPromise());
        else b.release();
    }

    private void writeLargeBulk(ChannelHandlerContext ctx, FullBulkStringRedisMessage bulk, ChannelPromise p) {
        if (bulk instanceof FramedBulk f) { // header and CRLF are around the value in its buffer
            ctx.write(f.framed().retain(), p);
            return;
        }
        ByteBuf content = bulk.content();
        ByteBuf header = ctx.alloc().ioBuffer(16);
        bulkHeader(bulk, header);
        ctx.write(header, ctx.voidPromise());
        ctx.write(content.retain(), ctx.voidPromise());
        ByteBuf trailer = ctx.alloc().ioBuffer(2);
        crlf(trailer);
        ctx.write(trailer, p);
    }

    private static boolean isLarge(FullBulkStringRedisMessage b) {
        return !b.isNull() && b.content().readableBytes() > COPY_LIMIT;
    }

    private static boolean hasLarge(ArrayRedisMessage a) {
        if (a.isNull()) return false;
        for (RedisMessage c : a.children()) {
            if (c instanceof FullBulkStringRedisMessage b
                    ? isLarge(b)
                    : c instanceof ArrayRedisMessage x && hasLarge(x)) return true;
        }
        return false;
    }

    /**
     * Encodes {@code m} into the batch, except the contents of large bulk strings: the batch is passed
     * on before each, and the content written as it is (an MGET of long values is not copied again).
     */
    private void writeParts(ChannelHandlerContext ctx, RedisMessage m) {
        if (m instanceof FullBulkStringRedisMessage b && isLarge(b)) {
            ByteBuf content = b.content();
            bulkHeader(b, batchForWrite(ctx));
            passBatchOn(ctx);
            ctx.write(content.retain(), ctx.voidPromise());
            crlf(batchForWrite(ctx));
        } else if (m instanceof ArrayRedisMessage a && hasLarge(a)) {
            aggregateHeader(a, batchForWrite(ctx));
            for (RedisMessage c : a.children()) {
                if (flattens(a)) {
                    for (RedisMessage x : ((ArrayRedisMessage) c).children()) writeParts(ctx, x);
                } else {
                    writeParts(ctx, c);
                }
            }
        } else {
            encode(m, batchForWrite(ctx));
        }
    }

    private ByteBuf batchForWrite(ChannelHandlerContext ctx) {
        if (batch == null) batch = ctx.alloc().ioBuffer(256);
        return batch;
    }

    /** About how many bytes {@code m} takes encoded. */
    static int estimate(RedisMessage m) {
        if (m instanceof FullBulkStringRedisMessage b)
            return b.isNull() ? 5 : b.content().readableBytes() + 16;
        if (m instanceof ArrayRedisMessage a) {
            int n = 16;
            for (RedisMessage c : a.children()) n += estimate(c);
            return n;
        }
        return 32;
    }

    private void encode(RedisMessage m, ByteBuf out) {
        if (m instanceof SimpleStringRedisMessage s) {
            out.writeByte('+');
            ByteBufUtil.writeUtf8(out, s.content());
            crlf(out);
        } else if (m instanceof ErrorRedisMessage e) {
            out.writeByte('-');
            ByteBufUtil.writeUtf8(out, e.content());
            crlf(out);
        } else if (m instanceof IntegerRedisMessage i) {
            out.writeByte(':');
            writeLong(out, i.value());
            crlf(out);
        } else if (m instanceof FullBulkStringRedisMessage b) {
            if (b.isNull()) {
                out.writeBytes(resp3 ? NULL : NULL_BULK);
            } else {
                ByteBuf c = b.content();
                bulkHeader(b, out);
                out.writeBytes(c, c.readerIndex(), c.readableBytes());
                crlf(out);
            }
        } else if (m instanceof ArrayRedisMessage a) {
            if (a.isNull()) {
                out.writeBytes(resp3 ? NULL : NULL_ARRAY);
            } else {
                if (a instanceof TypedReplies.Hello h && h.protocol != 0) resp3 = h.protocol == 3;
                aggregateHeader(a, out);
                for (RedisMessage c : a.children()) {
                    if (flattens(a)) {
                        for (RedisMessage x : ((ArrayRedisMessage) c).children()) encode(x, out);
                    } else {
                        encode(c, out);
                    }
                }
            }
        } else if (m instanceof TypedReplies.DoubleReply d) {
            String text = d.text();
            if (resp3) {
                out.writeByte(',');
            } else {
                out.writeByte('$');
                writeLong(out, text.length());
                crlf(out);
            }
            ByteBufUtil.writeAscii(out, text);
            crlf(out);
        } else if (m instanceof TypedReplies.ResetReply) {
            resp3 = false;
            out.writeBytes(TypedReplies.ResetReply.BYTES);
        } else if (m instanceof TypedReplies.BooleanReply b) {
            if (resp3) out.writeByte('#').writeByte(b.value() ? 't' : 'f');
            else out.writeByte(':').writeByte(b.value() ? '1' : '0');
            crlf(out);
        } else if (m instanceof TypedReplies.BigNumberReply n) {
            if (resp3) {
                out.writeByte('(');
            } else {
                out.writeByte('$');
                writeLong(out, n.digits().length());
                crlf(out);
            }
            ByteBufUtil.writeAscii(out, n.digits());
            crlf(out);
        } else {
            throw new IllegalArgumentException("cannot encode " + m.getClass().getName());
        }
    }

    /** A bulk string's header; a verbatim string's in RESP3 ({@code =}, its length with {@code txt:}, the prefix). */
    private void bulkHeader(FullBulkStringRedisMessage b, ByteBuf out) {
        int length = b.content().readableBytes();
        if (resp3 && b instanceof TypedReplies.VerbatimReply) {
            out.writeByte('=');
            writeLong(out, length + TypedReplies.VerbatimReply.PREFIX.length);
            crlf(out);
            out.writeBytes(TypedReplies.VerbatimReply.PREFIX);
        } else {
            out.writeByte('$');
            writeLong(out, length);
            crlf(out);
        }
    }

    /** An aggregate's type and length in the connection's protocol (RESP2: every one an array). */
    private void aggregateHeader(ArrayRedisMessage a, ByteBuf out) {
        if (a instanceof TypedReplies.SeveralReplies) return; // only the replies, one after the other
        int n = a.children().size();
        if (!resp3) {
            out.writeByte('*');
            writeLong(out, a instanceof TypedReplies.PairsReply ? 2L * n : n);
        } else if (a instanceof TypedReplies.MapReply) {
            out.writeByte('%');
            writeLong(out, n / 2);
        } else {
            out.writeByte(a instanceof TypedReplies.SetReply ? '~' : a instanceof TypedReplies.PushReply ? '>' : '*');
            writeLong(out, n);
        }
        crlf(out);
    }

    /** True if {@code a}'s children are pairs written one after the other (pairs in RESP2). */
    private boolean flattens(ArrayRedisMessage a) {
        return !resp3 && a instanceof TypedReplies.PairsReply;
    }

    private static final byte[] NULL = {'_', '\r', '\n'};
    private static final byte[] NULL_BULK = {'$', '-', '1', '\r', '\n'};
    private static final byte[] NULL_ARRAY = {'*', '-', '1', '\r', '\n'};

    private static void writeLong(ByteBuf out, long v) {
        if (v >= 0 && v < 10) {
            out.writeByte('0' + (int) v);
        } else {
            ByteBufUtil.writeAscii(out, Long.toString(v));
        }
    }

    private static final int CRLF = ('\r' << 8) | '\n';

    private static void crlf(ByteBuf out) {
        out.writeShort(CRLF);
    }
}
