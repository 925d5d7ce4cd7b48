package dev.kvs.server.internal.role;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.TxId;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.config.FailoverConfig;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fences keys a promoted node does not hold whole: a key in the unfinished-key queue answers {@code
 * -UNFINISHED key txid} (at once, or after waiting for its value with the {@code block} policy), a
 * lost key answers {@code -LOST key txid}. Writes to either are refused: overwriting would hide the
 * conflict. Keys not fenced pass at the cost of two volatile reads. Thread-safe.
 */
public final class ReadGate {
    private final FailoverConfig config;
    private volatile UnfinishedKeys unfinished;
    private final LostKeys lost = new LostKeys();
    private volatile boolean active;
    private final AtomicInteger blockedReads = new AtomicInteger();

    public ReadGate(FailoverConfig config) {
        this.config = config;
    }

    /** Starts fencing the keys of {@code queue} (at promotion). */
    public void activate(UnfinishedKeys queue) {
        this.unfinished = queue;
        this.active = true;
    }

    /**
     * Fences {@code entries} as lost on a node that was not promoted: the keys its store found torn by a
     * crash as it opened ({@link dev.kvs.core.KvStore#fencedAtOpen}). They answer {@code -LOST} and are in
     * the loss manifest until an operator resolves them; the gate is active from then on.
     */
    public synchronized void fenceLost(List<LostKeys.Entry> entries) {
        if (entries.isEmpty()) return;
        entries.forEach(lost::add);
        if (unfinished == null) unfinished = new UnfinishedKeys();
        active = true;
    }

    public boolean active() {
        return active;
    }

    public LostKeys lost() {
        return lost;
    }

    public UnfinishedKeys unfinished() {
        return unfinished;
    }

    /**
     * Why {@code key} may not be read or written now, as an error reply text, or null if it may. With
     * the {@code block} policy a read of an unfinished key gets null here and waits with {@link
     * #whenReadable}.
     */
    public String refusal(byte[] key, boolean write) {
        if (!active) return null;
        LostKeys.Entry l = lost.get(key);
        if (l != null) return "LOST " + printable(key) + " " + l.txId();
        UnfinishedKeys u = unfinished;
        if (u == null || u.isEmpty()) return null;
        UnfinishedKeys.Pending p = u.newest(key);
        if (p == null) return null;
        if (write || config.readPolicy() == FailoverConfig.ReadPolicy.REJECT) return unfinished(key, p.txId());
        return null;
    }

    /**
     * The TxId of the write that fences {@code key} (unfinished or lost) if that write's expiry
     * (carried by its key packet: the primary's absolute time) has passed at {@code nowMillis}, else
     * null: a fenced key keeps its expiry, and once it has passed the key is absent, not fenced. The
     * caller deletes any older record of the key, then {@link #unfence}s it.
     */
    public TxId expiredFence(byte[] key, long nowMillis) {
        if (!active) return null;
        LostKeys.Entry l = lost.get(key);
        if (l != null) return RecordHeader.expired(l.expireAtMillis(), nowMillis) ? l.txId() : null;
        UnfinishedKeys u = unfinished;
        if (u == null || u.isEmpty()) return null;
        UnfinishedKeys.Pending p = u.newest(key);
        return p != null && RecordHeader.expired(p.expireAtMillis(), nowMillis) ? p.txId() : null;
    }

    /** Stops fencing {@code key} for its write {@code txId} (whose expiry has passed). */
    public void unfence(byte[] key, TxId txId) {
        LostKeys.Entry l = lost.get(key);
        if (l != null && l.txId().equals(txId)) lost.remove(key);
        UnfinishedKeys u = unfinished;
        if (u != null) u.resolve(key, txId);
    }

    /** True if a read of {@code key} must wait ({@code block} policy, key unfinished). */
    public boolean mustWait(byte[] key) {
        if (!active || config.readPolicy() != FailoverConfig.ReadPolicy.BLOCK) return false;
        UnfinishedKeys u = unfinished;
        return u != null && !u.isEmpty() && u.contains(key);
    }

    /**
     * The refusal a read of {@code key} gets instead of waiting for its value ({@link #mustWait}) where
     * it cannot wait, as the {@code reject} policy words it; null if the key is no longer unfinished.
     */
    public String unfinishedRefusal(byte[] key) {
        UnfinishedKeys u = unfinished;
        UnfinishedKeys.Pending p = u == null ? null : u.newest(key);
        return p == null ? null : unfinished(key, p.txId());
    }

    /**
     * Completes when {@code key} leaves the queue, or fails with {@link StillUnfinished} after the
     * block timeout.
     */
    public CompletableFuture<Void> whenReadable(byte[] key) {
        UnfinishedKeys.Pending p = unfinished.newest(key);
        String error = p == null ? null : unfinished(key, p.txId());
        blockedReads.incrementAndGet();
        return unfinished
                .whenResolved(key)
                .orTimeout(config.blockTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((v, e) -> blockedReads.decrementAndGet())
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(new StillUnfinished(error)));
    }

    /** Reads waiting now for an unfinished key's value ({@code block} policy). */
    public int blockedReads() {
        return blockedReads.get();
    }

    private static String unfinished(byte[] key, TxId txId) {
        return "UNFINISHED " + printable(key) + " " + txId;
    }

    /**
     * A key as it appears in error replies: printable ASCII as is, every other byte (space, controls,
     * non-ASCII) as {@code \\xNN}, so the reply stays one line of words a client can parse back.
     */
    public static String printable(byte[] key) {
        StringBuilder b = new StringBuilder(key.length + 8);
        for (byte x : key) {
            int c = x & 0xFF;
            if (c > ' ' && c < 0x7f && c != '\\') b.append((char) c);
            else b.append(String.format("\\x%02x", c));
        }
        return b.toString();
    }

    /** A blocked read timed out; the message is the error reply text. */
    public static final class StillUnfinished extends RuntimeException {
        public StillUnfinished(String message) {
            super(message, null, false, false);
        }
    }
}
