package dev.kvs.wan;

import io.netty.buffer.ByteBuf;

/** Bytes read from a sender in one go, or the end of its stream ({@code buf == null}). */
final class Chunk {
    final ByteBuf buf;
    final int bytes;
    final long arrivedAt;
    long deliverAt;

    private Chunk(ByteBuf buf, int bytes, long arrivedAt) {
        this.buf = buf;
        this.bytes = bytes;
        this.arrivedAt = arrivedAt;
    }

    static Chunk of(ByteBuf buf, long arrivedAt) {
        return new Chunk(buf, buf.readableBytes(), arrivedAt);
    }

    static Chunk end(long arrivedAt) {
        return new Chunk(null, 0, arrivedAt);
    }

    boolean isEnd() {
        return buf == null;
    }
}
