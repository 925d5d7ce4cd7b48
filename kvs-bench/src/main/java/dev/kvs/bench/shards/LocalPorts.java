package dev.kvs.bench.shards;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ports of a one-machine cluster of {@code shards} shards, two nodes each: one block of {@link
 * #count()} consecutive ports from {@code base}, so that no port of one kind can be another's.
 * Node {@code k} (shard {@code k / 2}, DC {@code a} for even {@code k}, {@code b} for odd) has its
 * client port at {@code base + k}, its admin port {@code 2 * shards} above, its replication port {@code
 * 4 * shards} above; then come one WAN link port per shard (the primary's peer, relaying to its backup)
 * and last ZooKeeper's port. For 3 shards from 7000: clients 7000-7005, admin 7006-7011, replication
 * 7012-7017, links 7018-7020, ZooKeeper 7021.
 *
 * @param base the first port: node 0's client port
 * @param shards the number of shards
 */
record LocalPorts(int base, int shards) {
    /** The lowest base allowed: ports below it are privileged on most systems. */
    static final int MIN_BASE = 1024;

    /**
     * @throws IllegalArgumentException quoting the value if the shards are not in 1..{@value
     *     LocalCluster#MAX_SHARDS} or the block does not fit in {@value #MIN_BASE}..65535
     */
    LocalPorts {
        if (shards < 1 || shards > LocalCluster.MAX_SHARDS) {
            throw new IllegalArgumentException("--shards is not in 1.." + LocalCluster.MAX_SHARDS + ": " + shards);
        }
        int last = base + 7 * shards;
        if (base < MIN_BASE || last > 65_535) {
            throw new IllegalArgumentException("--port is not in " + MIN_BASE + ".." + (65_535 - 7 * shards) + " ("
                    + shards + " shards use " + (7 * shards + 1) + " ports from it): " + base);
        }
    }

    /** How many ports the block holds. */
    int count() {
        return 7 * shards + 1;
    }

    /** The last port of the block: ZooKeeper's. */
    int last() {
        return base + count() - 1;
    }

    int client(int node) {
        return base + check(node);
    }

    int admin(int node) {
        return base + 2 * shards + check(node);
    }

    int replication(int node) {
        return base + 4 * shards + check(node);
    }

    /** The port of shard {@code shard}'s WAN link: its primary's peer. */
    int link(int shard) {
        if (shard < 0 || shard >= shards)
            throw new IllegalArgumentException("shard out of 0.." + (shards - 1) + ": " + shard);
        return base + 6 * shards + shard;
    }

    int zookeeper() {
        return last();
    }

    /** What port {@code port} of the block is for, e.g. {@code client port of shard-1-b}. */
    String use(int port) {
        int i = port - base;
        int nodes = 2 * shards;
        if (i < 0 || i >= count()) return "not in the block";
        if (i == count() - 1) return "ZooKeeper's port";
        if (i >= 3 * nodes) return "the WAN link port of shard-" + (i - 3 * nodes);
        String kind = i < nodes ? "client" : i < 2 * nodes ? "admin" : "replication";
        return kind + " port of " + LocalCluster.nodeName(i % nodes);
    }

    /**
     * Checks that every port of the block can be bound on loopback now.
     *
     * @throws IllegalStateException naming the first port taken and what it was for
     */
    void checkFree() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int p = base; p <= last(); p++) {
            try (ServerSocket s = new ServerSocket(p, 1, loopback)) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                throw new IllegalStateException("port " + p + " (" + use(p) + ") is taken: " + e.getMessage()
                        + "; the cluster needs ports " + base + "-" + last() + " free: choose another --port");
            }
        }
    }

    /**
     * A free block for {@code shards} shards, its base chosen at random in 10000..32000 (a drill's
     * cluster, which needs no fixed port).
     *
     * @throws IllegalStateException if 200 random blocks were all partly taken
     */
    static LocalPorts freeBlock(int shards) {
        for (int attempt = 0; attempt < 200; attempt++) {
            LocalPorts ports = new LocalPorts(ThreadLocalRandom.current().nextInt(10_000, 32_000), shards);
            try {
                ports.checkFree();
                return ports;
            } catch (IllegalStateException taken) {
                // another block
            }
        }
        throw new IllegalStateException("no free block of " + (7 * shards + 1) + " ports in 10000..32000");
    }

    private int check(int node) {
        if (node < 0 || node >= 2 * shards) {
            throw new IllegalArgumentException("node out of 0.." + (2 * shards - 1) + ": " + node);
        }
        return node;
    }
}
