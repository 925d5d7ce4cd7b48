package dev.kvs.server.replication;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.wan.WanLink;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * The in-process two-DC fixture: a backup node, a {@link WanLink} (FIFO queueing, like a plain WAN
 * link) in front of its replication port, and a primary replicating through the link. Loopback,
 * ephemeral ports.
 */
final class TwoDc implements AutoCloseable {
    KvsNode backup;
    final WanLink link;
    KvsNode primary;

    private TwoDc(KvsNode backup, WanLink link, KvsNode primary) {
        this.backup = backup;
        this.link = link;
        this.primary = primary;
    }

    static TwoDc start(ReplicationMode mode, Duration oneWayDelay, long bitsPerSecond, ReplicatorConfig replication) {
        return start(mode, oneWayDelay, bitsPerSecond, replication, dev.kvs.server.config.FailoverConfig.defaults());
    }

    static TwoDc start(
            ReplicationMode mode,
            Duration oneWayDelay,
            long bitsPerSecond,
            ReplicatorConfig replication,
            dev.kvs.server.config.FailoverConfig failover) {
        return start(mode, oneWayDelay, bitsPerSecond, replication, failover, Clock.systemUTC(), Clock.systemUTC());
    }

    /** The same with each node's wall clock given: what TTLs are computed and checked with. */
    static TwoDc start(
            ReplicationMode mode,
            Duration oneWayDelay,
            long bitsPerSecond,
            ReplicatorConfig replication,
            dev.kvs.server.config.FailoverConfig failover,
            Clock primaryClock,
            Clock backupClock) {
        StoreConfig store =
                StoreConfig.builder().maxEntries(50_000).maxBytes(256L << 20).build();
        return start(mode, oneWayDelay, bitsPerSecond, replication, failover, primaryClock, backupClock, store, store);
    }

    /** The same with both nodes' store limits given. */
    static TwoDc start(
            ReplicationMode mode,
            Duration oneWayDelay,
            long bitsPerSecond,
            ReplicatorConfig replication,
            dev.kvs.server.config.FailoverConfig failover,
            Clock primaryClock,
            Clock backupClock,
            StoreConfig store) {
        return start(mode, oneWayDelay, bitsPerSecond, replication, failover, primaryClock, backupClock, store, store);
    }

    /** The same with each node's store given: a backup smaller than its primary, say. */
    static TwoDc start(
            ReplicationMode mode, ReplicatorConfig replication, StoreConfig primaryStore, StoreConfig backupStore) {
        return start(
                mode,
                Duration.ofMillis(1),
                0,
                replication,
                dev.kvs.server.config.FailoverConfig.defaults(),
                Clock.systemUTC(),
                Clock.systemUTC(),
                primaryStore,
                backupStore);
    }

    private static TwoDc start(
            ReplicationMode mode,
            Duration oneWayDelay,
            long bitsPerSecond,
            ReplicatorConfig replication,
            dev.kvs.server.config.FailoverConfig failover,
            Clock primaryClock,
            Clock backupClock,
            StoreConfig primaryStore,
            StoreConfig backupStore) {
        KvsNode backup = KvsNode.start(
                NodeConfig.builder()
                        .name("dc-backup")
                        .role(Role.BACKUP)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .store(backupStore)
                        .failover(failover)
                        .build(),
                backupClock);
        WanLink link = WanLink.builder()
                .target("127.0.0.1", backup.replPort())
                .delay(oneWayDelay)
                .bandwidthBitsPerSecond(bitsPerSecond)
                // a plain WAN link: the primary's flow control keeps value bytes from queueing
                // in front of key packets
                .queueing(WanLink.Queueing.FIFO)
                .build();
        KvsNode primary = KvsNode.start(
                NodeConfig.builder()
                        .name("dc-main")
                        .role(Role.PRIMARY)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .peer("127.0.0.1:" + link.port())
                        .mode(mode)
                        .replication(replication)
                        .store(primaryStore)
                        .build(),
                primaryClock);
        return new TwoDc(backup, link, primary);
    }

    static ReplicatorConfig.Builder replication() {
        return ReplicatorConfig.builder()
                .writeTimeout(Duration.ofSeconds(20))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(200))
                .chunkBytes(64 * 1024);
    }

    /** Replaces the backup by a new, empty one on the same replication port (a wiped backup DC). */
    void replaceBackupWithAnEmptyOne() {
        int replPort = backup.replPort();
        NodeConfig c = backup.config();
        backup.close();
        backup = KvsNode.start(c.toBuilder().replPort(replPort).build());
    }

    /**
     * Stops the backup, runs {@code whileAway} (writes on the primary, say), and starts it again with
     * the same configuration on the same replication port: with a data dir it comes back with its data.
     */
    void restartBackup(Runnable whileAway) {
        int replPort = backup.replPort();
        NodeConfig c = backup.config();
        backup.close();
        whileAway.run();
        backup = KvsNode.start(c.toBuilder().replPort(replPort).build());
    }

    /** Restarts the (memory-only) primary: it comes back empty, in the same epoch. */
    void restartPrimaryEmpty() {
        NodeConfig c = primary.config();
        primary.close();
        primary = KvsNode.start(c);
    }

    Jedis primaryClient() {
        return new Jedis("127.0.0.1", primary.port(), 30_000);
    }

    Jedis backupClient() {
        return new Jedis("127.0.0.1", backup.port(), 30_000);
    }

    /** {@code KVS.PEEK key}: [state, txid, length, crc, value|nil], or null. */
    @SuppressWarnings("unchecked")
    static List<Object> peek(Jedis jedis, byte[] key) {
        return (List<Object>) jedis.sendCommand(() -> "KVS.PEEK".getBytes(), key);
    }

    static String info(Jedis jedis, String field) {
        for (String line : jedis.info("replication").split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        throw new AssertionError("no " + field + " in INFO replication");
    }

    @Override
    public void close() {
        primary.close();
        link.close();
        backup.close();
    }
}
