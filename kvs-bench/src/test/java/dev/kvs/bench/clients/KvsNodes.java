package dev.kvs.bench.clients;

import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Jedis;

/**
 * The nodes the real clients are tried against: a lone primary, and a pair ({@link TwoDc}, kvs-server's
 * fixture) to fail over. Loopback, ephemeral ports, a small store.
 */
final class KvsNodes {
    private static final Pattern ERRORS = Pattern.compile("total_error_replies:(\\d+)");

    private KvsNodes() {}

    /** A primary with no backup: a write is answered once it is applied. */
    static KvsNode lone() {
        return KvsNode.start(NodeConfig.builder()
                .name("lone")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(50_000)
                        .maxBytes(64L << 20)
                        .build())
                .build());
    }

    /** A primary replicating id-first to its backup, straight to its replication port. */
    static TwoDc pair() {
        return TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .replication(TwoDc.replication().build())
                .directLink()
                .start();
    }

    /** {@code redis://host:port} of a node's RESP port. */
    static String uri(KvsNode node) {
        return "redis://" + TwoDc.HOST + ":" + node.port();
    }

    /**
     * Waits until the backup, read with {@code READONLY}, has {@code value} at string {@code key}: written
     * last on the primary, it says the writes before it crossed too.
     */
    static void awaitOnBackup(TwoDc dc, String key, String value) {
        try (Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
            backup.readonly();
            await("the backup has " + key + "=" + value)
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> value.equals(backup.get(key)));
        }
    }

    /** Stops the primary and promotes the backup, which then serves the clients. */
    static void failOver(TwoDc dc) throws InterruptedException {
        dc.stopPrimary();
        String promoted = dc.promoteBackup("");
        try (Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
            await("the promoted backup is the primary (" + promoted + ")")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> backup.info("replication").contains("role:master"));
        }
    }

    /** The node's {@code total_error_replies} (INFO stats): one per error reply it sent. */
    static long errorReplies(KvsNode node) {
        try (Jedis j = new Jedis(TwoDc.HOST, node.port())) {
            Matcher m = ERRORS.matcher(j.info("stats"));
            if (!m.find()) throw new AssertionError("no total_error_replies in INFO stats");
            return Long.parseLong(m.group(1));
        }
    }
}
