package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;
import static dev.kvs.server.internal.resp.Records.live;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.Write;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Redis's generic group, less the expiry commands ({@link ExpiryCommands}) and those that give a key's
 * value to another ({@link RenameCommands}): DEL, UNLINK, EXISTS, TYPE; SCAN, KEYS, RANDOMKEY (metadata:
 * they answer on a backup too, listing the records its store holds: a key whose value has not arrived
 * is in the unfinished-key queue, not yet in the store); and WAIT. Every one of them sees a key of any
 * type (string, hash, set); DEL and UNLINK of a hash or set free its members in the store.
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

    private static final SimpleStringRedisMessage NONE = new SimpleStringRedisMessage("none");

    private final CommandContext node;
    private final KeyGate gate;
    private final KvStore store;
    private final Writes writes;
    private final KeyEvents events;

    KeyspaceCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.store = node.store();
        this.writes = node.writes();
        this.events = node.events();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        t.add("DEL", -2, write, 1, -1, 1, gate.gated(true, 1, this::del));
        t.add("UNLINK", -2, write, 1, -1, 1, gate.gated(true, 1, this::del));
        t.add("EXISTS", -2, read, 1, -1, 1, gate.gated(false, 1, this::exists));
        t.add("TYPE", 2, read, 1, 1, 1, gate.gated(false, 1, this::type));
        t.add("SCAN", -2, 0, 0, 0, 0, this::scan);
        t.add("KEYS", 2, 0, 0, 0, 0, this::keys);
        t.add("RANDOMKEY", 1, 0, 0, 0, 0, (s, a) -> randomKey());
        t.add("WAIT", 3, 0, 0, 0, 0, this::waitFor);
    }

    private RedisMessage del(Session s, byte[][] a) {
        if (a.length == 2) {
            Writes.Done<Write> w = writes.update(
                    node.mode(s), s.lastWrite, a[1], (h, order) -> live(h) ? order.remove(a[1]) : Write.keep());
            if (w.result() == Write.remove()) events.emit(GENERIC, "del", a[1]);
            return Replies.whenReplicated(w.replicated(), w.result() == Write.remove() ? Replies.ONE : Replies.ZERO);
        }
        List<byte[]> keys = Arrays.asList(a).subList(1, a.length);
        long[] removed = new long[1];
        Writes.Done<List<Write>> w = writes.updateAll(node.mode(s), s.lastWrite, keys, (headers, order) -> {
            List<Write> out = new ArrayList<>(headers.size());
            // a key named twice is removed once
            Set<ByteBuffer> seen = new HashSet<>();
            for (int i = 0; i < headers.size(); i++) {
                boolean first = seen.add(ByteBuffer.wrap(keys.get(i)));
                if (first && live(headers.get(i))) {
                    removed[0]++;
                    out.add(order.remove(keys.get(i)));
                } else {
                    out.add(Write.keep());
                }
            }
            return out;
        });
        for (int i = 0; i < keys.size(); i++)
            if (w.result().get(i) instanceof Write.Remove) events.emit(GENERIC, "del", keys.get(i));
        return Replies.whenReplicated(w.replicated(), Replies.integer(removed[0]));
    }

    private RedisMessage exists(Session s, byte[][] a) {
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            if (node.reads().exists(a[i])) n++;
        }
        return Replies.integer(n);
    }

    private RedisMessage type(Session s, byte[][] a) {
        RecordHeader h = node.reads().header(a[1]);
        return h != null && h.state() == RecordState.COMPLETE
                ? new SimpleStringRedisMessage(Records.typeName(h.type()))
                : NONE;
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
        // TYPE compares Redis's name of each key's type (an unknown name keeps no key, as in Redis 7.0)
        String wanted = type;
        GlobPattern filter = match == null || match.matchesAll() ? null : match;
        List<RedisMessage> keys = new ArrayList<>();
        long now = node.reads().nowMillis(); // a key past its expiry is absent, as to every read
        long next = store.scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), (k, h) -> {
            if (wanted != null && !wanted.equals(Records.typeName(h.type()))) return;
            if (!h.expiredAt(now) && (filter == null || filter.matches(k))) keys.add(Replies.bulk(k));
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
