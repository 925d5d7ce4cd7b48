package dev.kvs.client;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvs.server.KvsNode;

/**
 * A real redis-server 7 ({@link LoneRedis}) and a kvs primary side by side, with a {@link KvsClient} on
 * each: for tests that run the same calls against both, parameterized by the server's name ({@code
 * "redis"} or {@code "kvs"}), and expect the same results, so the client speaks plain Redis and kvs
 * answers it as Redis does.
 */
final class RedisAndKvs implements AutoCloseable {
    private final LoneRedis redis;
    private final KvsNode node;
    private final KvsClient onRedis;
    private final KvsClient onKvs;

    private RedisAndKvs(LoneRedis redis, KvsNode node) {
        this.redis = redis;
        this.node = node;
        this.onRedis = KvsClient.builder().endpoints(redis.endpoint()).build();
        this.onKvs = KvsClient.builder().endpoints(Nodes.endpoint(node)).build();
    }

    /** Starts both servers; the kvs node is a primary named {@code nodeName}. */
    static RedisAndKvs start(String nodeName) {
        LoneRedis redis = LoneRedis.start();
        try {
            return new RedisAndKvs(redis, KvsNode.start(Nodes.primary(nodeName).build()));
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** The client on {@code server}: {@code "redis"} or {@code "kvs"}. */
    KvsClient client(String server) {
        return switch (server) {
            case "redis" -> onRedis;
            case "kvs" -> onKvs;
            default -> throw new IllegalArgumentException("no server " + server);
        };
    }

    /** The client port of {@code server}, for a raw connection beside the client. */
    int port(String server) {
        return switch (server) {
            case "redis" -> Integer.parseInt(redis.endpoint().split(":")[1]);
            case "kvs" -> node.port();
            default -> throw new IllegalArgumentException("no server " + server);
        };
    }

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {onRedis, onKvs, node, redis}) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
