package dev.kvs.replication.wire;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * A received frame breaks the wire format: bad length, version or type, a field running past the
 * end of its frame, bytes left over, or values the frame's record rejects. The message quotes the
 * offending value. After throwing it the {@link FrameDecoder} ignores everything else the
 * connection delivers: the connection must be closed.
 */
public final class FrameException extends CorruptedFrameException {
    private static final long serialVersionUID = 1L;

    public FrameException(String message) {
        super(message);
    }

    public FrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
