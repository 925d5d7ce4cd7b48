package dev.kvs.replication.primary;

import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.ValueChunk;
import dev.kvs.replication.wire.FrameCodec;
import dev.kvs.replication.wire.StagedChunkFrame;
import dev.kvs.replication.wire.ValueChunkFrame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Ships values on the value streams, on its own thread. Each round it batches small values (up to the
 * batch size, holding the batch at most the linger for more, from round to round while other work goes on)
 * and sends one chunk of every large value in
 * progress (at most one per stream), so a 10 MiB value advances chunk by chunk without holding back the small values queued
 * behind it. Reads the current value from the store at send time (conflation). A large value is read
 * chunk by chunk, each chunk straight from the store into its frame's pooled direct buffer (one copy
 * from the store to the wire, no value-sized array); if the key is rewritten between two of its chunks
 * (the record's TxId changed), the value is abandoned, the backup told to drop its part (a cancel
 * chunk), and the key ships again with its newer value. A hash or set ships as its canonical image
 * ({@link dev.kvs.core.KvStore#image}, read whole under the key's lock when its turn comes: O(size) per
 * shipment, conflated like any value), as one chunk or chunk by chunk from that copy, abandoned the same
 * way if the key is rewritten meanwhile. Every frame waits for
 * the {@link FlowController}'s window and pacing, and is cut to its quantum, so value bytes never
 * build a queue in front of the key packets; then the rate cap, then each stream's write buffer
 * (backpressure).
 *
 * <p>When no batch would linger (no value in flight or under way, values arriving further apart than the
 * linger, or a sync write waiting for the first value queued) the replication event loop ships small values
 * itself, and (but for a sync write on a busy link) the first chunk of a large one, right after the key packets
 * of the same writes ({@link #shipNow}): the value leaves without waking this thread, whose wake-up was most of
 * the time from a write's commit to its value's departure. Everything else (a busy link's lingering batches and
 * its large values; a large value's other chunks; waits for the window, the rate cap or a writable stream) stays
 * on this thread. A lock keeps the two from shipping at once: the thread holds it for a round, never while it waits
 * for work, and the event loop only tries it.
 *
 * <p>Cut-through: a large {@code SET}'s value registered in {@link StagedValues} while its client still sends it
 * ships on this thread as it becomes readable, one {@link Frame.StagedChunk} per round under its stage id, paced
 * like any value, while no committed value waits for the link ({@link #sendable}). When its write's turn comes ({@link #prepare}), the value continues as a large value from the
 * bytes already sent, its first frame a {@link Frame.StageBind} that gives the stage id its TxId. A value whose
 * {@code SET} was not written, or was written over before its turn, gets a {@link Frame.StageCancel}.
 *
 * <p>Whatever fails (a read of the store that throws, a frame that cannot be built or sent), no value taken off
 * the {@link PendingValues} queue is left behind, and this thread goes on: each step that takes values puts back
 * what it could not send, to ship again after a back-off ({@link ShipperFailures}, which also counts and logs
 * the failures); a frame that fails to go out resets its stream, whose drop ships again what it carried.
 */
final class ValueShipper implements Runnable {
    /** A staged value committed this long ago whose write never reached the shipper is dropped. */
    private static final long STALE_COMMIT_NANOS = 10_000_000_000L;

    private final PrimaryLink link;
    private final List<ValueChannel> streams;
    private final StagedValues staged;
    private final List<Large> large = new ArrayList<>();
    /** Chains of effects taken to ship instead of images, each in order on one stream ({@link #shipEffects}). */
    private final List<List<Frame.Effect>> effectsDue = new ArrayList<>();

    private final AtomicLong valuesShipped = new AtomicLong();
    private final AtomicLong bytesShipped = new AtomicLong();
    private final AtomicLong valuesShippedNow = new AtomicLong();
    private final AtomicLong firstChunksShippedNow = new AtomicLong();
    private final RateLimiter rate;
    private final ShipperFailures failures = new ShipperFailures();
    /** See {@link #writeFrame}. */
    private final ChannelFutureListener resetOnFailure = f -> {
        if (f.isSuccess() || !f.channel().isActive()) return;
        failures.failed(ShipperFailures.Kind.WRITE, f.cause());
        f.channel().close();
    };
    /** Held by whoever ships: a round of this thread, or {@link #shipNow}. Guards the fields below it. */
    private final ReentrantLock shipping = new ReentrantLock();

    /**
     * The batch of small values a round took and holds for the linger ({@link #round}): kept from round to round,
     * so that meanwhile the large values in progress, the effects and the staged bytes go on.
     */
    private List<ValueChunk> lingering = new ArrayList<>();
    /** The bytes of {@link #lingering}, as {@link #batchCost} counts them. */
    private int lingeringBytes;
    /** When {@link #lingering} goes, unless it fills before. */
    private long lingerDeadline;

    private volatile boolean running = true;
    private int nextStream;
    /** Rounds in a row that failed: the shipper backs off longer after each ({@link #run}). */
    private int roundFailures;

    /** A value being sent chunk by chunk on one stream, read from the store one chunk at a time. */
    private static final class Large {
        final TxId txId;
        final byte[] key;
        final int length;
        final int checksum;
        final long expireAt;
        final ValueChannel stream;
        /** {@link Op#PUT}, or the op of a structure whose image this is. */
        final Op op;
        /** A structure's image, read whole when it started (chunks are copied from it); null for a string. */
        final byte[] image;

        int offset;
        /** The stage id its first bytes went under before its commit, until its bind is sent; 0 if none. */
        long bindId;

        Large(byte[] key, RecordHeader h, ValueChannel stream) {
            this.txId = h.txId();
            this.key = key;
            this.length = h.valueLength();
            this.checksum = h.checksum();
            this.expireAt = h.expireAtMillis();
            this.stream = stream;
            this.op = Op.PUT;
            this.image = null;
        }

        Large(byte[] key, MembersImage m, int checksum, ValueChannel stream) {
            this.txId = m.header().txId();
            this.key = key;
            this.length = m.image().length;
            this.checksum = checksum;
            this.expireAt = m.header().expireAtMillis();
            this.stream = stream;
            this.op = Op.writing(m.header().type());
            this.image = m.image();
        }
    }

    /** What became of a large value's chunk. */
    private enum ChunkSent {
        SENT,
        /** The stream dropped (or the shipper stopped) before it was written: the drop requeues the key. */
        NOT_SENT,
        /** The key was rewritten (or removed) since the value's first chunk: the value is abandoned. */
        REWRITTEN
    }

    ValueShipper(PrimaryLink link, List<ValueChannel> streams) {
        this(link, streams, new StagedValues(link.pending()::signal, link.stages()));
    }

    ValueShipper(PrimaryLink link, List<ValueChannel> streams, StagedValues staged) {
        this.link = link;
        this.streams = streams;
        this.staged = staged;
        this.rate = new RateLimiter(link.config().valueRateBytesPerSecond());
    }

    long valuesShipped() {
        return valuesShipped.get();
    }

    long bytesShipped() {
        return bytesShipped.get();
    }

    /** Of {@link #valuesShipped}, those shipped by the replication event loop ({@link #shipNow}). */
    long valuesShippedNow() {
        return valuesShippedNow.get();
    }

    /** First chunks of large values sent by the replication event loop ({@link #shipNow}). */
    long firstChunksShippedNow() {
        return firstChunksShippedNow.get();
    }

    /** Failures while shipping values, of every kind; none of them left a value behind ({@link ShipperFailures}). */
    long failures() {
        return failures.count();
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
                boolean idle;
                shipping.lock();
                try {
                    idle = large.isEmpty() && effectsDue.isEmpty() && lingering.isEmpty() && !stagedDue();
                } finally {
                    shipping.unlock();
                }
                // unlocked while it waits: meanwhile the event loop may ship (shipNow), and signals it
                // if it leaves anything for this thread
                if (idle) link.pending().awaitWork(50_000_000L);
                shipping.lockInterruptibly();
                try {
                    round();
                    roundFailures = 0;
                } finally {
                    shipping.unlock();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | Error e) {
                // whatever failed, this thread goes on (nothing else ships values), after a back-off: what the
                // round had taken is put back by the round itself (each step that takes a value guards it)
                failures.failed(ShipperFailures.Kind.ROUND, e);
                LockSupport.parkNanos(ShipperFailures.backoffNanos(++roundFailures));
            }
        }
    }

    private void round() throws InterruptedException {
        for (byte[] key : failures.due(System.nanoTime())) link.pending().requeue(key);
        if (streams.stream().noneMatch(ValueChannel::ready)) {
            for (Large l : large) link.pending().requeue(l.key);
            large.clear();
            for (List<Frame.Effect> fx : effectsDue) {
                link.pending().effects().broken(fx.get(0).key());
                link.pending().requeue(fx.get(0).key());
            }
            effectsDue.clear();
            for (ValueChunk c : takeLingering()) {
                link.pending().unsent(c.txId());
                link.pending().requeue(c.key());
            }
            LockSupport.parkNanos(5_000_000);
            return;
        }
        List<ValueChunk> batch = lingering;
        long lingerNanos = link.config().valueLinger().toNanos();
        int quantum = link.flow().quantum();
        int batchLimit = Math.min(link.config().valueBatchBytes(), quantum);
        boolean stagedWork = stagedDue();
        while (lingeringBytes < batchLimit) {
            long wait;
            // run() waited for work; and a lingering batch waits here only if nothing else is due: it is kept
            // for the next round instead, so a large value in progress does not stop for the linger
            if (batch.isEmpty() || stagedWork || !large.isEmpty() || !effectsDue.isEmpty()) wait = 0;
            else wait = Math.max(0, lingerDeadline - System.nanoTime());
            byte[] key = link.pending().poll(wait);
            if (key == null) break;
            if (large.size() >= streams.size() && link.pending().newestLength(key) > quantum) {
                // one large value in progress per stream: values complete in turn rather than all
                // at once, which would hold every one of them half-assembled on the backup
                link.pending().requeue(key);
                break;
            }
            ValueChunk small = prepareOrPutBack(key, quantum, null);
            if (small != null) {
                // like Nagle's algorithm (lingers): the batch may wait up to the linger for more values to
                // share its frame. Not if a write waits for this value (sync): the batch then takes what
                // is queued now, and goes
                long now = System.nanoTime();
                if (batch.isEmpty()) lingerDeadline = now + (lingers(1, lingerNanos) ? lingerNanos : 0);
                if (lingerDeadline - now > 0 && link.pending().awaited(key)) lingerDeadline = now;
                batch.add(small);
                lingeringBytes += batchCost(small);
            }
        }
        if (!batch.isEmpty() && (lingeringBytes >= batchLimit || lingerDeadline - System.nanoTime() <= 0)) {
            batch = takeLingering();
            ValueChannel s = pickStream();
            if (s == null) {
                link.pending().requeueInFlight();
                return;
            }
            try {
                if (send(s, batch)) valuesShipped.addAndGet(batch.size());
            } catch (RuntimeException | Error e) {
                putBack(batch, e);
            }
        }
        for (Iterator<Large> it = large.iterator(); it.hasNext(); ) {
            Large l = it.next();
            Channel ch = l.stream.channel();
            if (!l.stream.ready() || ch == null) {
                it.remove();
                link.pending().requeue(l.key); // its stream dropped: start it again on another
                continue;
            }
            if (l.bindId != 0 && bind(l, ch)) { // its staged bytes were the whole value
                it.remove();
                valuesShipped.incrementAndGet();
                continue;
            }
            int n = chunkLength(l);
            ChunkSent sent;
            try {
                sent = sendChunk(l, n);
            } catch (RuntimeException | Error e) {
                it.remove();
                putBack(l, e);
                continue;
            }
            if (sent == ChunkSent.REWRITTEN) {
                it.remove();
                abandon(l);
                continue;
            }
            l.offset += n; // NOT_SENT: the stream dropped; the next round requeues the key
            if (l.offset == l.length) {
                it.remove();
                valuesShipped.incrementAndGet();
            }
        }
        shipEffects();
        shipStaged(quantum);
    }

    /** Takes the lingering batch to send (or put back): the frame keeps the list, so the next batch gets a new one. */
    private List<ValueChunk> takeLingering() {
        List<ValueChunk> batch = lingering;
        lingering = new ArrayList<>();
        lingeringBytes = 0;
        return batch;
    }

    /**
     * Sends the next readable bytes of every value staged for shipping (one frame each), and the cancels
     * due: for a value whose {@code SET} was not written, or whose key was written again before its turn.
     */
    private void shipStaged(int quantum) throws InterruptedException {
        int chunkLimit = Math.min(link.config().chunkBytes(), quantum);
        long now = System.nanoTime();
        int started = startedStaged();
        for (StagedValues.Staged s : staged.all()) {
            try {
                if (shipStaged(s, started, chunkLimit, now)) started++;
            } catch (RuntimeException | Error e) {
                // its value ships after its commit, as any other; the backup drops what it has of it
                failures.failed(ShipperFailures.Kind.STAGED, e);
                cancel(s);
            }
        }
    }

    /**
     * {@link #shipStaged(int)} for one staged value: its cancel if due, else its next bytes if they may go.
     *
     * @return whether it started (its first bytes went)
     */
    private boolean shipStaged(StagedValues.Staged s, int started, int chunkLimit, long now)
            throws InterruptedException {
        if (s.abandoned) {
            cancel(s);
            return false;
        }
        RecordHeader committed = s.committed;
        if (committed != null) {
            // its write's turn takes it (prepare), unless a newer write of the key came first (tracked, or
            // shipped and acknowledged already: the store then holds another record), or the write never
            // reached the shipper (it failed after the store took it)
            TxId newest = link.pending().newest(s.key);
            boolean overtaken;
            if (newest != null) {
                overtaken = committed.txId().isBefore(newest);
            } else { // not tracked yet (its commit is under way), or no longer
                RecordHeader h = link.store().header(s.key);
                overtaken =
                        h == null || !h.txId().equals(committed.txId()) || now - s.committedNanos > STALE_COMMIT_NANOS;
            }
            if (overtaken) cancel(s);
            return false;
        }
        if (s.stream != null && !s.connected()) { // the backup dropped its bytes with the connection
            s.stream = null;
            s.channel = null;
            s.shipped = 0; // not counted in started: not connected
        }
        if (!sendable(s, started)) return false;
        boolean starts = s.shipped == 0;
        if (starts && (s.stream = pickStream()) == null) return false;
        sendStaged(s, Math.min(s.readable - s.shipped, chunkLimit));
        return starts;
    }

    /**
     * Whether a staged value's next bytes may go now: some are readable, nothing committed waits for the link
     * (committed values go first: on a busy link a value started before its commit would only take the link's
     * bytes from values whose writes wait already; measured, the drill's sync writes went at half their rate
     * when up to 16 staged values shared the link with them), and it is under way already or fewer values are
     * than there are streams (values complete in turn, as large committed ones do). {@code started}: values
     * under way.
     */
    private boolean sendable(StagedValues.Staged s, int started) {
        if (s.abandoned || s.committed != null || s.readable <= s.shipped) return false;
        if (!large.isEmpty() || link.pending().hasQueued()) return false;
        return s.shipped > 0 || started < streams.size();
    }

    /** Staged values under way: open, with bytes sent on a connection that is still up. */
    private int startedStaged() {
        int started = 0;
        for (StagedValues.Staged s : staged.all()) {
            if (s.shipped > 0 && !s.abandoned && s.committed == null && s.connected()) started++;
        }
        return started;
    }

    /** Whether a round has staged work: a cancel to send, or bytes that may go now ({@link #sendable}). */
    private boolean stagedDue() {
        int started = startedStaged();
        for (StagedValues.Staged s : staged.all()) {
            if (s.abandoned || sendable(s, started)) return true;
        }
        return false;
    }

    /** Sends bytes {@code [s.shipped, +n)} of a staged value once the flow control lets them go. */
    private void sendStaged(StagedValues.Staged s, int n) throws InterruptedException {
        int bytes = StagedChunkFrame.size(s.key, n);
        if (!awaitWindow(bytes)) return;
        Channel ch = s.stream.channel();
        if (ch == null || !s.stream.ready()) return; // dropped meanwhile: the next round starts it again
        if (s.channel == null) s.channel = ch;
        else if (s.channel != ch) return; // reconnected meanwhile: the next round starts it again
        StagedChunkFrame frame = StagedChunkFrame.allocate(ch.alloc(), s.id, s.key, s.length(), s.shipped, n);
        boolean read;
        try {
            read = s.stage.readRange(s.shipped, n, frame.data());
        } catch (RuntimeException | Error e) { // the store failed: the value ships after its commit, as any other
            failures.failed(ShipperFailures.Kind.STAGED, e);
            read = false;
        }
        if (!read) { // the stage was closed meanwhile (its SET failed, its client left, or the store was cleared)
            frame.release();
            cancel(s);
            return;
        }
        valueFrameWritten();
        writeFrame(ch, frame.finish(flowSent(s.stream, bytes)));
        bytesShipped.addAndGet(bytes);
        s.shipped += n;
        staged.sent(n);
        awaitWritable(ch);
    }

    /** Forgets a staged value, telling the backup to drop what it received of it. */
    private void cancel(StagedValues.Staged s) {
        if (!staged.remove(s)) return;
        cancelTaken(s);
    }

    /**
     * Sends the bind of a large value whose first bytes went ahead of its commit (cut-through): the backup's
     * staged bytes become the value of its TxId, and its chunks continue from there.
     *
     * @return true if that was the whole value
     */
    private boolean bind(Large l, Channel ch) {
        writeInOrder(ch, new Frame.StageBind(l.bindId, l.txId, l.key, l.checksum, l.expireAt));
        l.bindId = 0;
        return l.offset == l.length;
    }

    /**
     * Continues the value of {@code key}'s write at {@code newest} from the bytes that went ahead of its
     * commit, if any did and their stream is up.
     *
     * @return true if it is now a large value in progress
     */
    private boolean resumeStaged(byte[] key, TxId newest) {
        StagedValues.Staged s = staged.take(key, newest);
        if (s == null) return false;
        ValueChannel stream = s.stream;
        if (s.shipped == 0 || !s.connected()) return false; // nothing of it is on the backup
        RecordHeader h;
        try {
            h = link.store().header(key);
        } catch (RuntimeException | Error e) {
            cancelTaken(s); // the key ships again (put back by the caller), whole
            throw e;
        }
        if (h == null
                || h.state() != RecordState.COMPLETE
                || !h.txId().equals(newest)
                || h.valueLength() != s.length()) {
            cancelTaken(s); // written over meanwhile: the newer write ships as usual
            return false;
        }
        link.pending().shipped(key, newest);
        Large l = new Large(key, h, stream);
        l.offset = s.shipped;
        l.bindId = s.id;
        large.add(l);
        staged.bound();
        return true;
    }

    /** As {@link #cancel}, for a value already taken from the registry. */
    private void cancelTaken(StagedValues.Staged s) {
        if (s.shipped == 0 || !s.connected()) return; // nothing sent, or dropped with its connection
        writeInOrder(s.channel, new Frame.StageCancel(s.id));
        staged.cancelled();
    }

    /**
     * Ships the values queued now if no batch would linger ({@link #lingers}: the link is idle, or values
     * arrive further apart than the linger) or a write waits for the first of them (sync), the flow control's
     * window and pacing let a frame go now, and no rate cap is set. The small ones go as one batch on a
     * writable stream; unless a batch would linger, a large one starts on that stream, and its first chunk goes
     * if the flow control lets it (one chunk at most: the copy from the store is the event loop's only
     * value-sized work), its other chunks from the shipper thread, whose wake-up is then hidden behind the first
     * chunk's time on the wire.
     * Called on the replication event loop after it sent the key packets of the writes that queued them.
     * Never waits: if the shipper is in a round, or anything is left for it, it returns false and the caller
     * wakes the shipper.
     *
     * @return true if nothing is left queued for the shipper
     */
    boolean shipNow() {
        if (!rate.unlimited() || !shipping.tryLock()) return false;
        try {
            PendingValues pending = link.pending();
            if (!running || !large.isEmpty() || !lingering.isEmpty()) return false;
            // a batch that would linger is the shipper's, unless a write waits for its first value (sync): such
            // a batch does not linger (round), so it may as well leave now. On a busy link the loop starts no
            // large value: measured, the sync drill's 1 MiB writes went slower when it did
            boolean busy = lingers(0, link.config().valueLinger().toNanos());
            if (busy && !pending.headAwaited()) return false;
            ValueChannel stream = writableStream();
            Channel ch = stream == null ? null : stream.channel();
            if (ch == null) return false;
            int quantum = link.flow().quantum();
            int chunkLimit = Math.min(link.config().chunkBytes(), quantum);
            int batchLimit = Math.min(link.config().valueBatchBytes(), quantum);
            // the largest batch the loop below can build: the flow control lets it go now, so the batch may go
            long now = System.nanoTime();
            int largestBatch = batchLimit + chunkLimit + link.store().config().maxKeyBytes() + 64;
            if (link.flow().sendAt(largestBatch, now) - now > 0) return false;
            List<ValueChunk> batch = new ArrayList<>();
            int batchBytes = 0;
            while (batchBytes < batchLimit) {
                // unless the link is busy, one large value may start here, on this stream (its first chunk
                // goes below)
                byte[] key = pending.pollSmall(large.isEmpty() && !busy ? Integer.MAX_VALUE : chunkLimit);
                if (key == null) break;
                // null: acknowledged, requeued, put back, or large
                ValueChunk small = prepareOrPutBack(key, quantum, stream);
                if (small != null) {
                    batch.add(small);
                    batchBytes += batchCost(small);
                }
            }
            if (!batch.isEmpty()) {
                try {
                    int bytes = FrameCodec.encodedSize(new Frame.ValueBatch(batch));
                    // a stream that dropped meanwhile requeues them (its channelInactive, or the next Welcome)
                    valueFrameWritten();
                    writeFrame(ch, new Frame.ValueBatch(flowSent(stream, bytes), batch));
                    bytesShipped.addAndGet(bytes);
                    valuesShipped.addAndGet(batch.size());
                    valuesShippedNow.addAndGet(batch.size());
                } catch (RuntimeException | Error e) {
                    putBack(batch, e);
                }
            }
            if (!large.isEmpty()) firstChunkNow(large.get(0));
            return large.isEmpty() && !pending.hasQueued();
        } catch (RuntimeException | Error e) {
            // most likely a large value's first chunk: the value stays in progress, the shipper thread takes it over
            failures.failed(ShipperFailures.Kind.ROUND, e);
            return false;
        } finally {
            shipping.unlock();
        }
    }

    /**
     * On the event loop: sends the first chunk of a large value just started, if the flow control lets it go
     * now and its stream takes it without waiting. Anything else (a rewritten key, a dropped stream, a wait)
     * is left to the shipper thread, whose next round sends the chunk at {@code l.offset} as usual.
     */
    private void firstChunkNow(Large l) {
        Channel ch = l.stream.channel();
        if ((l.offset != 0 && l.bindId == 0) || !l.stream.ready() || ch == null || !ch.isWritable()) return;
        if (l.bindId != 0) {
            // its bind is queued behind the staged bytes (bind); a chunk written from here would overtake it
            if (bind(l, ch)) {
                large.remove(l);
                valuesShipped.incrementAndGet();
                valuesShippedNow.incrementAndGet();
            }
            return;
        }
        int n = chunkLength(l);
        long now = System.nanoTime();
        if (link.flow().sendAt(ValueChunkFrame.size(l.key, n), now) - now > 0) return;
        if (writeChunk(l, ch, n) != ChunkSent.SENT) return;
        firstChunksShippedNow.incrementAndGet();
        l.offset += n;
        if (l.offset == l.length) { // a value just above the quantum may fit the chunk size
            large.remove(l);
            valuesShipped.incrementAndGet();
            valuesShippedNow.incrementAndGet();
        }
    }

    /** The length of the next chunk of {@code l}: the chunk size, cut to the flow control's quantum. */
    private int chunkLength(Large l) {
        return Math.min(Math.min(link.config().chunkBytes(), link.flow().quantum()), l.length - l.offset);
    }

    /** What a small value adds to a batch, roughly: its bytes, its key and its chunk header. */
    private static int batchCost(ValueChunk small) {
        return small.data().length + small.key().length + 48;
    }

    /** A ready stream that takes a write without waiting, on the calling event loop if one is; or null. */
    private ValueChannel writableStream() {
        ValueChannel any = null;
        for (int i = 0; i < streams.size(); i++) {
            ValueChannel s = streams.get(Math.floorMod(nextStream + i, streams.size()));
            Channel ch = s.channel();
            if (!s.ready() || ch == null || !ch.isWritable()) continue;
            if (ch.eventLoop().inEventLoop()) {
                nextStream += i + 1;
                return s;
            }
            if (any == null) any = s;
        }
        if (any != null) nextStream++;
        return any;
    }

    /**
     * Whether a batch waits up to the linger for more values to share its frame, as in Nagle's algorithm: only
     * while values are in flight (besides the {@code prepared} ones just taken) or under way, and more are
     * arriving less than a linger apart. On an idle link a value leaves at once (a sync write waits for it, and
     * so does the time until the backup holds it); and values that come further apart than the linger would
     * only be held back by it: one client writing every few milliseconds on a long link always has a value in
     * flight, and each of its values would wait the whole linger for a next one that comes later.
     */
    private boolean lingers(int prepared, long lingerNanos) {
        PendingValues pending = link.pending();
        return (!large.isEmpty() || pending.inFlight() > prepared) && pending.arrivingWithin(lingerNanos);
    }

    /**
     * Reads the key's current value; returns it as one chunk if small, else starts sending it in chunks
     * (its header only is read here; {@link #sendChunk} reads its bytes), on {@code stream} if it is given.
     */
    private ValueChunk prepare(byte[] key, int quantum, ValueChannel stream) {
        TxId newest = link.pending().newest(key);
        if (newest == null) return null; // acknowledged meanwhile
        if (resumeStaged(key, newest)) return null;
        if (takeEffects(key, newest)) return null;
        int chunkLimit = Math.min(link.config().chunkBytes(), quantum);
        if (link.pending().newestLength(key) > chunkLimit) {
            // large: read its header only; sendChunk reads its bytes chunk by chunk
            RecordHeader h = link.store().header(key);
            if (h != null && newest.isBefore(h.txId())) return racing();
            if (h != null && h.state() == RecordState.COMPLETE && h.valueLength() > chunkLimit) {
                startLarge(key, h, newest, stream);
                return null;
            }
        }
        StoredValue v = link.store().get(key);
        if (v != null && newest.isBefore(v.txId())) return racing();
        if (v != null && v.state() == RecordState.COMPLETE) {
            if (v.header().type().isStructure()) return prepareStructure(key, newest, chunkLimit, stream);
            if (v.txId().isBefore(newest)) {
                // the tracker is ahead of what we read: a write is racing us; take it next round
                link.pending().requeue(key);
                return null;
            }
            if (v.value().length > chunkLimit) { // rewritten large since the tracker's newest: rare
                startLarge(key, v.header(), newest, stream);
                return null;
            }
            byte[] value = v.value();
            ValueChunk chunk = new ValueChunk(
                    v.txId(), Op.PUT, key, value.length, v.header().checksum(), 0, value, v.expireAtMillis());
            link.pending().shipped(key, v.txId());
            return chunk;
        }
        // no record: the newest write of the key was a delete; ship its tombstone
        TxId txId = v == null ? newest : v.txId();
        link.pending().shipped(key, txId);
        return new ValueChunk(txId, Op.DELETE, key, 0, 0, 0, new byte[0]);
    }

    /**
     * The store holds a write of {@code key} newer than the tracker's: a write between its store write and
     * its commit. Nothing ships now: that write's commit queues the key again (or, if it is one of an
     * {@code EXEC}'s unit, its release does), so its value never reaches the backup before its key packet.
     * A unit's value shipped early would be applied there as a plain value, and a reader of the backup
     * would see part of the {@code EXEC}.
     */
    private static ValueChunk racing() {
        return null;
    }

    /**
     * Takes the effects of {@code key}'s structure writes up to {@code newest} to ship instead of its image, if
     * they link from what the backup was last sent and the store holds that structure at {@code newest} (not a
     * tombstone, not a newer write); they go in order on one stream at this thread's next round.
     */
    private boolean takeEffects(byte[] key, TxId newest) {
        PendingEffects effects = link.pending().effects();
        if (effects.bytes() == 0) return false;
        RecordHeader h = link.store().header(key);
        if (h == null
                || h.state() != RecordState.COMPLETE
                || !h.type().isStructure()
                || !h.txId().equals(newest)) {
            return false;
        }
        List<Frame.Effect> fx = effects.take(key, newest, System.nanoTime());
        if (fx == null) return false;
        for (Frame.Effect e : fx) link.pending().shipped(key, e.txId());
        effectsDue.add(fx);
        link.pending().signal();
        return true;
    }

    /**
     * Sends the chains of effects taken ({@link #takeEffects}), each in order on one stream; a chain whose
     * stream is down is not in flight any more, and its key ships whole.
     */
    private void shipEffects() throws InterruptedException {
        while (!effectsDue.isEmpty()) {
            List<Frame.Effect> fx = effectsDue.remove(0);
            ValueChannel s = pickStream();
            byte[] key = fx.get(0).key();
            for (int i = 0; i < fx.size(); i++) {
                Frame.Effect e = fx.get(i);
                int bytes = FrameCodec.encodedSize(e);
                Channel ch = s == null ? null : s.channel();
                if (ch == null || !awaitWindow(bytes)) {
                    for (int j = i; j < fx.size(); j++)
                        link.pending().unsent(fx.get(j).txId());
                    link.pending().effects().broken(key);
                    link.pending().requeue(key);
                    break;
                }
                try {
                    Frame.Effect sent = new Frame.Effect(
                            flowSent(s, bytes),
                            e.txId(),
                            e.base(),
                            e.op(),
                            key,
                            e.expireAtMillis(),
                            e.set(),
                            e.removed());
                    write(ch, sent, bytes);
                } catch (RuntimeException | Error ex) {
                    // as a batch that could not be sent: not in flight; the key ships whole after a back-off
                    for (int j = i; j < fx.size(); j++)
                        link.pending().unsent(fx.get(j).txId());
                    link.pending().effects().broken(key);
                    failures.retryLater(key, ShipperFailures.Kind.SEND, ex, System.nanoTime());
                    break;
                }
                valuesShipped.incrementAndGet();
            }
        }
    }

    /**
     * Reads the image of the structure at {@code key} (O(size), under the key's lock in the store) and
     * returns it as one chunk if small, else starts sending it in chunks copied from the image read now.
     */
    private ValueChunk prepareStructure(byte[] key, TxId newest, int chunkLimit, ValueChannel stream) {
        MembersImage m = link.store().image(key);
        if (m == null || m.header().txId().isBefore(newest)) {
            // rewritten between the two reads (a string, a delete), or a write is racing us: next round
            link.pending().requeue(key);
            return null;
        }
        if (newest.isBefore(m.header().txId())) return racing();
        TxId t = m.header().txId();
        int checksum = m.checksum();
        if (m.image().length > chunkLimit) {
            ValueChannel s = stream != null ? stream : pickStream();
            if (s == null) {
                link.pending().requeue(key); // every stream is down: ship it when one is back
                return null;
            }
            link.pending().shipped(key, t);
            link.pending().effects().sent(key, t);
            large.add(new Large(key, m, checksum, s));
            return null;
        }
        link.pending().shipped(key, t);
        link.pending().effects().sent(key, t);
        return new ValueChunk(
                t,
                Op.writing(m.header().type()),
                key,
                m.image().length,
                checksum,
                0,
                m.image(),
                m.header().expireAtMillis());
    }

    /**
     * {@link #prepare(byte[], int, ValueChannel)}, or if that fails (the store's read threw), null with the key put
     * back, to ship after a back-off: the key was taken off the queue, and nothing of it is in flight.
     */
    private ValueChunk prepareOrPutBack(byte[] key, int quantum, ValueChannel stream) {
        try {
            return prepare(key, quantum, stream);
        } catch (RuntimeException | Error e) {
            failures.retryLater(key, ShipperFailures.Kind.READ, e, System.nanoTime());
            return null;
        }
    }

    /**
     * A batch whose values were marked shipped could not be sent: none of them is in flight any more, and their
     * keys ship again after a back-off.
     */
    private void putBack(List<ValueChunk> batch, Throwable e) {
        long now = System.nanoTime();
        for (ValueChunk c : batch) {
            link.pending().unsent(c.txId());
            failures.retryLater(c.key(), ShipperFailures.Kind.SEND, e, now);
        }
    }

    /**
     * A chunk of a large value in progress could not be read or sent: the backup is told to drop what it has of
     * it, and its key ships again, from its first byte, after a back-off. The caller took it out of {@link
     * #large}.
     */
    private void putBack(Large l, Throwable e) throws InterruptedException {
        link.pending().unsent(l.txId);
        failures.retryLater(l.key, ShipperFailures.Kind.CHUNK, e, System.nanoTime());
        dropOnBackup(l);
    }

    /**
     * Starts shipping a large value chunk by chunk on {@code stream}, or if null on a stream of its own, if
     * one is up.
     */
    private void startLarge(byte[] key, RecordHeader h, TxId newest, ValueChannel stream) {
        if (h.txId().isBefore(newest)) {
            // the tracker is ahead of what we read: a write is racing us; take it next round
            link.pending().requeue(key);
            return;
        }
        ValueChannel s = stream != null ? stream : pickStream();
        if (s == null) {
            link.pending().requeue(key); // every stream is down: ship it when one is back
            return;
        }
        link.pending().shipped(key, h.txId());
        large.add(new Large(key, h, s));
    }

    private ValueChannel pickStream() {
        for (int i = 0; i < streams.size(); i++) {
            ValueChannel s = streams.get(Math.floorMod(nextStream++, streams.size()));
            if (s.ready()) return s;
        }
        return null;
    }

    /**
     * Sends bytes {@code [l.offset, +n)} of a large value on its stream once the flow control lets them
     * go: a frame buffer is allocated from the channel's (pooled, direct) allocator and the store copies
     * the range straight into it, checking that the record is still the write whose chunks went before.
     */
    private ChunkSent sendChunk(Large l, int n) throws InterruptedException {
        if (!awaitWindow(ValueChunkFrame.size(l.key, n))) return ChunkSent.NOT_SENT;
        Channel ch = l.stream.channel();
        if (ch == null) return ChunkSent.NOT_SENT; // dropped meanwhile: what it carried is requeued by the drop
        ChunkSent sent = writeChunk(l, ch, n);
        if (sent == ChunkSent.SENT) awaitWritable(ch);
        return sent;
    }

    /**
     * Writes bytes {@code [l.offset, +n)} of a large value to {@code ch} now, read straight from the store into
     * the frame's buffer, unless the record is no longer the write whose chunks went before.
     */
    private ChunkSent writeChunk(Large l, Channel ch, int n) {
        int bytes = ValueChunkFrame.size(l.key, n);
        ValueChunkFrame frame = ValueChunkFrame.allocate(
                ch.alloc(), l.op, l.txId, l.key, l.length, l.checksum, l.offset, n, l.expireAt);
        RecordHeader h;
        try {
            if (l.image != null) {
                h = link.store().header(l.key); // the image was read whole: only whether it is still current
                frame.data().put(l.image, l.offset, n);
            } else {
                h = link.store().readRange(l.key, l.offset, n, frame.data());
            }
        } catch (RuntimeException | Error e) {
            frame.release();
            throw e;
        }
        if (h == null
                || h.state() != RecordState.COMPLETE
                || !h.txId().equals(l.txId)
                || (l.image == null && h.valueLength() != l.length)) {
            frame.release();
            return ChunkSent.REWRITTEN;
        }
        valueFrameWritten();
        writeFrame(ch, frame.finish(flowSent(l.stream, bytes)));
        bytesShipped.addAndGet(bytes);
        return ChunkSent.SENT;
    }

    /**
     * Drops a large value whose key was rewritten while it was being shipped: the backup is told to
     * drop what it assembled of it (a cancel chunk on the same stream, after the chunks it has), and the
     * key ships again (its newer write is tracked; the newer value ships itself).
     */
    private void abandon(Large l) throws InterruptedException {
        link.pending().abandoned(l.txId);
        dropOnBackup(l);
    }

    /** Tells the backup to drop what it holds of a large value in progress, if anything. */
    private void dropOnBackup(Large l) throws InterruptedException {
        if (l.bindId != 0) { // its staged bytes were never bound: the backup holds them under the stage id
            Channel ch = l.stream.channel();
            if (ch != null) writeInOrder(ch, new Frame.StageCancel(l.bindId));
            return;
        }
        if (l.offset == 0) return; // nothing of it was sent
        ValueChunk cancel =
                new ValueChunk(l.txId, l.op, l.key, l.length, l.checksum, l.length, new byte[0], l.expireAt);
        send(l.stream, List.of(cancel));
    }

    /** Sends {@code chunks} as one frame on {@code stream} once the flow control lets it go. */
    private boolean send(ValueChannel stream, List<ValueChunk> chunks) throws InterruptedException {
        int bytes = FrameCodec.encodedSize(new Frame.ValueBatch(chunks));
        if (!awaitWindow(bytes)) return false;
        Channel ch = stream.channel();
        if (ch == null) return false; // dropped meanwhile: what it carried is requeued by the drop
        write(ch, new Frame.ValueBatch(flowSent(stream, bytes), chunks), bytes);
        return true;
    }

    /** Waits for the flow control's window and pacing, then the rate cap; false if the shipper stopped. */
    private boolean awaitWindow(int bytes) throws InterruptedException {
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
        return true;
    }

    /** Tells the flow control that {@code bytes} leave on {@code stream} now; returns now. */
    private long flowSent(ValueChannel stream, int bytes) {
        long now = System.nanoTime();
        link.flow().sent(stream.stream(), bytes, now);
        return now;
    }

    /** For {@code ./kvs bench jmh --stages}: a value frame is about to be written. */
    private void valueFrameWritten() {
        link.stages().mark(WriteStages.Stage.FIRST_VALUE_FRAME);
        link.stages().markLast(WriteStages.Stage.LAST_VALUE_FRAME);
    }

    /**
     * Writes a frame of a value stream. A frame that fails to go out on a stream still up (its encoding failed,
     * e.g. for want of direct memory) resets the stream: the values it carried are in flight, and would
     * otherwise wait for an ack that never comes; closed, the stream ships them again when it is back (its
     * drop requeues what is in flight, and the backup drops its partial values with the connection).
     */
    private void writeFrame(Channel ch, Object frame) {
        ch.writeAndFlush(frame).addListener(resetOnFailure);
    }

    /**
     * Writes a bind or cancel of a value's bytes sent ahead of its commit, after them. The shipper thread's
     * frames reach a channel in tasks queued on its event loop: on that loop (from {@link #shipNow}), a frame
     * written at once would overtake those still queued, and the backup would get the bind or cancel of a stage
     * before its bytes (it would then nack the bind, or hold the bytes that came after their cancel until the
     * connection closes). There the frame is queued too, behind them.
     */
    private void writeInOrder(Channel ch, Frame frame) {
        if (ch.eventLoop().inEventLoop()) ch.eventLoop().execute(() -> writeFrame(ch, frame));
        else writeFrame(ch, frame);
    }

    /** Writes a frame and waits while the stream is not writable. */
    private void write(Channel ch, Frame frame, int bytes) throws InterruptedException {
        valueFrameWritten();
        writeFrame(ch, frame);
        bytesShipped.addAndGet(bytes);
        awaitWritable(ch);
    }

    /** Waits while {@code ch} is not writable (backpressure), unless it closed or the shipper stopped. */
    private void awaitWritable(Channel ch) throws InterruptedException {
        while (running && ch.isActive() && !ch.isWritable()) LockSupport.parkNanos(200_000);
        if (Thread.interrupted()) throw new InterruptedException();
    }
}
