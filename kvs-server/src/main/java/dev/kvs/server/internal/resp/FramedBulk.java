package dev.kvs.server.internal.resp;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import java.nio.charset.StandardCharsets;

/**
 * The bulk string reply of a long value that the store copied into a buffer with room around it
 * ({@link DirectValues}): the buffer holds the reply whole, {@code $<length>\r\n}, the value, {@code
 * \r\n}, so the encoder writes it as one buffer (one allocation, one leak-detector track, one entry of
 * the outbound buffer and one iovec per reply, not three). Anywhere else it is the plain bulk string
 * of its content, a slice of that buffer sharing its reference count.
 */
final class FramedBulk extends FullBulkStringRedisMessage {
    /** Room before a value for its header: {@code $}, at most 10 digits, CRLF. */
    static final int HEADER_ROOM = 16;
    /** Room after a value for its CRLF. */
    static final int TRAILER_ROOM = 2;

    private final ByteBuf framed;

    private FramedBulk(ByteBuf framed, ByteBuf content) {
        super(content);
        this.framed = framed;
    }

    /**
     * The reply of the value in {@code buffer}'s bytes {@code [HEADER_ROOM, HEADER_ROOM + length)}; the
     * buffer holds at least {@code HEADER_ROOM + length + TRAILER_ROOM} bytes, and the reply owns it.
     */
    static FramedBulk of(ByteBuf buffer, int length) {
        byte[] digits = Integer.toString(length).getBytes(StandardCharsets.US_ASCII);
        int start = HEADER_ROOM - 3 - digits.length;
        buffer.setByte(start, '$');
        buffer.setBytes(start + 1, digits);
        buffer.setByte(HEADER_ROOM - 2, '\r');
        buffer.setByte(HEADER_ROOM - 1, '\n');
        buffer.setByte(HEADER_ROOM + length, '\r');
        buffer.setByte(HEADER_ROOM + length + 1, '\n');
        buffer.setIndex(start, HEADER_ROOM + length + TRAILER_ROOM);
        return new FramedBulk(buffer, buffer.slice(HEADER_ROOM, length));
    }

    /**
     * The whole encoded reply, from its reader index: shares the reference count of {@link #content()}
     * (retain it to pass it on).
     */
    ByteBuf framed() {
        return framed;
    }
}
