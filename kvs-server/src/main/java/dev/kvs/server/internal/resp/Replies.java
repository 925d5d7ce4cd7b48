package dev.kvs.server.internal.resp;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvsException;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.WrongTypeException;
import dev.kvs.replication.BackupCannotStoreException;
import dev.kvs.replication.ReplicationBusyException;
import dev.kvs.replication.ReplicationTimeoutException;
import dev.kvs.server.internal.write.NotWritableException;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reply messages, shared where immutable; a write's reply that waits for replication ({@link
 * #whenReplicated}); the reply for a store failure ({@link #storeError}).
 */
final class Replies {
    static final SimpleStringRedisMessage OK = new SimpleStringRedisMessage("OK");
    static final SimpleStringRedisMessage PONG = new SimpleStringRedisMessage("PONG");
    static final FullBulkStringRedisMessage NIL = FullBulkStringRedisMessage.NULL_INSTANCE;
    static final IntegerRedisMessage ZERO = new IntegerRedisMessage(0);
    static final IntegerRedisMessage ONE = new IntegerRedisMessage(1);
    static final ErrorRedisMessage NOAUTH = new ErrorRedisMessage("NOAUTH Authentication required.");
    static final ErrorRedisMessage WRONGPASS =
            new ErrorRedisMessage("WRONGPASS invalid username-password pair or user is disabled.");
    static final ErrorRedisMessage SYNTAX = new ErrorRedisMessage("ERR syntax error");

    private Replies() {}

    static ErrorRedisMessage error(String text) {
        return new ErrorRedisMessage(text);
    }

    /** Redis's refusal of a command the user's role does not permit; {@code command} in lower case. */
    static ErrorRedisMessage noPermission(String command) {
        return new ErrorRedisMessage("NOPERM this user has no permissions to run the '" + command + "' command");
    }

    static IntegerRedisMessage integer(long n) {
        return n == 0 ? ZERO : n == 1 ? ONE : new IntegerRedisMessage(n);
    }

    /** A bulk string over {@code bytes} without copying them. */
    static FullBulkStringRedisMessage bulk(byte[] bytes) {
        return bytes.length == 0
                ? FullBulkStringRedisMessage.EMPTY_INSTANCE
                : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(bytes));
    }

    static FullBulkStringRedisMessage bulk(String text) {
        return bulk(text.getBytes(StandardCharsets.UTF_8));
    }

    static ArrayRedisMessage array(List<RedisMessage> children) {
        return children.isEmpty() ? ArrayRedisMessage.EMPTY_INSTANCE : new ArrayRedisMessage(children);
    }

    static ArrayRedisMessage bulkArray(String... items) {
        List<RedisMessage> children = new ArrayList<>(items.length);
        for (String s : items) children.add(bulk(s));
        return array(children);
    }

    static ErrorRedisMessage wrongArity(String command) {
        return new ErrorRedisMessage("ERR wrong number of arguments for '" + command.toLowerCase() + "' command");
    }

    /** First word of an error reply, for the errors-by-kind metric. */
    static String kind(ErrorRedisMessage e) {
        String s = e.content();
        int space = s.indexOf(' ');
        return space < 0 ? s : s.substring(0, space);
    }

    /** {@code reply} now if the write may be answered already, else when replication allows. */
    static RedisMessage whenReplicated(CompletableFuture<Void> replicated, RedisMessage reply) {
        if (replicated.isDone() && !replicated.isCompletedExceptionally()) return reply;
        return new LaterReply(new Known(replicated, reply));
    }

    /**
     * A write's reply, known now, that is sent once replication allows: a script reads it at once
     * ({@link ScriptCommands}), since its writes' replication completes only after it ends. Completes
     * as {@code replicated.thenApply(v -> reply)} would.
     */
    static final class Known extends CompletableFuture<RedisMessage> {
        final RedisMessage reply;

        Known(CompletableFuture<Void> replicated, RedisMessage reply) {
            this.reply = reply;
            replicated.whenComplete((v, e) -> {
                if (e == null) complete(reply);
                else completeExceptionally(e instanceof CompletionException ? e : new CompletionException(e));
            });
        }
    }

    /** The reply for a store failure a client can act on; anything else is a bug and propagates. */
    static final ErrorRedisMessage WRONGTYPE =
            new ErrorRedisMessage("WRONGTYPE Operation against a key holding the wrong kind of value");

    static RedisMessage storeError(KvsException e) {
        if (e instanceof WrongTypeException) return WRONGTYPE;
        if (e instanceof ReplicationBusyException) return error("BUSY " + e.getMessage());
        if (e instanceof ReplicationTimeoutException) return error("NOREPLICA " + e.getMessage());
        // written on the primary, not confirmed: the backup's store refuses values (full, too large)
        if (e instanceof BackupCannotStoreException) return error("NOREPLICA " + e.getMessage());
        if (e instanceof NotWritableException) return error(e.getMessage()); // NOTPRIMARY / FENCED
        if (e instanceof StoreFullException) return error("OOM " + e.getMessage());
        if (e instanceof EntryTooLargeException) return error("ERR " + e.getMessage());
        return error("ERR storage error: " + e.getMessage());
    }
}
