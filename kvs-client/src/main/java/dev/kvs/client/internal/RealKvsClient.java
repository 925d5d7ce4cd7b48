package dev.kvs.client.internal;

import dev.kvs.client.ClusterStatus;
import dev.kvs.client.KvsClient;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsHashes;
import dev.kvs.client.KvsSets;
import dev.kvs.client.KvsTransaction;
import dev.kvs.client.ReplicationMode;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link KvsClient} over Netty: commands built here, run by a {@link Dispatcher}; in cluster mode
 * multi-key commands are split by slot first ({@link SlotGroups}).
 */
public final class RealKvsClient implements KvsClient {
    private final Dispatcher dispatcher;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final KvsHashes hashes = new RealHashes(this);
    private final KvsSets sets = new RealSets(this);

    private RealKvsClient(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    /** A client for {@code config} (validated by the builder); opens no connection yet. */
    public static KvsClient create(ClientConfig config) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                config.eventLoopThreads(), new DefaultThreadFactory("kvs-client", true), NioIoHandler.newFactory());
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(
                        Integer.MAX_VALUE, Math.max(1, config.connectTimeout().toMillis())));
        List<Command<?>> handshake = new ArrayList<>();
        if (config.password() != null) handshake.add(Command.auth(config.user(), config.password()));
        if (config.clientName() != null) handshake.add(Command.clientSetName(config.clientName()));
        if (config.mode() != ReplicationMode.SERVER_DEFAULT) handshake.add(Command.mode(config.mode()));
        // TLS 1.3: a server refusing our certificate says so after our handshake ended; a round trip
        // before the connection counts as ready makes that a failed connect, never a lost request
        if (config.tls() != null && handshake.isEmpty()) handshake.add(Command.ping());
        if (config.cluster() != null) {
            NodePools nodes = new NodePools(bootstrap, List.copyOf(handshake), config);
            return new RealKvsClient(new Dispatcher(new SlotRouter(nodes, group, config), nodes, group, config));
        }
        List<EndpointPool> pools = new ArrayList<>();
        for (Endpoint e : config.endpoints()) {
            pools.add(new EndpointPool(e, bootstrap, List.copyOf(handshake), config));
        }
        return new RealKvsClient(new Dispatcher(new Router(pools), group, config));
    }

    @Override
    public byte[] get(byte[] key) {
        return await(getAsync(key));
    }

    @Override
    public String get(String key) {
        byte[] v = get(utf8(key, "key"));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        await(putAsync(key, value));
    }

    @Override
    public void put(String key, String value) {
        put(utf8(key, "key"), utf8(value, "value"));
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] value) {
        return await(putIfAbsentAsync(key, value));
    }

    @Override
    public boolean delete(byte[] key) {
        return await(deleteAsync(key));
    }

    @Override
    public boolean delete(String key) {
        return delete(utf8(key, "key"));
    }

    @Override
    public boolean exists(byte[] key) {
        return await(existsAsync(key));
    }

    @Override
    public List<byte[]> getAll(List<byte[]> keys) {
        return await(getAllAsync(keys));
    }

    @Override
    public void putAll(List<byte[]> keys, List<byte[]> values) {
        await(putAllAsync(keys, values));
    }

    @Override
    public void putAll(Map<String, byte[]> entries) {
        Objects.requireNonNull(entries, "entries");
        List<byte[]> keys = new ArrayList<>(entries.size());
        List<byte[]> values = new ArrayList<>(entries.size());
        entries.forEach((k, v) -> {
            keys.add(utf8(k, "key"));
            values.add(Objects.requireNonNull(v, "value"));
        });
        putAll(keys, values);
    }

    @Override
    public boolean expire(byte[] key, Duration ttl) {
        return await(expireAsync(key, ttl));
    }

    @Override
    public boolean expire(String key, Duration ttl) {
        return expire(utf8(key, "key"), ttl);
    }

    @Override
    public CompletableFuture<Boolean> expireAsync(byte[] key, Duration ttl) {
        return dispatcher.submit(Command.expire(Objects.requireNonNull(key, "key"), ttlMillis(ttl)));
    }

    /** {@code ttl} in whole milliseconds, at least 1 (never 0: that would delete the key). */
    static long ttlMillis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) throw new IllegalArgumentException("ttl is not positive: " + ttl);
        return Math.max(1, ttl.toMillis());
    }

    @Override
    public KvsTransaction transaction(List<byte[]> watched) {
        List<byte[]> w = noNulls(watched, "watched");
        if (w.isEmpty()) {
            throw new IllegalArgumentException(
                    "no key watched: name the key that routes the transaction with transaction(watched, routingKey)");
        }
        return transaction(w, w.get(0));
    }

    @Override
    public KvsTransaction transaction(List<byte[]> watched, byte[] routingKey) {
        List<byte[]> w = noNulls(watched, "watched");
        EndpointPool primary = await(dispatcher.primaryFor(Objects.requireNonNull(routingKey, "routingKey")));
        RealTransaction tx = new RealTransaction(this, primary);
        try {
            tx.watch(w);
        } catch (RuntimeException e) {
            tx.close();
            throw e;
        }
        return tx;
    }

    @Override
    public KvsHashes hashes() {
        return hashes;
    }

    @Override
    public KvsSets sets() {
        return sets;
    }

    /** Sends {@code command} through the dispatcher (routing, retries, redirects). */
    <T> CompletableFuture<T> submit(Command<T> command) {
        return dispatcher.submit(command);
    }

    @Override
    public String ping() {
        return await(pingAsync());
    }

    @Override
    public CompletableFuture<byte[]> getAsync(byte[] key) {
        return dispatcher.submit(Command.get(Objects.requireNonNull(key, "key")));
    }

    @Override
    public CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
        return dispatcher.submit(
                Command.set(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")));
    }

    @Override
    public CompletableFuture<Boolean> putIfAbsentAsync(byte[] key, byte[] value) {
        return dispatcher.submit(
                Command.setIfAbsent(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(byte[] key) {
        return dispatcher.submit(Command.delete(Objects.requireNonNull(key, "key")));
    }

    @Override
    public CompletableFuture<Boolean> existsAsync(byte[] key) {
        return dispatcher.submit(Command.exists(Objects.requireNonNull(key, "key")));
    }

    @Override
    public CompletableFuture<List<byte[]>> getAllAsync(List<byte[]> keys) {
        List<byte[]> k = noNulls(keys, "keys");
        if (k.isEmpty()) return CompletableFuture.completedFuture(List.of());
        List<int[]> groups = dispatcher.slots == null ? null : SlotGroups.of(k);
        if (groups == null || groups.size() == 1) return dispatcher.submit(Command.getAll(k));
        List<CompletableFuture<List<byte[]>>> parts = new ArrayList<>(groups.size());
        for (int[] g : groups) parts.add(dispatcher.submit(Command.getAll(SlotGroups.pick(k, g))));
        return SlotGroups.all(parts).thenApply(done -> {
            byte[][] values = new byte[k.size()][];
            for (int i = 0; i < groups.size(); i++) {
                List<byte[]> part = parts.get(i).join();
                int[] g = groups.get(i);
                for (int j = 0; j < g.length; j++) values[g[j]] = part.get(j);
            }
            return Collections.unmodifiableList(Arrays.asList(values));
        });
    }

    @Override
    public CompletableFuture<Void> putAllAsync(List<byte[]> keys, List<byte[]> values) {
        List<byte[]> k = noNulls(keys, "keys");
        List<byte[]> v = noNulls(values, "values");
        if (k.size() != v.size())
            throw new IllegalArgumentException("keys.size() != values.size(): " + k.size() + " != " + v.size());
        if (k.isEmpty()) return CompletableFuture.completedFuture(null);
        List<int[]> groups = dispatcher.slots == null ? null : SlotGroups.of(k);
        if (groups == null || groups.size() == 1) return dispatcher.submit(Command.putAll(k, v));
        List<CompletableFuture<Void>> parts = new ArrayList<>(groups.size());
        for (int[] g : groups) {
            parts.add(dispatcher.submit(Command.putAll(SlotGroups.pick(k, g), SlotGroups.pick(v, g))));
        }
        return SlotGroups.all(parts);
    }

    @Override
    public CompletableFuture<String> pingAsync() {
        return dispatcher.submit(Command.ping());
    }

    @Override
    public String activeEndpoint() {
        return dispatcher.slots == null ? dispatcher.router.activeEndpoint() : dispatcher.slots.activeEndpoint();
    }

    @Override
    public Optional<ClusterStatus> clusterStatus() {
        return dispatcher.slots == null ? Optional.empty() : Optional.of(dispatcher.slots.status());
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) dispatcher.close();
    }

    /** Waits for {@code future}, throwing what it failed with as is (never wrapped). */
    <T> T await(CompletableFuture<T> future) {
        if (!future.isDone() && dispatcher.inEventLoop()) {
            throw new IllegalStateException("a blocking KvsClient method was called on one of the client's I/O"
                    + " threads (from an async callback): use the async methods or thenApplyAsync");
        }
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KvsClientException("interrupted while waiting for a reply", e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (CancellationException e) {
            throw new KvsClientException("cancelled", e);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof CompletionException && t.getCause() != null) t = t.getCause();
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new KvsClientException(String.valueOf(t.getMessage()), t);
    }

    static List<byte[]> noNulls(List<byte[]> list, String name) {
        Objects.requireNonNull(list, name);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == null) throw new NullPointerException(name + "[" + i + "] == null");
        }
        return list;
    }

    private static byte[] utf8(String s, String name) {
        return Objects.requireNonNull(s, name).getBytes(StandardCharsets.UTF_8);
    }
}
