package dev.kvs.replication.primary;

import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.ValueChunk;
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
 * progress, so a 10 MiB value advances chunk by chunk without holding back the small values queued
 * behind it. Reads the current value from the store at send time (conflation). Honors the rate cap
 * and each stream's write buffer (backpressure).
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
        final ValueChannel stream;
        int offset;

        Large(TxId txId, byte[] key, byte[] value, int checksum, ValueChannel stream) {
            this.txId = txId;
            this.key = key;
            this.value = value;
            this.checksum = checksum;
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

    void stop() {
        running = false;
    }

    @Override
    public void run() {
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
        while (batchBytes < link.config().valueBatchBytes()) {
            long wait;
            if (batch.isEmpty()) wait = large.isEmpty() ? 50_000_000L : 0;
            else wait = Math.max(0, deadline - System.nanoTime());
            byte[] key = link.pending().poll(wait);
            if (key == null) break;
            ValueChunk small = prepare(key);
            if (small != null) {
                if (batch.isEmpty()) deadline = System.nanoTime() + lingerNanos;
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
            send(s.channel(), new Frame.ValueBatch(batch), batchBytes);
            valuesShipped.addAndGet(batch.size());
        }
        for (Iterator<Large> it = large.iterator(); it.hasNext(); ) {
            Large l = it.next();
            Channel ch = l.stream.channel();
            if (!l.stream.ready() || ch == null) {
                it.remove();
                link.pending().requeue(l.key); // its stream dropped: start it again on another
                continue;
            }
            int n = Math.min(link.config().chunkBytes(), l.value.length - l.offset);
            byte[] data = Arrays.copyOfRange(l.value, l.offset, l.offset + n);
            ValueChunk c = new ValueChunk(l.txId, Op.PUT, l.key, l.value.length, l.checksum, l.offset, data);
            send(ch, new Frame.ValueBatch(List.of(c)), n + l.key.length + 48);
            l.offset += n;
            if (l.offset == l.value.length) {
                it.remove();
                valuesShipped.incrementAndGet();
            }
        }
    }

    /** Reads the key's current value; returns it as one chunk if small, else starts sending it in chunks. */
    private ValueChunk prepare(byte[] key) {
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
            if (value.length > link.config().chunkBytes()) {
                ValueChannel s = pickStream();
                if (s == null) {
                    link.pending().requeue(key); // every stream is down: ship it when one is back
                    return null;
                }
                link.pending().shipped(key, v.txId());
                large.add(new Large(v.txId(), key, value, v.header().checksum(), s));
                return null;
            }
            link.pending().shipped(key, v.txId());
            return new ValueChunk(
                    v.txId(), Op.PUT, key, value.length, v.header().checksum(), 0, value);
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

    private void send(Channel ch, Frame f, int bytes) throws InterruptedException {
        rate.acquire(bytes);
        ch.writeAndFlush(f);
        bytesShipped.addAndGet(bytes);
        while (running && ch.isActive() && !ch.isWritable()) LockSupport.parkNanos(200_000);
        if (Thread.interrupted()) throw new InterruptedException();
    }
}
