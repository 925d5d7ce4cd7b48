package dev.kvs.client;

import dev.kvs.client.internal.ClientConfig;
import dev.kvs.client.internal.ClientTls;
import dev.kvs.client.internal.Endpoint;
import dev.kvs.client.internal.RealKvsClient;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A client of a kvs cluster: a primary in the main DC and a backup in another, listed as endpoints
 * in order of preference. Build one with {@link #builder()}, share it between threads, and close it
 * when done.
 *
 * <h2>Cluster mode</h2>
 * Built with {@link Builder#cluster(String...)} instead of {@link Builder#endpoints(String...)}, the
 * client serves a sharded cluster (kvs nodes with cluster settings, or a Redis 7 cluster). It reads
 * the topology with {@code CLUSTER SHARDS} from the seeds (then from the nodes it learned), on the
 * first request, and sends each request to the shard that serves its key's hash slot ({@code
 * CRC16(key) mod 16384}, {@code {hash tags}} included, as Redis Cluster). Each shard is a pair as
 * above: its primary first, its replica as the backup, with the same failover, retries and typed
 * exceptions. A {@code -MOVED slot host:port} reply (nothing was executed) sends the request to the
 * node it names and asks for a refresh of the topology (one at a time, at most one per {@link
 * Builder#clusterRefreshMinInterval(Duration) clusterRefreshMinInterval}); a request that meets more
 * than {@link Builder#maxRedirects(int) maxRedirects} of them fails with {@link
 * TooManyRedirectsException}. {@code -ASK} (a slot being migrated) is not followed: it fails as any
 * other error, with {@link KvsClientException}. {@link #getAll(List)} and {@link #putAll(List, List)}
 * send one {@code MGET}/{@code MSET} per slot (a node answers {@code -CROSSSLOT} to keys of two slots),
 * concurrently, and join the replies in the caller's order: {@code putAll} is then atomic per slot
 * only, and when one slot's part fails the others may have been applied. {@link #clusterStatus()}
 * says what the client knows of the topology. No ZooKeeper is needed in the application.
 *
 * <h2>Where requests go</h2>
 * Every request goes to the most preferred endpoint that is up and primary. An endpoint that cannot
 * be reached or answers {@code -NOTPRIMARY} (a backup) is passed over for {@link
 * Builder#endpointRecheckInterval(Duration) endpointRecheckInterval} and the request moves on to the
 * next one, wrapping around; after that interval the more preferred endpoint is tried again, so the
 * client returns to the main DC once it is primary again. Connections are opened lazily, on first
 * use, and re-opened the same way after they drop.
 *
 * <h2>What is retried, and what is not</h2>
 * <ul>
 *   <li>{@code -NOTPRIMARY}, a failed connect, or a connection that closed before the request was
 *       written: nothing was executed, so the request is sent again to the next endpoint.
 *   <li>A connection that dropped (or went silent past the request timeout) with a request in
 *       flight: a read ({@code get}, {@code getAll}, {@code exists}, {@code ping}) is sent again; a
 *       write is <b>not</b>: it fails with {@link ConnectionLostException} (or {@link
 *       KvsTimeoutException}) because it may or may not have been applied. A write is never resent
 *       after such an ambiguous failure, and never silently lost.
 *   <li>{@code -UNFINISHED key txid} (after a failover the key's value has not arrived yet): the same
 *       request is retried with exponential backoff (10 ms doubling up to 500 ms) until {@link
 *       Builder#unfinishedRetryDeadline(Duration) unfinishedRetryDeadline}, then fails with {@link
 *       UnfinishedKeyException}. {@code -FENCED} (a switchover in progress, or a restarted primary
 *       waiting for its backup; nothing was written) is retried the same way, then fails with {@link
 *       FencedException}.
 *   <li>Everything else fails at once with a typed exception: {@link DataLostException} ({@code
 *       -LOST}), {@link BusyException}, {@link NotReplicatedException}
 *       (the write <i>is</i> on the primary), {@link StoreFullException}, {@link
 *       AuthenticationException}, {@link NoPermissionException}, {@link KvsTlsException}, {@link NoPrimaryException} (no endpoint up and primary), {@link
 *       TooManyPendingRequestsException}, and {@link KvsClientException} with the server's message
 *       for any other error.
 * </ul>
 *
 * <h2>Sync and async</h2>
 * Each sync method waits for the reply and throws the typed exception itself (never a {@code
 * CompletionException}). Each async method returns a {@link CompletableFuture} completed with the
 * result or, exceptionally, with one of the exceptions above; it never throws (except {@link
 * NullPointerException} or {@link IllegalArgumentException} for bad arguments). Futures complete on
 * the client's I/O threads: do not block in a callback (use {@code thenApplyAsync} or similar), and
 * never call a sync method from one (it throws {@link IllegalStateException} rather than deadlock).
 * Requests are pipelined: many may be in flight on one connection. Requests issued one after another
 * by one thread on one connection are executed in that order unless one of them is retried; with
 * {@code connectionsPerEndpoint > 1} concurrent requests may run in any order.
 *
 * <p>Byte arrays passed in are not copied: do not modify a key or value until its future completes.
 * Byte arrays returned are the caller's to keep. A missing key is {@code null}, not an exception.
 *
 * <p>Every method is thread-safe.
 */
public interface KvsClient extends AutoCloseable {

    /** A new builder; {@link Builder#endpoints(String...)} is the only required setting. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * The value of {@code key} ({@code GET}), or {@code null} if it has none.
     *
     * @throws UnfinishedKeyException if the key's value is still missing after a failover, past the
     *     retry deadline
     * @throws DataLostException if the key's value was lost in a failover
     * @throws KvsClientException (a subclass) for any other failure; see the class comment
     */
    byte[] get(byte[] key);

    /** {@link #get(byte[])} with the key and the value as UTF-8 text. */
    String get(String key);

    /**
     * Sets {@code key} to {@code value} ({@code SET}), replacing any value. Returns once the server
     * answered, i.e. when the connection's {@link ReplicationMode} says the write is safe.
     *
     * @throws ConnectionLostException if the connection dropped with the write in flight: it may or
     *     may not have been applied
     * @throws NotReplicatedException if the primary stored it but the backup did not confirm in time
     * @throws KvsClientException (a subclass) for any other failure; see the class comment
     */
    void put(byte[] key, byte[] value);

    /** {@link #put(byte[], byte[])} with the key and the value as UTF-8 text. */
    void put(String key, String value);

    /**
     * Sets {@code key} to {@code value} only if it has no value ({@code SET key value NX}).
     *
     * @return true if the value was set, false if the key already had one
     * @throws KvsClientException (a subclass) as {@link #put(byte[], byte[])}
     */
    boolean putIfAbsent(byte[] key, byte[] value);

    /**
     * Removes {@code key} ({@code DEL}).
     *
     * @return true if the key existed
     * @throws KvsClientException (a subclass) as {@link #put(byte[], byte[])}
     */
    boolean delete(byte[] key);

    /** {@link #delete(byte[])} with the key as UTF-8 text. */
    boolean delete(String key);

    /**
     * Whether {@code key} has a value ({@code EXISTS}).
     *
     * @throws KvsClientException (a subclass) as {@link #get(byte[])}
     */
    boolean exists(byte[] key);

    /**
     * The values of {@code keys} in one round trip ({@code MGET}): a list of the same size and order,
     * with {@code null} for each key that has no value. An empty list is answered without a request.
     *
     * @throws KvsClientException (a subclass) as {@link #get(byte[])}; an {@link
     *     UnfinishedKeyException} or {@link DataLostException} names one of the keys
     */
    List<byte[]> getAll(List<byte[]> keys);

    /**
     * Sets every {@code keys.get(i)} to {@code values.get(i)} atomically ({@code MSET}): all or none.
     * Empty lists are answered without a request.
     *
     * @throws IllegalArgumentException if the lists differ in size
     * @throws KvsClientException (a subclass) as {@link #put(byte[], byte[])}
     */
    void putAll(List<byte[]> keys, List<byte[]> values);

    /** {@link #putAll(List, List)} with UTF-8 text keys, in the map's iteration order. */
    void putAll(Map<String, byte[]> entries);

    /**
     * Makes {@code key} expire after {@code ttl} ({@code PEXPIRE}), whatever type it holds; the key's
     * next write of a string clears it, as Redis's {@code SET} does, while hash and set writes keep it.
     *
     * @return true if the key exists (the TTL was set), false if it holds nothing
     * @throws IllegalArgumentException if {@code ttl} is not positive
     * @throws KvsClientException (a subclass) as {@link #put(byte[], byte[])}
     */
    boolean expire(byte[] key, Duration ttl);

    /** {@link #expire(byte[], Duration)} with the key as UTF-8 text. */
    boolean expire(String key, Duration ttl);

    /**
     * The hash calls ({@code HSET}, {@code HGET}, ...): over this client's connections, with its
     * settings and exceptions.
     */
    KvsHashes hashes();

    /** The set calls ({@code SADD}, {@code SISMEMBER}, ...): over this client's connections. */
    KvsSets sets();

    /**
     * Starts a transaction watching {@code watched} ({@code WATCH}; may be empty), on a connection of
     * its own to the primary serving the keys (found with a read of the first watched key, or of
     * {@code routingKey}'s slot in cluster mode, as any request finds it). See {@link KvsTransaction}.
     *
     * @throws IllegalArgumentException if {@code watched} is empty: use {@link #transaction(List,
     *     byte[])} to name the key that routes an unwatched transaction
     * @throws KvsClientException (a subclass) if no primary can be reached
     */
    KvsTransaction transaction(List<byte[]> watched);

    /** {@link #transaction(List)} routed by {@code routingKey} (a key it writes), watching {@code watched}. */
    KvsTransaction transaction(List<byte[]> watched, byte[] routingKey);

    /**
     * Round trip to the endpoint requests currently go to ({@code PING}).
     *
     * @return {@code "PONG"}
     * @throws KvsClientException (a subclass) if no endpoint answers
     */
    String ping();

    /** Async {@link #get(byte[])}. */
    CompletableFuture<byte[]> getAsync(byte[] key);

    /** Async {@link #put(byte[], byte[])}. */
    CompletableFuture<Void> putAsync(byte[] key, byte[] value);

    /** Async {@link #putIfAbsent(byte[], byte[])}. */
    CompletableFuture<Boolean> putIfAbsentAsync(byte[] key, byte[] value);

    /** Async {@link #delete(byte[])}. */
    CompletableFuture<Boolean> deleteAsync(byte[] key);

    /** Async {@link #exists(byte[])}. */
    CompletableFuture<Boolean> existsAsync(byte[] key);

    /** Async {@link #getAll(List)}. */
    CompletableFuture<List<byte[]>> getAllAsync(List<byte[]> keys);

    /**
     * Async {@link #putAll(List, List)}.
     *
     * @throws IllegalArgumentException at once if the lists differ in size
     */
    CompletableFuture<Void> putAllAsync(List<byte[]> keys, List<byte[]> values);

    /** Async {@link #expire(byte[], Duration)}. */
    CompletableFuture<Boolean> expireAsync(byte[] key, Duration ttl);

    /** Async {@link #ping()}. */
    CompletableFuture<String> pingAsync();

    /**
     * In cluster mode, the topology the client routes by and how it got there (shards, last refresh,
     * refresh and {@code -MOVED} counts, and the bounds in force); empty for a client of one pair.
     */
    Optional<ClusterStatus> clusterStatus();

    /**
     * The endpoint ({@code host:port}, as configured) that most recently served a request, i.e.
     * answered as a primary; before the first request, the most preferred one. In cluster mode, that
     * of the topology's first shard (before the topology is read, the first seed).
     */
    String activeEndpoint();

    /**
     * Closes every connection and stops the I/O threads; idempotent. Requests still in flight fail
     * (a write with {@link ConnectionLostException}: it may or may not have been applied), and later
     * calls fail with {@link KvsClientException}. Waits up to a few seconds for the threads to stop,
     * except when called from one of them.
     */
    @Override
    void close();

    /**
     * Configures and builds a {@link KvsClient}. Each setter rejects a bad value at once with an
     * {@link IllegalArgumentException} (or {@link NullPointerException}) that quotes it; {@link
     * #build()} checks that endpoints or cluster seeds (not both) were given. Not thread-safe; a builder may build several
     * clients.
     */
    final class Builder {
        private List<Endpoint> endpoints = List.of();
        private List<Endpoint> clusterSeeds = List.of();
        private int maxRedirects = 5;
        private Duration clusterRefreshMinInterval = Duration.ofSeconds(1);
        private String user;
        private String password;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration unfinishedRetryDeadline = Duration.ofSeconds(2);
        private Duration endpointRecheckInterval = Duration.ofSeconds(1);
        private ReplicationMode mode = ReplicationMode.SERVER_DEFAULT;
        private int connectionsPerEndpoint = 1;
        private int maxPending = 10_000;
        private String clientName;
        private int eventLoopThreads;
        private Path tlsCaFile;
        private Path tlsCertFile;
        private Path tlsKeyFile;
        private boolean tlsHostnameVerification = true;
        private Acknowledgements acknowledgements;

        private Builder() {}

        /**
         * Tells {@code listener} which node acknowledged each write, and its send and answer times on
         * {@link System#nanoTime()}'s clock (for drills; none by default).
         */
        public Builder acknowledgements(Acknowledgements listener) {
            acknowledgements = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * The endpoints, {@code host:port} each, in order of preference: the main DC's node first.
         * Required. An IPv6 host is written in brackets, {@code [::1]:6380}.
         *
         * @throws IllegalArgumentException if none is given, one is not {@code HOST:PORT} (quoted in
         *     the message), or one is listed twice
         */
        public Builder endpoints(String... hostPorts) {
            Objects.requireNonNull(hostPorts, "hostPorts");
            return endpoints(Arrays.asList(hostPorts));
        }

        /** {@link #endpoints(String...)} from a list. */
        public Builder endpoints(List<String> hostPorts) {
            endpoints = parseAll("endpoints", hostPorts);
            return this;
        }

        /**
         * Cluster mode (see the class comment): {@code host:port} of one or more nodes of the cluster,
         * any of which can answer {@code CLUSTER SHARDS}; the client learns the others from it. Instead
         * of {@link #endpoints(String...)}.
         *
         * @throws IllegalArgumentException if none is given, one is not {@code HOST:PORT} (quoted), or
         *     one is listed twice
         */
        public Builder cluster(String... seeds) {
            Objects.requireNonNull(seeds, "seeds");
            return cluster(Arrays.asList(seeds));
        }

        /** {@link #cluster(String...)} from a list. */
        public Builder cluster(List<String> seeds) {
            clusterSeeds = parseAll("cluster seeds", seeds);
            return this;
        }

        /**
         * In cluster mode, how many {@code -MOVED} replies one request follows (default 5, as Jedis's
         * {@code maxAttempts}); one more fails it with {@link TooManyRedirectsException}. 0 follows
         * none.
         */
        public Builder maxRedirects(int redirects) {
            if (redirects < 0 || redirects > 100)
                throw new IllegalArgumentException("maxRedirects is not in 0..100: " + redirects);
            maxRedirects = redirects;
            return this;
        }

        /**
         * In cluster mode, the least time between the starts of two topology refreshes (default 1 s):
         * a burst of {@code -MOVED} replies costs one {@code CLUSTER SHARDS}, not one each.
         */
        public Builder clusterRefreshMinInterval(Duration interval) {
            clusterRefreshMinInterval = positive("clusterRefreshMinInterval", interval);
            return this;
        }

        /** The password sent with {@code AUTH password} on every new connection (default: none). */
        public Builder password(String password) {
            this.password = requireText("password", password);
            this.user = null;
            return this;
        }

        /**
         * Logs in as a named user of the node's {@code users:} list: {@code AUTH user password} is sent
         * on every new connection (including each reconnect and each endpoint after a failover) before
         * any request. A wrong user or password fails every request at once with {@link
         * AuthenticationException}; a command the user's role does not allow fails with {@link
         * NoPermissionException}. Neither is retried.
         */
        public Builder credentials(String user, String password) {
            String u = requireText("user", user);
            this.password = requireText("password", password);
            this.user = u;
            return this;
        }

        /** How long opening a connection may take before the endpoint counts as down (default 2 s). */
        public Builder connectTimeout(Duration timeout) {
            connectTimeout = positive("connectTimeout", timeout);
            return this;
        }

        /**
         * How long one attempt of a request waits for its reply (default 10 s); retries (another
         * endpoint, an {@code -UNFINISHED} backoff) each get their own. Keep it above the server's
         * write timeout (5 s by default), since a write in {@code sync} or {@code id-first} mode may
         * legitimately wait that long for the backup. A connection on which nothing at all was
         * received during a whole timeout is considered dead and closed.
         */
        public Builder requestTimeout(Duration timeout) {
            requestTimeout = positive("requestTimeout", timeout);
            return this;
        }

        /**
         * How long a request answered {@code -UNFINISHED} is retried, with backoff from 10 ms up to
         * 500 ms between attempts, before it fails with {@link UnfinishedKeyException} (default 2 s;
         * zero: do not retry).
         */
        public Builder unfinishedRetryDeadline(Duration deadline) {
            Objects.requireNonNull(deadline, "unfinishedRetryDeadline");
            if (deadline.isNegative()) throw new IllegalArgumentException("unfinishedRetryDeadline < 0: " + deadline);
            unfinishedRetryDeadline = deadline;
            return this;
        }

        /**
         * How long an endpoint that was unreachable or not primary is passed over before it is tried
         * again (default 1 s). Shorter returns to the preferred endpoint sooner after it recovers, at
         * the cost of more probing of an endpoint that is still down or still a backup.
         */
        public Builder endpointRecheckInterval(Duration interval) {
            endpointRecheckInterval = positive("endpointRecheckInterval", interval);
            return this;
        }

        /**
         * The replication mode of this client's writes, sent as {@code KVS.MODE} on every new
         * connection (default {@link ReplicationMode#SERVER_DEFAULT}: none sent).
         */
        public Builder mode(ReplicationMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * {@link #mode(ReplicationMode)} by name: {@code sync}, {@code id-first}, {@code
         * id-first-after-reply}, {@code async} or {@code default}.
         *
         * @throws IllegalArgumentException for any other name (quoted)
         */
        public Builder mode(String mode) {
            return mode(ReplicationMode.parse(mode));
        }

        /** Connections opened to each endpoint, used in turn (default 1, at most 256). */
        public Builder connectionsPerEndpoint(int connections) {
            if (connections < 1 || connections > 256)
                throw new IllegalArgumentException("connectionsPerEndpoint is not in 1..256: " + connections);
            connectionsPerEndpoint = connections;
            return this;
        }

        /**
         * Most requests in flight (sent or waiting to be sent, not yet answered) on one connection
         * (default 10 000). A request beyond it is not queued and does not wait: it fails at once with
         * {@link TooManyPendingRequestsException}, so a caller issuing async requests in a loop learns
         * it outpaces the server instead of filling the heap.
         */
        public Builder maxPending(int max) {
            if (max < 1) throw new IllegalArgumentException("maxPending < 1: " + max);
            maxPending = max;
            return this;
        }

        /** The name set with {@code CLIENT SETNAME} on every new connection (default: none). */
        public Builder clientName(String name) {
            requireText("clientName", name);
            if (name.chars().anyMatch(c -> c <= ' ' || c > '~'))
                throw new IllegalArgumentException("clientName has spaces or special characters: \"" + name + "\"");
            clientName = name;
            return this;
        }

        /**
         * Netty I/O threads (daemon threads) the client owns (default 0: one per connection, at most
         * the number of cores).
         */
        public Builder eventLoopThreads(int threads) {
            if (threads < 0 || threads > 1024)
                throw new IllegalArgumentException("eventLoopThreads is not in 0..1024: " + threads);
            eventLoopThreads = threads;
            return this;
        }

        /**
         * Connects with TLS, trusting the servers whose certificate chain leads to a certificate in
         * {@code caFile} (PEM), and checking that a server's certificate names the host of its endpoint
         * (a DNS or IP subject alternative name). For nodes with {@code tls.clients: true}. Without it
         * (the default) connections are plain TCP, and a TLS-only node answers with {@link
         * KvsTlsException}.
         *
         * @throws IllegalArgumentException if the file cannot be read
         */
        public Builder tls(Path caFile) {
            tlsCaFile = readable("tls caFile", caFile);
            return this;
        }

        /**
         * Presents this certificate chain ({@code certFile}, PEM, leaf first) and private key ({@code
         * keyFile}, PEM, PKCS#8 unencrypted) to the server, for nodes with {@code tls.clientAuth:
         * require} (mutual TLS). Needs {@link #tls(Path)}.
         *
         * @throws IllegalArgumentException if a file cannot be read
         */
        public Builder tlsClientCertificate(Path certFile, Path keyFile) {
            Path cert = readable("tls certFile", certFile);
            tlsKeyFile = readable("tls keyFile", keyFile);
            tlsCertFile = cert;
            return this;
        }

        /**
         * Whether a server's certificate must name the host of its endpoint (default true). Turning it
         * off accepts any certificate the CA signed, for any host: only for a private CA that signs
         * nothing but kvs nodes, e.g. when clients dial addresses the certificates do not list.
         */
        public Builder tlsHostnameVerification(boolean verify) {
            tlsHostnameVerification = verify;
            return this;
        }

        /**
         * A new client with this configuration. No connection is opened yet: the first request opens
         * one.
         *
         * @throws IllegalStateException if no endpoints were given, or a client certificate but no
         *     {@link #tls(Path)}
         * @throws IllegalArgumentException if the TLS files are not a usable CA, certificate or key
         */
        public KvsClient build() {
            if (!endpoints.isEmpty() && !clusterSeeds.isEmpty())
                throw new IllegalStateException("both endpoints " + endpoints + " and cluster seeds " + clusterSeeds
                        + " were given: a client serves one pair or one cluster");
            boolean clustered = !clusterSeeds.isEmpty();
            if (endpoints.isEmpty() && !clustered)
                throw new IllegalStateException(
                        "endpoints are missing: call endpoints(\"host:port\", ...) or cluster(\"host:port\", ...)");
            List<Endpoint> addresses = clustered ? clusterSeeds : endpoints;
            if (tlsCertFile != null && tlsCaFile == null)
                throw new IllegalStateException(
                        "tlsClientCertificate needs tls(caFile): the CA servers are checked with");
            SslContext tls = tlsCaFile == null
                    ? null
                    : ClientTls.context(tlsCaFile, tlsCertFile, tlsKeyFile, tlsHostnameVerification);
            int threads = eventLoopThreads > 0
                    ? eventLoopThreads
                    : Math.max(
                            1,
                            Math.min(
                                    Runtime.getRuntime().availableProcessors(),
                                    clustered ? Integer.MAX_VALUE : connectionsPerEndpoint * endpoints.size()));
            return RealKvsClient.create(new ClientConfig(
                    addresses,
                    user,
                    password,
                    connectTimeout,
                    requestTimeout,
                    unfinishedRetryDeadline,
                    endpointRecheckInterval,
                    mode,
                    connectionsPerEndpoint,
                    maxPending,
                    clientName,
                    threads,
                    tls,
                    clustered ? new ClientConfig.Cluster(maxRedirects, clusterRefreshMinInterval) : null,
                    acknowledgements));
        }

        private static List<Endpoint> parseAll(String field, List<String> hostPorts) {
            Objects.requireNonNull(hostPorts, "hostPorts");
            if (hostPorts.isEmpty()) throw new IllegalArgumentException(field + " is empty: []");
            List<Endpoint> parsed = new ArrayList<>(hostPorts.size());
            for (String hp : hostPorts) {
                Endpoint e = Endpoint.parse(hp);
                if (parsed.contains(e)) throw new IllegalArgumentException("endpoint is listed twice: " + hp);
                parsed.add(e);
            }
            return List.copyOf(parsed);
        }

        private static String requireText(String field, String value) {
            Objects.requireNonNull(value, field);
            if (value.isEmpty()) throw new IllegalArgumentException(field + " is empty: \"\"");
            return value;
        }

        private static Path readable(String field, Path file) {
            Objects.requireNonNull(file, field);
            if (!Files.isReadable(file)) throw new IllegalArgumentException("cannot read " + field + " " + file);
            return file;
        }

        private static Duration positive(String field, Duration d) {
            Objects.requireNonNull(d, field);
            if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(field + " <= 0: " + d);
            return d;
        }
    }
}
