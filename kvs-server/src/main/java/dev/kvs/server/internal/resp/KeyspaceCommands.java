package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.internal.NodeContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * SCAN, KEYS, RANDOMKEY, MEMORY USAGE (metadata: they answer on a backup too, listing the records
 * its store holds: a key whose value has not arrived is in the unfinished-key queue, not yet in the
 * store) and WAIT.
 *
 * <p>SCAN's cursor is a slot of the store ({@link KvStore#scan}: a Chronicle Map segment, fixed for
 * the store's life), and each step returns whole slots, so COUNT is a hint: a step returns at least
 * COUNT keys unless the scan ends, and may return more. A key present for the whole scan is returned
 * exactly once; one written or deleted during it may be returned or not.
 */
final class KeyspaceCommands {
    /** Redis's SCAN default COUNT. */
    static final int DEFAULT_COUNT = 10;

    static final String WAIT_ON_BACKUP = "ERR WAIT cannot be used with replica instances. Please also note that"
            + " since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to"
            + " replicas are just local and are not propagated.";

    private final NodeContext node;
    private final KvStore store;

    KeyspaceCommands(NodeContext node) {
        this.node = node;
        this.store = node.store();
    }

    void register(CommandTable t) {
        t.add("SCAN", -2, 0, 0, 0, 0, this::scan);
        t.add("KEYS", 2, 0, 0, 0, 0, this::keys);
        t.add("RANDOMKEY", 1, 0, 0, 0, 0, (s, a) -> randomKey());
        t.add("WAIT", 3, 0, 0, 0, 0, this::waitFor);
        t.add("MEMORY", -2, 0, 0, 0, 0, this::memory);
    }

    /**
     * Bytes a record costs besides its key and value, roughly: its header (state, TxId, checksum,
     * length: 25 bytes) and Chronicle Map's entry overhead.
     */
    static final int RECORD_OVERHEAD = 48;

    /**
     * MEMORY USAGE key [SAMPLES count]: an estimate of the bytes {@code key} costs (key, value and
     * {@link #RECORD_OVERHEAD}), or nil if it is not held; for an unfinished or lost key, the length its
     * value is expected to have. {@code redis-cli --memkeys} uses it.
     */
    private RedisMessage memory(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        if (!sub.equals("USAGE")) {
            return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try MEMORY USAGE.");
        }
        if (a.length != 3 && a.length != 5) {
            return a.length < 3 ? Replies.wrongArity("MEMORY|USAGE") : Replies.SYNTAX;
        }
        if (a.length == 5) {
            if (!Args.upper(a[3]).equals("SAMPLES")) return Replies.SYNTAX;
            if (Args.parseLong(a[4]) == null) return Replies.error("ERR value is not an integer or out of range");
        }
        RecordHeader header = node.reads().header(a[2]); // null if expired
        if (header == null || header.state() == RecordState.TOMBSTONE) return Replies.NIL;
        return Replies.integer((long) a[2].length + header.valueLength() + RECORD_OVERHEAD);
    }

    /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. */
    private RedisMessage scan(Session s, byte[][] a) {
        Long cursor = parseCursor(a[1]);
        if (cursor == null) return Replies.error("ERR invalid cursor");
        GlobPattern match = null;
        long count = DEFAULT_COUNT;
        String type = null;
        for (int i = 2; i < a.length; i += 2) {
            if (i + 1 >= a.length) return Replies.SYNTAX;
            String opt = Args.upper(a[i]);
            switch (opt) {
                case "MATCH" -> match = new GlobPattern(a[i + 1]);
                case "COUNT" -> {
                    Long n = Args.parseLong(a[i + 1]);
                    if (n == null) return Replies.error("ERR value is not an integer or out of range");
                    if (n < 1) return Replies.SYNTAX;
                    count = n;
                }
                case "TYPE" -> type = Args.text(a[i + 1]).toLowerCase(Locale.ROOT);
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        // every kvs value is a string: TYPE string keeps every key, any other type none
        boolean typeMatches = type == null || type.equals("string");
        GlobPattern filter = match == null || match.matchesAll() ? null : match;
        List<RedisMessage> keys = new ArrayList<>();
        long now = node.reads().nowMillis(); // a key past its expiry is absent, as to every read
        long next = store.scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), (k, h) -> {
            if (typeMatches && !h.expiredAt(now) && (filter == null || filter.matches(k))) keys.add(Replies.bulk(k));
        });
        return Replies.array(List.of(Replies.bulk(Long.toUnsignedString(next)), Replies.array(keys)));
    }

