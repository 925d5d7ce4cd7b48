package dev.kvs.replication.primary;

import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.ValueChunk;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ships values on the value streams, on its own thread. Each round it batches small values (up to the
 * batch size, waiting at most the linger for more) and sends one chunk of every large value in
 * progress (at most one per stream), so a 10 MiB value advances chunk by chunk without holding back the small values queued
 * behind it. Reads the current value from the store at send time (conflation). Every frame waits for
 * the {@link FlowController}'s window and pacing, and is cut to its quantum, so value bytes never
 * build a queue in front of the key packets; then the rate cap, then each stream's write buffer
 * (backpressure).
 */
final class ValueShipper implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ValueShipper.class);

    private final PrimaryLink link;
    private final List<ValueChannel> streams;
    private final List<Large> large = new ArrayList<>();
    private final AtomicLong valuesShipped = new AtomicLong();
    private final AtomicLong bytesShipped = new AtomicLong();
    private final RateLimiter rate;
    private volatile boolean running = true;
    private int nextStream;

    /** A value being sent chunk by chunk on one stream. */
    private static final class Large {
        final TxId txId;
        final byte[] key;
        final byte[] value;
        final int checksum;
        final long expireAt;
        final ValueChannel stream;
        int offset;

        Large(TxId txId, byte[] key, byte[] value, int checksum, long expireAt, ValueChannel stream) {
            this.txId = txId;
            this.key = key;
            this.value = value;
            this.checksum = checksum;
            this.expireAt = expireAt;
            this.stream = stream;
        }
    }

    ValueShipper(PrimaryLink link, List<ValueChannel> streams) {
        this.link = link;
        this.streams = streams;
        this.rate = new RateLimiter(link.config().valueRateBytesPerSecond());
    }

    long valuesShipped() {
        return valuesShipped.get();
    }

    long bytesShipped() {
        return bytesShipped.get();
    }

    FlowControlStatus flowControlStatus() {
        return link.flow().status(System.nanoTime());
    }

    void stop() {
        running = false;
        link.flow().waiter(null);
    }

    @Override
    public void run() {
        link.flow().waiter(Thread.currentThread());
        while (running) {
            try {
                round();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("value shipper error; continuing", e);
                LockSupport.parkNanos(10_000_000);
            }
        }
    }

    private void round() throws InterruptedException {
        if (streams.stream().noneMatch(ValueChannel::ready)) {
            for (Large l : large) link.pending().requeue(l.key);
            large.clear();
            LockSupport.parkNanos(5_000_000);
            return;
        }
        List<ValueChunk> batch = new ArrayList<>();
        int batchBytes = 0;
        long lingerNanos = link.config().valueLinger().toNanos();
        long deadline = 0;
        int quantum = link.flow().quantum();
        int batchLimit = Math.min(link.config().valueBatchBytes(), quantum);
        while (batchBytes < batchLimit) {
            long wait;
            if (batch.isEmpty()) wait = large.isEmpty() ? 50_000_000L : 0;
            else wait = Math.max(0, deadline - System.nanoTime());
            byte[] key = link.pending().poll(wait);
            if (key == null) break;
            if (large.size() >= streams.size() && link.pending().newestLength(key) > quantum) {
                // one large value in progress per stream: values complete in turn rather than all
                // at once, which would hold every one of them half-assembled on the backup
                link.pending().requeue(key);
                break;
            }
            ValueChunk small = prepare(key, quantum);
            if (small != null) {
                // like Nagle's algorithm: on an idle link a value leaves at once (a sync write waits for
                // it, and so does the time until the backup holds it); while earlier values are still
                // unacknowledged, the batch waits up to the linger for more to share its frame
                if (batch.isEmpty()) deadline = System.nanoTime() + (linkIdle() ? 0 : lingerNanos);
                batch.add(small);
                batchBytes += small.data().length + key.length + 48;
            }
        }
        if (!batch.isEmpty()) {
            ValueChannel s = pickStream();
            if (s == null) {
                link.pending().requeueInFlight();
                return;
            }
            if (send(s, batch)) valuesShipped.addAndGet(batch.size());
        }
        for (Iterator<Large> it = large.iterator(); it.hasNext(); ) {
            Large l = it.next();
            Channel ch = l.stream.channel();
            if (!l.stream.ready() || ch == null) {
                it.remove();
                link.pending().requeue(l.key); // its stream dropped: start it again on another
                continue;
            }
            int n = Math.min(Math.min(link.config().chunkBytes(), link.flow().quantum()), l.value.length - l.offset);
            byte[] data = Arrays.copyOfRange(l.value, l.offset, l.offset + n);
            ValueChunk c =
                    new ValueChunk(l.txId, Op.PUT, l.key, l.value.length, l.checksum, l.offset, data, l.expireAt);
            send(l.stream, List.of(c));
            l.offset += n;
            if (l.offset == l.value.length) {
                it.remove();
                valuesShipped.incrementAndGet();
            }
        }
    }

    /** True if no value is in flight: nothing shipped awaits its ack and no large value is under way. */
    private boolean linkIdle() {
        return large.isEmpty() && link.pending().inFlight() <= 1; // 1: the value just prepared
    }

    /** Reads the key's current value; returns it as one chunk if small, else starts sending it in chunks. */
    private ValueChunk prepare(byte[] key, int quantum) {
        TxId newest = link.pending().newest(key);
        if (newest == null) return null; // acknowledged meanwhile
        StoredValue v = link.store().get(key);
        if (v != null && v.state() == RecordState.COMPLETE) {
            if (v.txId().isBefore(newest)) {
                // the tracker is ahead of what we read: a write is racing us; take it next round
                link.pending().requeue(key);
                return null;
            }
            byte[] value = v.value();
            if (value.length > Math.min(link.config().chunkBytes(), quantum)) {
                ValueChannel s = pickStream();
                if (s == null) {
                    link.pending().requeue(key); // every stream is down: ship it when one is back
                    return null;
                }
                link.pending().shipped(key, v.txId());
                large.add(new Large(v.txId(), key, value, v.header().checksum(), v.expireAtMillis(), s));
                return null;
            }
            link.pending().shipped(key, v.txId());
            return new ValueChunk(
                    v.txId(), Op.PUT, key, value.length, v.header().checksum(), 0, value, v.expireAtMillis());
        }
        // no record: the newest write of the key was a delete; ship its tombstone
        TxId txId = v == null ? newest : v.txId();
        link.pending().shipped(key, txId);
        return new ValueChunk(txId, Op.DELETE, key, 0, 0, 0, new byte[0]);
    }

    private ValueChannel pickStream() {
        for (int i = 0; i < streams.size(); i++) {
            ValueChannel s = streams.get(Math.floorMod(nextStream++, streams.size()));
            if (s.ready()) return s;
        }
        return null;
    }

    /** Sends {@code chunks} as one frame on {@code stream} once the flow control lets it go. */
    private boolean send(ValueChannel stream, List<ValueChunk> chunks) throws InterruptedException {
        int bytes = FrameCodec.encodedSize(new Frame.ValueBatch(chunks));
        FlowController flow = link.flow();
        while (true) {
            long now = System.nanoTime();
            long at = flow.sendAt(bytes, now);
            if (at - now <= 0) break;
            LockSupport.parkNanos(at - now); // a receipt unparks it sooner
            if (Thread.interrupted()) throw new InterruptedException();
            if (!running) return false;
        }
        rate.acquire(bytes);
        Channel ch = stream.channel();
        if (ch == null) return false; // dropped meanwhile: what it carried is requeued by the drop
        long now = System.nanoTime();
        flow.sent(stream.stream(), bytes, now);
        ch.writeAndFlush(new Frame.ValueBatch(now, chunks));
        bytesShipped.addAndGet(bytes);
        while (running && ch.isActive() && !ch.isWritable()) LockSupport.parkNanos(200_000);
        if (Thread.interrupted()) throw new InterruptedException();
        return true;
    }
}
