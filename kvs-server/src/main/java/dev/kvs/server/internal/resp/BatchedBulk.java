package dev.kvs.server.internal.resp;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The bulk string reply of a short value that the store copied straight into the reply batch of the
 * connection's {@link RespReplyEncoder}, past what the batch already holds ({@link
 * RespReplyEncoder#reserve}): its header, value and CRLF are there, encoded, so if it is the next
 * reply written the encoder only moves its writer index over them (one copy of the value: store,
 * batch, socket). Anywhere else (a reply held behind one that waits for replication, an EXEC's array,
 * a script) it is the plain bulk string of its content, a slice of that batch which holds a reference
 * to it, and is copied as any other; the encoder never writes over the bytes of a reply that is still
 * referenced, and passes on a batch holding one only as a slice of its written bytes. Created and
 * written on the connection's event loop.
 */
final class BatchedBulk extends FullBulkStringRedisMessage {
    /** The batch the reply was reserved in. */
    final ByteBuf batch;
    /** Where its encoded bytes start and end in {@link #batch}. */
    final int start;

    final int end;
    private static final AtomicIntegerFieldUpdater<BatchedBulk> REFERENCES =
            AtomicIntegerFieldUpdater.newUpdater(BatchedBulk.class, "references");

    /**
     * References held by whoever holds the reply (its content's count is the whole batch's): 0 once
     * released, when the encoder may reuse its bytes. A dropped reply may be released on another thread.
     */
    private volatile int references = 1;

    /**
     * The reply of the {@code length} bytes at {@code valueStart} of {@code batch}, encoded in
     * {@code [start, end)}; takes a reference to the batch.
     */
    BatchedBulk(ByteBuf batch, int start, int valueStart, int length, int end) {
        super(batch.retainedSlice(valueStart, length));
        this.batch = batch;
        this.start = start;
        this.end = end;
    }

    /** The value's bytes, for the store to copy into (from position 0, {@code length} bytes). */
    ByteBuffer valueBuffer() {
        ByteBuf c = content();
        return c.nioBuffer(c.readerIndex(), c.readableBytes());
    }

    /** True once every holder released it: nobody reads its bytes any more. */
    boolean released() {
        return references == 0;
    }

    @Override
    public BatchedBulk retain() {
        REFERENCES.incrementAndGet(this);
        super.retain();
        return this;
    }

    @Override
    public BatchedBulk retain(int increment) {
        REFERENCES.addAndGet(this, increment);
        super.retain(increment);
        return this;
    }

    @Override
    public boolean release() {
        return release(1);
    }

    @Override
    public boolean release(int decrement) {
        boolean freed = super.release(decrement);
        REFERENCES.addAndGet(this, -decrement);
        return freed;
    }
}
