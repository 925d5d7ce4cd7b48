package dev.kvs.wan;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One direction of one connection: bytes read from {@code source}, waiting for the wire of
 * their {@link LinkDirection}, then propagating until their delivery time, then written to {@code destination}. Confined to the link's
 * event loop.
 */
final class Flow {
    final LinkDirection direction;
    final Channel source;
    final Channel destination;

    /** Chunks waiting for the wire, oldest first. */
    final ArrayDeque<Chunk> waiting = new ArrayDeque<>();
    /** Chunks that left the wire, by delivery time (which never decreases along the queue). */
    private final ArrayDeque<Chunk> propagating = new ArrayDeque<>();

    /** Bytes read and not yet written to {@code destination}'s socket. */
    long queued;
    /** Whether the direction has stopped reading from {@code source}. */
    boolean stalled;
    /** Whether this flow has a turn in the wire's round robin ({@link WanLink.Queueing#FAIR}). */
    boolean hasTurn;

    private boolean open = true;
    private boolean ended;
    private long lastDeliverAt;
    private ScheduledFuture<?> timer;

    Flow(LinkDirection direction, Channel source, Channel destination) {
        this.direction = direction;
        this.source = source;
        this.destination = destination;
        this.lastDeliverAt = System.nanoTime();
        direction.add(this);
    }

    /** Takes {@code buf} (and its reference) read from the source at {@code readAt}. */
    void read(ByteBuf buf, long readAt) {
        if (!open || ended || !buf.isReadable()) {
            buf.release();
            return;
        }
        direction.arrive(this, Chunk.of(buf, readAt));
    }

    /** The source closed: close the destination once every byte before this point is delivered. */
    void end() {
        if (!open || ended) return;
        ended = true;
        direction.arrive(this, Chunk.end(System.nanoTime()));
    }

    /** Called by the direction when {@code chunk} leaves it; it reaches the destination at {@code deliverAt}. */
    void propagate(Chunk chunk, long deliverAt) {
        if (deliverAt - lastDeliverAt < 0) deliverAt = lastDeliverAt; // keep byte order if the delay shrank
        lastDeliverAt = deliverAt;
        chunk.deliverAt = deliverAt;
        propagating.add(chunk);
        if (timer == null) schedule(deliverAt, System.nanoTime());
    }

    /** Delivers what is due now, replacing the pending timer: after a resume. */
    void kick() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        deliver();
    }

    /** Writes every chunk that is due, with one flush, and sets the timer for the next one. */
    private void deliver() {
        timer = null;
        if (!open || direction.isPaused()) return;
        long now = System.nanoTime();
        boolean wrote = false;
        Chunk c;
        while ((c = propagating.peek()) != null && c.deliverAt - now <= 0) {
            propagating.poll();
            if (c.isEnd()) {
                open = false;
                direction.remove(this);
                // after the writes before it: close() would discard them
                destination.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            direction.delivered(c.deliverAt, now);
            int n = c.bytes;
            destination.write(c.buf).addListener(f -> direction.written(this, n, f.isSuccess()));
            wrote = true;
        }
        if (wrote) destination.flush();
        if (c != null) schedule(c.deliverAt, now);
    }

    /** Drops every queued byte: the connection is gone. Idempotent. */
    void discard() {
        if (!open) return;
        open = false;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        long dropped = drain(waiting) + drain(propagating);
        direction.dropped(this, dropped);
        direction.remove(this);
    }

    boolean isOpen() {
        return open;
    }

    private static long drain(ArrayDeque<Chunk> chunks) {
        long bytes = 0;
        for (Chunk c; (c = chunks.poll()) != null; ) {
            if (c.buf != null) c.buf.release();
            bytes += c.bytes;
        }
        return bytes;
    }

    private void schedule(long at, long now) {
        timer = destination.eventLoop().schedule(this::deliver, at - now, TimeUnit.NANOSECONDS);
    }
}
