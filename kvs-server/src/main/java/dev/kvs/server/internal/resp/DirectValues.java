package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.ValueRead;
import dev.kvs.core.ValueSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Replies of values without a heap copy. The store ({@link KvStore#readValue}) copies a value longer
 * than {@link RespReplyEncoder#COPY_LIMIT} straight into a pooled direct buffer, which becomes the
 * reply's content and is written to the socket as it is (one copy: store, direct buffer, socket; no
 * value-sized array). The buffer has room for the reply's header and CRLF around the value ({@link
 * FramedBulk}), so the reply goes out as that one buffer. A shorter value of one GET goes straight into
 * the connection's reply batch ({@link RespReplyEncoder#reserve}, a {@link BatchedBulk}), where its
 * header and CRLF are written around it (one copy: store, batch, socket); without the encoder (off its
 * event loop, a script's GET, MGET) it comes back as an array, as from {@code get}, and is copied into
 * the reply batch. One instance per command, on its thread.
 *
 * <p>Reference counting: every buffer handed to the store is owned here until {@link #bulk} turns it
 * into a reply (which the encoder, or whoever drops the reply, releases); a caller that does not reply
 * with a read's value calls {@link #skip}, and on an exception {@link #releaseAll}.
 */
final class DirectValues implements ValueSink {
    private final ByteBufAllocator alloc;
    /** True for {@link KvStore#readAll} (one buffer per value, in order); false for one readValue. */
    private final boolean many;
    /** Where one read's short value goes; null: into an array. */
    private final RespReplyEncoder replies;
    /**
     * Buffers the store filled (or is filling), in the order of the reads; not yet replied with. Made
     * on the first buffer: a short value (most GETs) needs none.
     */
    private ArrayDeque<ByteBuf> filled;
    /** The reply batch's room the store copied (or is copying) a short value into; null if none. */
    private BatchedBulk reserved;

    private DirectValues(ByteBufAllocator alloc, boolean many, RespReplyEncoder replies) {
        this.alloc = alloc;
        this.many = many;
        this.replies = replies;
    }

    /** For one {@link KvStore#readValue}, with the buffers of {@code alloc}. */
    static DirectValues one(ByteBufAllocator alloc) {
        return new DirectValues(alloc, false, null);
    }

    /**
     * For one {@link KvStore#readValue}, with the buffers of {@code alloc}, a short value read into the
     * reply batch of {@code replies} (may be null: into an array).
     */
    static DirectValues one(ByteBufAllocator alloc, RespReplyEncoder replies) {
        return new DirectValues(alloc, false, replies);
    }

    /** For one {@link KvStore#readAll}, with the buffers of {@code alloc}. */
    static DirectValues many(ByteBufAllocator alloc) {
        return new DirectValues(alloc, true, null);
    }

    @Override
    public ByteBuffer buffer(int length) {
        if (length <= RespReplyEncoder.COPY_LIMIT) {
            if (replies == null) return null;
            releaseReserved(); // the store read again (the record was replaced): the last room wins
            reserved = replies.reserve(length);
            return reserved == null ? null : reserved.valueBuffer();
        }
        if (!many) releaseAll(); // the store read again (the record was replaced): the last buffer wins
        int framed = FramedBulk.HEADER_ROOM + length + FramedBulk.TRAILER_ROOM;
        ByteBuf b = alloc.directBuffer(framed, framed); // room for the reply's header and CRLF around the value
        if (filled == null) filled = new ArrayDeque<>(2);
        filled.add(b);
        return b.nioBuffer(FramedBulk.HEADER_ROOM, length);
    }

    /** The bulk reply of complete read {@code r} (the next read in order if several). */
    RedisMessage bulk(ValueRead r) {
        if (!r.inBuffer()) return Replies.bulk(r.value());
        if (reserved != null && r.header().valueLength() <= RespReplyEncoder.COPY_LIMIT) {
            BatchedBulk b = reserved;
            reserved = null;
            return b;
        }
        ByteBuf buffer = filled == null ? null : filled.poll();
        if (buffer == null) throw new IllegalStateException("no buffer for a read the store copied into one");
        return FramedBulk.of(buffer, buffer.capacity() - FramedBulk.HEADER_ROOM - FramedBulk.TRAILER_ROOM);
    }

    /** Releases the buffer of read {@code r} (may be null), which is not replied with. */
    void skip(ValueRead r) {
        releaseReserved();
        if (r != null && r.inBuffer() && r.header().valueLength() > RespReplyEncoder.COPY_LIMIT) {
            ByteBuf b = filled == null ? null : filled.poll();
            if (b != null) b.release();
        }
    }

    /** Releases every buffer not yet replied with. */
    void releaseAll() {
        releaseReserved();
        if (filled == null) return;
        ByteBuf b;
        while ((b = filled.poll()) != null) b.release();
    }

    private void releaseReserved() {
        if (reserved != null) {
            reserved.release();
            reserved = null;
        }
    }
}
