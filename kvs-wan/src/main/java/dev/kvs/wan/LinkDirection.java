package dev.kvs.wan;

import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One direction of a link: the wire every connection's chunks cross in turn, and the buffer that
 * bounds the bytes queued in that direction. Confined to the link's event loop, except the stats
 * fields, which only that thread writes.
 */
final class LinkDirection {
    /** Largest chunk: the grain at which connections interleave on the wire. */
    static final int MAX_CHUNK_BYTES = 16 * 1024;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final EventLoop loop;
    private final boolean fair;
    private final long bufferBytes;
    private final long lowWater;
    /** The largest read: a sender is stopped when the buffer has no room left for one more. */
    final int chunkBytes;

    private long delayNanos;
    private long bitsPerSecond;
    private boolean paused;
    /** When the chunk on the wire has been serialized (System.nanoTime). */
    private long wireFreeAt = System.nanoTime();

    /** FIFO: one entry per waiting chunk, in arrival order. FAIR: busy flows, in round-robin order. */
    private final ArrayDeque<Flow> turns = new ArrayDeque<>();

    private final Set<Flow> flows = new LinkedHashSet<>();
    private final List<Flow> stalled = new ArrayList<>();
    private ScheduledFuture<?> wake;
    /** When the last pause ended: chunks due before then were held by it, not late. */
    private long resumedAt = System.nanoTime();

    private final LatenessHistogram lateness = new LatenessHistogram();

    private volatile long queued;
    private volatile long peakQueued;
    private volatile long relayed;
    private volatile int stalledCount;

    LinkDirection(EventLoop loop, WanLink.Queueing queueing, int bufferBytes, long delayNanos, long bitsPerSecond) {
        this.loop = loop;
        this.fair = queueing == WanLink.Queueing.FAIR;
        this.bufferBytes = bufferBytes;
        this.chunkBytes = Math.min(MAX_CHUNK_BYTES, bufferBytes);
        this.lowWater = Math.min(bufferBytes / 2, bufferBytes - chunkBytes);
        this.delayNanos = delayNanos;
        this.bitsPerSecond = bitsPerSecond;
    }

    void add(Flow flow) {
        flows.add(flow);
    }

    /** {@code flow} will send nothing more. */
    void remove(Flow flow) {
        flows.remove(flow);
        if (flow.stalled) {
            flow.stalled = false;
            stalled.remove(flow);
            stalledCount = stalled.size();
        }
    }

    /** {@code chunk} was read from {@code flow}'s source. */
    void arrive(Flow flow, Chunk chunk) {
        flow.waiting.add(chunk);
        if (!fair) {
            turns.add(flow);
        } else if (!flow.hasTurn) {
            flow.hasTurn = true;
            turns.add(flow);
        }
        if (chunk.bytes > 0) {
            flow.queued += chunk.bytes;
            long q = queued + chunk.bytes;
            queued = q;
            if (q > peakQueued) peakQueued = q;
        }
        serve();
        if (queued + chunkBytes > bufferBytes) pushBack(flow);
    }

    /**
     * Puts waiting chunks on the wire. FIFO decides at once, as arrival order is final; FAIR decides
     * when the wire is free, as a later chunk of another connection may take the next turn.
     */
    private void serve() {
        if (paused) return;
        long now = System.nanoTime();
        while (!turns.isEmpty()) {
            if (fair && bitsPerSecond > 0 && wireFreeAt - now > 0) {
                if (wake == null) wake = loop.schedule(this::wake, wireFreeAt - now, TimeUnit.NANOSECONDS);
                return;
            }
            Flow flow = turns.poll();
            Chunk chunk = flow.waiting.poll();
            if (chunk == null) { // a discarded flow
                flow.hasTurn = false;
                continue;
            }
            if (fair) {
                if (flow.waiting.isEmpty()) flow.hasTurn = false;
                else turns.add(flow);
            }
            long sentAt = chunk.arrivedAt;
            if (bitsPerSecond > 0) {
                long start = wireFreeAt - sentAt > 0 ? wireFreeAt : sentAt;
                wireFreeAt = start + serializationNanos(chunk.bytes);
                sentAt = wireFreeAt;
            }
            flow.propagate(chunk, sentAt + delayNanos);
        }
    }

    private void wake() {
        wake = null;
        serve();
    }

    /** Rounded up, so that a transfer never beats {@code bytes * 8 / bitsPerSecond}. */
    private long serializationNanos(int bytes) {
        long bitNanos = bytes * 8L * NANOS_PER_SECOND; // at most 2^17 * 10^9: no overflow
        long nanos = bitNanos / bitsPerSecond;
        return nanos * bitsPerSecond < bitNanos ? nanos + 1 : nanos;
    }

    /** The buffer has no room for another chunk after a read from {@code reader}: stop senders. */
    private void pushBack(Flow reader) {
        if (!fair) {
            stall(reader);
            return;
        }
        // like fq_codel dropping from the fattest queue: connections above their share stop
        int busy = 0;
        for (Flow f : flows) {
            if (f.queued > 0) busy++;
        }
        long share = bufferBytes / Math.max(1, busy);
        for (Flow f : flows) {
            if (f.queued + chunkBytes > share) stall(f);
        }
    }

    private void stall(Flow flow) {
        if (flow.stalled || !flow.isOpen() || !flow.source.isActive()) return;
        flow.stalled = true;
        flow.source.config().setAutoRead(false);
        stalled.add(flow);
        stalledCount = stalled.size();
    }

    /** A write of {@code bytes} from {@code flow} to its destination completed, or failed. */
    void written(Flow flow, int bytes, boolean success) {
        if (success) relayed += bytes;
        dropped(flow, bytes);
    }

    /** {@code bytes} of {@code flow} left the link. */
    void dropped(Flow flow, long bytes) {
        if (bytes == 0) return;
        flow.queued -= bytes;
        queued -= bytes;
        if (!stalled.isEmpty() && queued <= lowWater) {
            for (Flow f : stalled) {
                f.stalled = false;
                f.source.config().setAutoRead(true);
            }
            stalled.clear();
            stalledCount = 0;
        }
    }

    /** A chunk due at {@code deliverAt} was written to its receiver at {@code now}. */
    void delivered(long deliverAt, long now) {
        if (deliverAt - resumedAt >= 0) lateness.record(now - deliverAt);
    }

    void delayNanos(long nanos) {
        delayNanos = nanos;
    }

    void bitsPerSecond(long bps) {
        bitsPerSecond = bps;
        serve();
    }

    boolean isPaused() {
        return paused;
    }

    void pause() {
        paused = true;
    }

    /** Ends a pause: the wire was idle during it; delivers what is due. */
    void resume() {
        if (!paused) return;
        paused = false;
        long now = System.nanoTime();
        resumedAt = now;
        if (wireFreeAt - now < 0) wireFreeAt = now;
        serve();
        for (Flow f : List.copyOf(flows)) f.kick();
    }

    WanLinkStats.Direction stats() {
        return new WanLinkStats.Direction(relayed, queued, peakQueued, stalledCount, lateness.snapshot());
    }
}
