package dev.kvs.client.internal;

import dev.kvs.client.ConnectionLostException;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsTransaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@link KvsTransaction} on a {@link Connection} of its own ({@link EndpointPool#dedicated}): {@code
 * WATCH} and reads are sent at once and waited for; writes are kept here until {@link #commit}, which
 * pipelines {@code MULTI}, the writes and {@code EXEC} in one round trip. {@link #close} gives a clean
 * connection back for the next transaction ({@code UNWATCH} first if keys are still watched); a
 * connection on which anything failed is closed, which ends whatever transaction state the server
 * holds for it.
 */
final class RealTransaction implements KvsTransaction {
    private final RealKvsClient client;
    private final EndpointPool pool;
    private final Connection connection;
    private final List<Command<?>> queued = new ArrayList<>();
    private boolean committed;
    private boolean closed;
    private boolean watching;
    /** True once a request on the connection failed in a way that may leave it unclean. */
    private boolean broken;

    /** On a {@link EndpointPool#dedicated} connection of {@code pool}, given back at {@link #close}. */
    RealTransaction(RealKvsClient client, EndpointPool pool) {
        this.client = client;
        this.pool = pool;
        this.connection = pool.dedicated();
    }

    @Override
    public void watch(List<byte[]> keys) {
        List<byte[]> k = RealKvsClient.noNulls(keys, "keys");
        if (k.isEmpty()) return;
        beforeWrites("WATCH");
        watching = true;
        call(Command.watch(k));
    }

    @Override
    public byte[] get(byte[] key) {
        beforeWrites("GET");
        return call(Command.get(Objects.requireNonNull(key, "key")));
    }

    @Override
    public Map<String, byte[]> hashGetAll(byte[] key) {
        beforeWrites("HGETALL");
        return call(Command.onKey("HGETALL", Objects.requireNonNull(key, "key"), List.of(), true, Replies.FIELD_MAP));
    }

    @Override
    public KvsTransaction put(byte[] key, byte[] value) {
        return queue(Command.set(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")));
    }

    @Override
    public KvsTransaction delete(byte[] key) {
        return queue(Command.onKey("DEL", Objects.requireNonNull(key, "key"), List.of(), false, Replies.POSITIVE));
    }

    @Override
    public KvsTransaction hashPut(byte[] key, Map<String, byte[]> fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.isEmpty()) throw new IllegalArgumentException("fields is empty: HSET needs at least one");
        List<byte[]> args = new ArrayList<>(fields.size() * 2);
        fields.forEach((f, v) -> {
            args.add(f.getBytes(StandardCharsets.UTF_8));
            args.add(Objects.requireNonNull(v, "value of " + f));
        });
        return queue(Command.onKey("HSET", Objects.requireNonNull(key, "key"), args, false, Replies.INTEGER));
    }

    @Override
    public KvsTransaction hashDelete(byte[] key, List<byte[]> fields) {
        return queue(
                Command.onKey("HDEL", Objects.requireNonNull(key, "key"), nonEmpty(fields), false, Replies.INTEGER));
    }

    @Override
    public KvsTransaction hashIncrement(byte[] key, byte[] field, long by) {
        byte[] amount = Long.toString(by).getBytes(StandardCharsets.US_ASCII);
        return queue(Command.onKey(
                "HINCRBY",
                Objects.requireNonNull(key, "key"),
                List.of(Objects.requireNonNull(field, "field"), amount),
                false,
                Replies.INTEGER));
    }

    @Override
    public KvsTransaction setAdd(byte[] key, List<byte[]> members) {
        return queue(
                Command.onKey("SADD", Objects.requireNonNull(key, "key"), nonEmpty(members), false, Replies.INTEGER));
    }

    @Override
    public KvsTransaction setRemove(byte[] key, List<byte[]> members) {
        return queue(
                Command.onKey("SREM", Objects.requireNonNull(key, "key"), nonEmpty(members), false, Replies.INTEGER));
    }

    @Override
    public KvsTransaction expire(byte[] key, Duration ttl) {
        return queue(Command.expire(Objects.requireNonNull(key, "key"), RealKvsClient.ttlMillis(ttl)));
    }

    @Override
    public Optional<List<Object>> commit() {
        if (committed) throw new IllegalStateException("the transaction was already committed");
        if (closed) throw new IllegalStateException("the transaction is closed");
        committed = true;
        broken = true; // until EXEC's reply ends the MULTI
        CompletableFuture<Void> multi = send(Command.control("MULTI"));
        List<CompletableFuture<Void>> queuing = new ArrayList<>(queued.size());
        for (Command<?> c : queued) queuing.add(send(c.queued()));
        CompletableFuture<Optional<List<Object>>> exec = send(Command.exec(List.copyOf(queued)));
        client.await(multi);
        try {
            Optional<List<Object>> result = client.await(exec);
            broken = false;
            return result;
        } catch (KvsClientException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("EXECABORT")) throw e;
            broken = false; // an EXECABORT ends the MULTI too
            for (CompletableFuture<Void> q : queuing) { // say which write was refused
                if (q.isCompletedExceptionally()) {
                    throw new KvsClientException(e.getMessage() + " (" + cause(q).getMessage() + ")", cause(q));
                }
            }
            throw e;
        }
    }

    /**
     * Gives the connection back for the next transaction if it is clean (after {@code UNWATCH} if keys
     * are still watched), else closes it: after a failure, or a commit that did not end.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (!broken && watching && !committed) {
            try {
                call(Command.control("UNWATCH"));
            } catch (RuntimeException e) {
                broken = true;
            }
        }
        if (broken) {
            connection.close();
        } else {
            pool.giveBack(connection);
        }
    }

    private KvsTransaction queue(Command<?> c) {
        if (committed || closed) throw new IllegalStateException("the transaction was committed or closed");
        queued.add(c);
        return this;
    }

    private void beforeWrites(String what) {
        if (committed || closed) throw new IllegalStateException("the transaction was committed or closed");
        if (!queued.isEmpty()) {
            throw new IllegalStateException(what + " after a queued write: reads and WATCH come before the writes"
                    + " (inside MULTI they would be queued, not answered)");
        }
    }

    private <T> T call(Command<T> command) {
        return client.await(send(command));
    }

    /** Sends {@code command} on the transaction's connection; the future fails as the SDK's calls do. */
    private <T> CompletableFuture<T> send(Command<T> command) {
        CompletableFuture<T> result = new CompletableFuture<>();
        boolean sent = connection.send(command, new Connection.Listener() {
            @Override
            @SuppressWarnings("unchecked")
            public void onValue(Object value) {
                result.complete((T) value);
            }

            @Override
            public void onError(String text) {
                result.completeExceptionally(ServerErrors.toException(text, command.keys));
            }

            @Override
            public void onFailure(Connection.Failure failure, Throwable cause) {
                broken = true; // the connection's state is unknown: never reused
                result.completeExceptionally(failed(command, failure, cause));
            }
        });
        if (!sent) result.completeExceptionally(new KvsClientException("too many requests in flight"));
        return result;
    }

    private Throwable failed(Command<?> command, Connection.Failure failure, Throwable cause) {
        switch (failure) {
            case LOST:
            case UNRESPONSIVE:
            case TIMEOUT:
                if (!command.readOnly) {
                    return new ConnectionLostException(
                            "transaction's connection to " + connection.endpoint() + " failed with "
                                    + command.describe() + " in flight: it may or may not have been applied",
                            cause);
                }
                return cause instanceof KvsClientException k
                        ? k
                        : new KvsClientException("transaction's connection lost: " + cause, cause);
            case FATAL:
                return cause;
            default: // CONNECT_FAILED, NOT_SENT: nothing executed
                return new KvsClientException(
                        "transaction's connection to " + connection.endpoint() + " failed before " + command.describe()
                                + " was sent: " + EndpointPool.describe(cause),
                        cause);
        }
    }

    private static Throwable cause(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    private static List<byte[]> nonEmpty(List<byte[]> list) {
        List<byte[]> l = RealKvsClient.noNulls(list, "members");
        if (l.isEmpty()) throw new IllegalArgumentException("empty: at least one is needed");
        return l;
    }
}
