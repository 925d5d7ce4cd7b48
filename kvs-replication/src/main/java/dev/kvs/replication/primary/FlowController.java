package dev.kvs.replication.primary;

import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.FlowControlStatus;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Delay-based flow control of one primary's value traffic, in the spirit of LEDBAT (RFC 6817) and
 * LEDBAT++: one window of value bytes in flight shared by every value stream, steered by the
 * queueing delay the value frames see, so the bottleneck queue that key packets cross stays near a
 * small target while values still use the bandwidth the link has.
 *
 * <ul>
 *   <li><b>Signal.</b> Every value frame carries its send time; the backup answers each with a
 *       receipt carrying its own receive time. Their difference is the one-way delay plus the clock
 *       offset of the two nodes, which cancels against the base delay: the minimum over a sliding
 *       history of one-minute buckets ({@link DelayHistory}). The current delay is the minimum of the
 *       samples of the last quarter of a base round trip (at least four); queueing delay = current - base.
 *   <li><b>External delay.</b> Only the queueing our own value bytes can have caused counts. A
 *       <em>lone</em> frame, sent with nothing of ours in flight, sees only the delay that is there
 *       without our values: a backup whose event loop reads late on a loaded machine, or another
 *       flow's standing queue. The median of the lone frames' queueing delays of the last {@link
 *       #EXTERNAL_SPAN_NANOS} (it expires, so a delay that goes away stops counting within seconds) is
 *       the external delay; once it exceeds the target (a smaller one the law absorbs as before), the
 *       law steers on {@code queueing - external} (at least 0): values add
 *       about the target to the delay key packets see, on top of what is there without them. Lone
 *       frames come from the slowdowns and from a window at its floor; a probe (no frame leaves until
 *       nothing of ours is in flight, then one does) makes one every {@link #PROBE_INTERVAL_NANOS}
 *       while an external delay above the target is known, or when the queueing delay has stayed above twice the target
 *       for four round trips. When the lone frames' delays jitter (interquartile range), the target is
 *       widened by that range (at most by the external delay) and the current delay is the minimum over a whole round trip: a queue of
 *       ours smaller than the jitter cannot be told from it. At most {@link #MAX_EXTERNAL_NANOS} is
 *       discounted: a longer standing queue is a bulk flow filling the bottleneck, and the controller
 *       yields to it as LEDBAT does, down to the minimum rate.
 *   <li><b>Target.</b> The configured target (default 10 ms), but at most a tenth of the base round
 *       trip (never below 1 ms): a key packet then crosses in about 1.1 base round trips on short
 *       links too.
 *   <li><b>Law.</b> Per byte receipted, {@code window += GAIN * (target - queueing) / target * bytes}:
 *       below the target the window grows (by at most a sixteenth per round trip, a quarter while the
 *       queueing delay is under a quarter of the target), above it it shrinks
 *       in proportion to the excess, by at most half per round trip. After a start or a slowdown the
 *       window doubles per round trip (slow start) until the queueing delay reaches 3/4 of the target
 *       or the window its former size. It grows only while the traffic fills at least half of it.
 *       A timeout (bytes in flight, no receipt for {@code max(1 s, 4 x srtt)}) or a value stream that
 *       drops halves it.
 *   <li><b>Pacing.</b> Frames leave at {@code 1.25 x window / srtt} and are cut to the bytes the link
 *       carries in a quarter of the target ({@link #quantum()}), so value bytes enter the bottleneck
 *       smoothly, never as one burst of a 256 KiB chunk.
 *   <li><b>Slowdown.</b> Every 30 s of window-limited traffic (at least 9 x the last slowdown) the
 *       window is held at its minimum for two round trips, the queue drains, and the base delay of
 *       that minute is measured without this flow's own queue, which therefore never becomes the
 *       base. A longer route becomes the base once the shorter one leaves the history.
 *   <li><b>Floor and ceiling.</b> Whatever the delay says, values leave at the configured minimum
 *       rate (and {@link FlowControlStatus#minRateAlarm()} says so); the rate cap of the replicator,
 *       if any, is applied on top by the shipper.
 * </ul>
 *
 * <p>Time is passed in by the caller ({@code now}, {@link System#nanoTime()} in production) so the
 * law can be tested on a simulated link. Thread-safe: the shipper thread sends, event loops deliver
 * receipts.
 */
final class FlowController {
    static final int MIN_QUANTUM = 2 * 1024;
    static final long MIN_WINDOW = 2L * MIN_QUANTUM;
    static final long INITIAL_WINDOW = 16 * 1024;
    static final double GAIN = 1.0 / 16;
    static final double FAST_GAIN = 1.0 / 4;
    static final double TARGET_RTT_FRACTION = 0.1;
    static final long MIN_TARGET_NANOS = 1_000_000;
    static final double PACING_GAIN = 1.25;
    static final long SLOWDOWN_INTERVAL_NANOS = 30_000_000_000L;
    /** How long a lone frame's delay counts in the external-delay estimate (it expires after this). */
    static final long EXTERNAL_SPAN_NANOS = 4_000_000_000L;
    /** How often a lone frame is sent on purpose (a probe) to keep the external-delay estimate fresh. */
    static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;
    /**
     * The most external delay discounted: a standing queue longer than this is a bulk flow filling the
     * bottleneck, and the controller yields to it as LEDBAT does (down to the minimum rate).
     */
    static final long MAX_EXTERNAL_NANOS = 50_000_000L;
    /** Lone samples remembered for the external-delay estimate. */
    private static final int LONE_SAMPLES = 64;

    private static final long EXTERNAL_CACHE_NANOS = 10_000_000L;

    private static final long NONE = Long.MIN_VALUE;
    private static final long SECOND = 1_000_000_000L;

    enum Phase {
        SLOW_START("slow-start"),
        STEADY("steady"),
        SLOWDOWN("slowdown");

        final String label;

        Phase(String label) {
            this.label = label;
        }
    }

    private final boolean enabled;
    private final long configuredTarget;
    private final long minRate;
    private final int maxQuantum;
    private final DelayHistory oneWay;
    private final DelayHistory roundTrip;
    private final long[] inFlightByStream;
    /** The thread waiting in {@link #sendAt} for a receipt, woken by one. */
    private volatile Thread waiter;

    private long window = INITIAL_WINDOW;
    private long inFlight;
    private long ssthresh = Long.MAX_VALUE;
    private Phase phase = Phase.SLOW_START;
    private long srtt;
    /** The window at the start of the current round trip, and when that round trip started. */
    private long roundStartWindow = INITIAL_WINDOW;

    private long roundStart;
    private long nextSendAt;
    private long lastSendAt = Long.MIN_VALUE / 2;
    private long lastReceiptAt;
    private long lastLimitedAt = Long.MIN_VALUE / 2;
    private long lastForcedAt = Long.MIN_VALUE / 2;
    private long limitedSince = -1;
    private long slowdownStart;
    private long slowdownUntil;
    private long slowdowns;
    private long nextSlowdownGap = SLOWDOWN_INTERVAL_NANOS;
    private long goodput;
    private long meterBytes;
    private long meterStart;
    /** Send time of the lone frame in flight (sent with nothing of ours in flight), or NONE. */
    private long loneSentAt = NONE;

    private int loneStream;
    /** One-way delays of recent lone frames (ring), and when their receipts came. */
    private final long[] loneDelay = new long[LONE_SAMPLES];

    private final long[] loneAt = new long[LONE_SAMPLES];
    private int loneCount;
    private int loneNext;
    private long lastLoneAt = Long.MIN_VALUE / 2;
    /** The external-delay estimate as last computed, and when (NONE: to recompute). */
    private long externalCached;
    /** The interquartile range of the lone frames' delays: how much the external delay jitters. */
    private long externalSpread;

    private long externalAt = NONE;
    private final long[] scratch = new long[LONE_SAMPLES];
    /** While a probe runs: no frame leaves until nothing of ours is in flight, then one lone frame. */
    private boolean probing;

    private long probeUntil;
    /** Since when the queueing delay has been above twice the target with no external delay known. */
    private long highSince = -1;

    /**
     * @param maxQuantum the largest frame payload to cut (the replicator's chunk and batch size)
     * @param streams the number of value streams
     */
    FlowController(FlowControlConfig config, int maxQuantum, int streams, long now) {
        this.enabled = config.enabled();
        this.configuredTarget = config.target().toNanos();
        this.minRate = config.minRateBytesPerSecond();
        this.maxQuantum = Math.max(MIN_QUANTUM, maxQuantum);
        int minutes = (int) Math.max(1, config.baseHistory().toMinutes());
        this.oneWay = new DelayHistory(minutes);
        this.roundTrip = new DelayHistory(minutes);
        this.inFlightByStream = new long[streams];
        this.meterStart = now;
        this.roundStart = now;
        this.lastReceiptAt = now;
    }

    boolean enabled() {
        return enabled;
    }

    /** {@code thread} waits for receipts (the shipper): each receipt or stream reset unparks it. */
    void waiter(Thread thread) {
        waiter = thread;
    }

    private void wake() {
        Thread t = waiter;
        if (t != null) LockSupport.unpark(t);
    }

    /** The payload size to cut value frames to now. */
    synchronized int quantum() {
        if (!enabled) return maxQuantum;
        if (srtt == 0) return MIN_QUANTUM;
        double bytes = pacingRate() * (target() / 4.0) / SECOND;
        return (int) Math.max(MIN_QUANTUM, Math.min(maxQuantum, bytes));
    }

    /**
     * The earliest time a frame of {@code bytes} may be sent: {@code now} or earlier if it may go now.
     * The caller waits until then, or until a receipt arrives, and asks again.
     */
    synchronized long sendAt(int bytes, long now) {
        if (!enabled) return now;
        tick(now);
        if (probing) {
            if (inFlight == 0 || now - probeUntil >= 0) probing = false; // the next frame goes alone
            else return Math.min(probeUntil, now + Math.max(srtt / 4, 1)); // a receipt wakes the caller
        }
        if (inFlight > 0 && inFlight + bytes > window) {
            // the window is full: a receipt may open it earlier; the minimum rate sends anyway
            long forcedAt = lastSendAt + (long) (bytes * (double) SECOND / minRate);
            return forcedAt - now <= 0 ? now : forcedAt;
        }
        return Math.max(now, nextSendAt);
    }

    /** A frame of {@code bytes} went out on {@code stream} at {@code now}. */
    synchronized void sent(int stream, int bytes, long now) {
        if (!enabled) return;
        if (inFlight > 0 && inFlight + bytes > window) lastForcedAt = now; // sent by the minimum rate
        if (inFlight == 0) {
            lastReceiptAt = now; // the timeout runs from the first byte in flight
            loneSentAt = now; // nothing of ours ahead of it: its queueing is not ours
            loneStream = stream;
            probing = false;
        }
        inFlightByStream[stream] += bytes;
        inFlight += bytes;
        if (inFlight >= window / 2) {
            lastLimitedAt = now;
            if (limitedSince < 0) limitedSince = now;
        }
        if (srtt > 0) {
            long gap = (long) (bytes * (double) SECOND / pacingRate());
            // a sender woken late catches up by a burst of at most half the target's worth of bytes (or
            // two frames): a queue the target allows, where a strict two-frame limit lost the rate to
            // every late wake-up of the shipper on a busy machine
            long credit = Math.max(gap, target() / 2);
            nextSendAt = Math.max(nextSendAt, now - credit) + gap;
        }
        lastSendAt = now;
    }

    /**
     * The backup received a frame of {@code bytes} sent on {@code stream} at {@code sentNanos} (this
     * node's clock) at {@code receivedNanos} (its own clock); the receipt arrived at {@code now}.
     */
    void received(int stream, int bytes, long sentNanos, long receivedNanos, long now) {
        if (!enabled) return;
        update(stream, bytes, sentNanos, receivedNanos, now);
        wake();
    }

    private synchronized void update(int stream, int bytes, long sentNanos, long receivedNanos, long now) {
        long released = Math.min(bytes, inFlightByStream[stream]);
        inFlightByStream[stream] -= released;
        inFlight -= released;
        lastReceiptAt = now;
        meter(bytes, now);
        long rtt = Math.max(0, now - sentNanos);
        oneWay.add(receivedNanos - sentNanos, now);
        roundTrip.add(rtt, now);
        if (sentNanos == loneSentAt && stream == loneStream) {
            loneSentAt = NONE;
            loneDelay[loneNext] = receivedNanos - sentNanos;
            loneAt[loneNext] = now;
            loneNext = (loneNext + 1) % LONE_SAMPLES;
            if (loneCount < LONE_SAMPLES) loneCount++;
            lastLoneAt = now;
            externalAt = NONE; // recompute
        }
        srtt = srtt == 0 ? Math.max(rtt, 1) : srtt + (rtt - srtt) / 8;
        tick(now);
        if (now - roundStart >= srtt) {
            roundStart = now;
            roundStartWindow = window;
        }
        long external = external(now);
        long target = target();
        long raw = queueing(now);
        // an external delay within the target does not threaten the window: the law as without one
        boolean significant = external > target;
        maybeProbe(raw, significant, target, now);
        long q = raw;
        if (significant) {
            if (externalSpread > 0) {
                // the external delay jitters: the current delay is then the minimum over a whole round
                // trip, not a quarter of one, and the target is widened by that jitter (a queue of ours
                // smaller than it cannot be told from the jitter, nor from the error of the estimate)
                raw = oneWay.queueing(now, srtt);
                target += Math.min(externalSpread, external);
            }
            q = Math.max(0, raw - Math.min(external, MAX_EXTERNAL_NANOS)); // the part our values can cause
        }
        boolean limited = now - lastLimitedAt <= 2 * srtt;
        switch (phase) {
            case SLOWDOWN -> {}
            case SLOW_START -> {
                if (q > target * 3 / 4) {
                    phase = Phase.STEADY;
                    adjust(bytes, q, target, limited);
                } else if (limited) {
                    window += bytes;
                    if (window >= ssthresh) {
                        window = ssthresh;
                        phase = Phase.STEADY;
                    }
                }
            }
            case STEADY -> adjust(bytes, q, target, limited);
        }
    }

    private void adjust(int bytes, long queueing, long target, boolean limited) {
        double offTarget = (target - queueing) / (double) target;
        if (offTarget > 0) {
            // far below the target the link has room: take it in a few round trips, not dozens
            double gain = queueing < target / 4 ? FAST_GAIN : GAIN;
            if (limited) window += (long) (gain * offTarget * bytes);
        } else {
            long floor = Math.max(MIN_WINDOW, roundStartWindow / 2); // at most halve per round trip
            window = Math.max(floor, window + (long) (GAIN * offTarget * bytes));
        }
    }

    /**
     * Starts a probe (a lone frame sent on purpose) when an external delay above the target is known
     * and its estimate about to go stale, or when the queueing delay has stayed above twice the target
     * for four round trips with none known: whether that delay is ours is then learnt in a round trip, not by a collapse of
     * the window to its floor.
     */
    private void maybeProbe(long queueing, boolean external, long target, long now) {
        if (probing || phase == Phase.SLOWDOWN || inFlight == 0 || window <= MIN_WINDOW) return;
        if (!external && queueing > 2 * target) {
            if (highSince < 0) highSince = now;
        } else {
            highSince = -1;
        }
        boolean stale = now - lastLoneAt >= PROBE_INTERVAL_NANOS;
        boolean refresh = external;
        boolean suspect = highSince >= 0 && now - highSince >= 4 * srtt;
        if (stale && (refresh || suspect)) {
            probing = true;
            probeUntil = now + 4 * srtt;
            highSince = -1;
        }
    }

    /**
     * The external delay: the median queueing delay of the lone frames (sent with nothing of ours in
     * flight) receipted in the last {@link #EXTERNAL_SPAN_NANOS}; 0 if none. That delay is there
     * without our values: a receiver that reads late, or another flow's standing queue. The median, not
     * the minimum: the current delay it is subtracted from is the minimum of a few samples, and the
     * minimum of many lone samples of a jittery delay would leave the jitter counted as our queue.
     */
    private long external(long now) {
        if (oneWay.isEmpty()) return 0;
        if (now - externalAt < EXTERNAL_CACHE_NANOS && externalAt != NONE) return externalCached;
        int n = 0;
        for (int i = 1; i <= loneCount; i++) {
            int k = Math.floorMod(loneNext - i, LONE_SAMPLES);
            if (now - loneAt[k] > EXTERNAL_SPAN_NANOS) break;
            scratch[n++] = loneDelay[k];
        }
        long median = 0;
        long spread = 0;
        if (n > 0) {
            Arrays.sort(scratch, 0, n);
            median = Math.max(0, scratch[(n - 1) / 2] - oneWay.base());
            spread = scratch[(3 * n - 1) / 4] - scratch[n / 4];
        }
        externalAt = now;
        externalCached = median;
        externalSpread = spread;
        return median;
    }

    /** {@code stream} dropped: what was in flight on it is gone; the window halves. */
    void streamReset(int stream, long now) {
        if (!enabled) return;
        synchronized (this) {
            if (inFlightByStream[stream] == 0) return;
            inFlight -= inFlightByStream[stream];
            inFlightByStream[stream] = 0;
            loneSentAt = NONE;
            halve(now);
        }
        wake();
    }

    private void halve(long now) {
        window = Math.max(MIN_WINDOW, window / 2);
        ssthresh = window;
        if (phase == Phase.SLOW_START) phase = Phase.STEADY;
        roundStart = now;
        roundStartWindow = window;
    }

    /** Timeouts and slowdowns, driven by the caller's clock. */
    private void tick(long now) {
        if (inFlight > 0 && now - lastReceiptAt > Math.max(SECOND, 4 * srtt)) {
            halve(now);
            lastReceiptAt = now; // at most once per timeout
        }
        if (phase == Phase.SLOWDOWN) {
            if (now - slowdownUntil >= 0) {
                phase = Phase.SLOW_START;
                long lasted = now - slowdownStart;
                limitedSince = -1;
                nextSlowdownGap = Math.max(SLOWDOWN_INTERVAL_NANOS, 9 * lasted);
            }
            return;
        }
        if (now - lastLimitedAt > 2 * Math.max(srtt, 1)) limitedSince = -1; // not window-limited any more
        if (phase == Phase.STEADY && srtt > 0 && limitedSince >= 0 && now - limitedSince >= nextSlowdownGap) {
            phase = Phase.SLOWDOWN;
            ssthresh = Math.max(window, MIN_WINDOW);
            window = MIN_WINDOW;
            slowdownStart = now;
            slowdownUntil = now + 2 * srtt;
            slowdowns++;
        }
    }

    /**
     * The current one-way delay (the minimum over the last quarter of a base round trip, at least four
     * samples) minus the base.
     */
    private long queueing(long now) {
        long span = roundTrip.isEmpty() ? 0 : roundTrip.base() / 4;
        return oneWay.queueing(now, span);
    }

    /** The queueing delay aimed at, in nanoseconds. */
    private long target() {
        long base = roundTrip.isEmpty() ? Long.MAX_VALUE : roundTrip.base();
        long fromRtt = base == Long.MAX_VALUE ? configuredTarget : (long) (base * TARGET_RTT_FRACTION);
        return Math.min(configuredTarget, Math.max(MIN_TARGET_NANOS, fromRtt));
    }

    /** Bytes per second frames are paced at. */
    private double pacingRate() {
        double rate = PACING_GAIN * window * (double) SECOND / Math.max(srtt, 1);
        return Math.max(rate, minRate);
    }

    private void meter(long bytes, long now) {
        meterBytes += bytes;
        long elapsed = now - meterStart;
        if (elapsed >= SECOND / 2) {
            goodput = meterBytes * SECOND / elapsed;
            meterBytes = 0;
            meterStart = now;
        }
    }

    synchronized long window() {
        return window;
    }

    synchronized long inFlight() {
        return inFlight;
    }

    synchronized FlowControlStatus status(long now) {
        if (!enabled) return FlowControlStatus.off();
        boolean idle = inFlight == 0 && now - lastSendAt > SECOND;
        long base = oneWay.isEmpty() ? 0 : oneWay.base();
        long rate = srtt == 0 ? 0 : (long) pacingRate();
        long recentGoodput = now - meterStart > 2 * SECOND ? 0 : goodput;
        return new FlowControlStatus(
                true,
                idle ? "idle" : phase.label,
                window,
                inFlight,
                rate,
                base / 1000,
                queueing(now) / 1000,
                external(now) / 1000,
                target() / 1000,
                recentGoodput,
                now - lastForcedAt < SECOND,
                slowdowns);
    }
}