    /** An unsigned 64-bit decimal, as Redis reads cursors; {@code null} if it is not one. */
    static Long parseCursor(byte[] arg) {
        if (arg.length == 0 || arg.length > 20) return null;
        for (byte b : arg) if (b < '0' || b > '9') return null;
        try {
            return Long.parseUnsignedLong(Args.text(arg));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** KEYS pattern: every key held that matches, in one reply (a full scan, like Redis's). */
    private RedisMessage keys(Session s, byte[][] a) {
        GlobPattern pattern = new GlobPattern(a[1]);
        List<RedisMessage> keys = new ArrayList<>();
        long now = node.reads().nowMillis();
        long cursor = 0;
        do {
            cursor = store.scan(cursor, Integer.MAX_VALUE, (k, h) -> {
                if (!h.expiredAt(now) && pattern.matches(k)) keys.add(Replies.bulk(k));
            });
        } while (cursor != 0);
        return Replies.array(keys);
    }

    /** Tries for a key that has not expired a few times, then answers nil, as Redis gives up on a store of expired keys. */
    private RedisMessage randomKey() {
        SplittableRandom random = new SplittableRandom();
        for (int attempt = 0; attempt < RANDOM_KEY_ATTEMPTS; attempt++) {
            byte[] key = store.randomKey(random);
            if (key == null) return Replies.NIL;
            if (node.reads().header(key) != null) return Replies.bulk(key);
        }
        return Replies.NIL;
    }

    private static final int RANDOM_KEY_ATTEMPTS = 16;

    /**
     * WAIT numreplicas timeout: how many backups (0 or 1) confirmed this connection's last write in
     * the meaning of its mode ({@link WriteOrder#confirmed()}); waits up to {@code timeout} ms (0:
     * forever) while fewer than {@code numreplicas} have, without blocking the event loop. Without a
     * write yet, the backup counts if its key channel streams.
     */
    private RedisMessage waitFor(Session s, byte[][] a) {
        if (node.role() != Role.PRIMARY) return Replies.error(WAIT_ON_BACKUP);
        Long wanted = Args.parseLong(a[1]);
        if (wanted == null) return Replies.error("ERR value is not an integer or out of range");
        Long timeout = Args.parseLong(a[2]);
        if (timeout == null) return Replies.error("ERR timeout is not an integer or out of range");
        if (timeout < 0) return Replies.error("ERR timeout is negative");
        ReplicatorStatus status = node.roles().current().replicationStatus();
        boolean replicates = !status.state().equals("none");
        WriteOrder last = s.lastWrite.order();
        CompletableFuture<Void> confirmed;
        CompletableFuture<Void> poll = null;
        if (!replicates) {
            confirmed = new CompletableFuture<>(); // no backup: nothing ever confirms
        } else if (last != null) {
            confirmed = last.confirmed();
        } else if (status.streaming()) {
            confirmed = CompletableFuture.completedFuture(null);
        } else {
            confirmed = poll = whenStreaming();
        }
        long now = confirmedCount(confirmed);
        if (now >= wanted) return Replies.integer(now);
        // more than one backup (numreplicas > 1) is never reached: then only the timeout answers
        CompletableFuture<RedisMessage> reply = wanted > 1
                ? new CompletableFuture<>()
                : confirmed.handle((v, e) -> (RedisMessage) Replies.integer(e == null ? 1 : 0));
        if (timeout > 0) {
            reply = reply.completeOnTimeout(null, timeout, TimeUnit.MILLISECONDS)
                    .thenApply(r -> r != null ? r : Replies.integer(confirmedCount(confirmed)));
        }
        if (poll != null) {
            CompletableFuture<Void> stop = poll;
            reply = reply.whenComplete((r, e) -> stop.cancel(false)); // stops polling at the timeout
        }
        return new LaterReply(reply);
    }

    private static long confirmedCount(CompletableFuture<Void> confirmed) {
        return confirmed.isDone() && !confirmed.isCompletedExceptionally() ? 1 : 0;
    }

    /** Completes once this node's key channel streams to its backup; checked every 100 ms. */
    private CompletableFuture<Void> whenStreaming() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        pollStreaming(f);
        return f;
    }

    private void pollStreaming(CompletableFuture<Void> f) {
        CompletableFuture.runAsync(
                () -> {
                    if (f.isDone()) return;
                    if (node.role() == Role.PRIMARY
                            && node.roles().current().replicationStatus().streaming()) {
                        f.complete(null);
                    } else if (node.role() == Role.PRIMARY) {
                        pollStreaming(f);
                    }
                },
                CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
    }
}
