package dev.kvs.server.internal.resp;

import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: stops the node cleanly, the same stop as SIGTERM
 * (ports closed, replication stopped, the store closed). Admin users only ({@link CommandSpec#ADMIN}).
 *
 * <p>As in Redis, a primary first waits up to {@link #BACKUP_WAIT_MILLIS} for a streaming backup to
 * acknowledge every key packet and value (so an id-first or async write just answered is not left on
 * this node alone); {@code NOW} skips the wait and {@code ABORT} cancels a shutdown still waiting.
 * There is no snapshot to save: a node with a {@code dataDir} writes its store's files as it goes
 * (memory-mapped), so {@code NOSAVE} changes nothing and {@code SAVE} is refused on a memory-only
 * node (nothing could be saved) unless {@code FORCE}. On success there is no reply: the connection
 * closes as the node stops.
 */
final class ShutdownCommand implements Command {
    private static final Logger log = LoggerFactory.getLogger(ShutdownCommand.class);

    static final long BACKUP_WAIT_MILLIS = 10_000;

    private final CommandContext node;
    /** The shutdown waiting for the backup, cancelled by ABORT; null when none is. */
    private final AtomicReference<CompletableFuture<Void>> waiting = new AtomicReference<>();

    ShutdownCommand(CommandContext node) {
        this.node = node;
    }

    void register(CommandTable t) {
        t.add("SHUTDOWN", -1, CommandSpec.ADMIN, 0, 0, 0, this);
    }

    @Override
    public RedisMessage execute(Session s, byte[][] a) {
        boolean save = false;
        boolean noSave = false;
        boolean now = false;
        boolean force = false;
        boolean abort = false;
        for (int i = 1; i < a.length; i++) {
            switch (Args.upper(a[i])) {
                case "SAVE" -> save = true;
                case "NOSAVE" -> noSave = true;
                case "NOW" -> now = true;
                case "FORCE" -> force = true;
                case "ABORT" -> abort = true;
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        if ((save && noSave) || (abort && (save || noSave || now || force))) return Replies.SYNTAX;
        if (abort) {
            CompletableFuture<Void> w = waiting.getAndSet(null);
            if (w == null || !w.cancel(false)) return Replies.error("ERR No shutdown in progress.");
            log.warn("SHUTDOWN aborted by client {}", s.remoteAddress);
            return Replies.OK;
        }
        if (!node.canShutdown()) return Replies.error("ERR SHUTDOWN is not available on this node");
        if (save && !force && node.config().store().dataDir().isEmpty()) {
            return Replies.error("ERR Errors trying to SHUTDOWN. SAVE: this node's store is in memory only (no"
                    + " dataDir), so nothing can be saved; use NOSAVE, or FORCE");
        }
        log.warn(
                "SHUTDOWN{} by client {} (user {}): stopping the node",
                now ? " NOW" : "",
                s.remoteAddress,
                s.user == null ? "" : s.user.name());
        CompletableFuture<Void> w = new CompletableFuture<>();
        if (!waiting.compareAndSet(null, w)) return Replies.error("ERR A shutdown is already in progress");
        boolean skipWait = now;
        Thread t = new Thread(
                () -> {
                    if (!skipWait) awaitBackup(w);
                    if (w.complete(null)) { // not aborted
                        node.shutdown().run();
                    }
                    waiting.compareAndSet(w, null);
                },
                "kvs-shutdown-wait");
        t.setDaemon(true);
        t.start();
        return new LaterReply(new CompletableFuture<>()); // no reply: the connection closes with the node
    }

    /** Waits until a streaming backup has every key and value, or the bound passes, or ABORT. */
    private void awaitBackup(CompletableFuture<Void> w) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BACKUP_WAIT_MILLIS);
        while (!w.isDone() && System.nanoTime() < deadline) {
            if (node.role() != Role.PRIMARY) return;
            ReplicatorStatus r = node.roles().current().replicationStatus();
            if (!r.streaming() || r.caughtUp()) return;
            try {
                w.get(10, TimeUnit.MILLISECONDS); // returns early on ABORT
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // timed out (look again) or cancelled (ABORT: the loop ends)
            }
        }
    }
}
