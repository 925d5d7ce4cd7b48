package dev.kvs.client;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code CLUSTER SHARDS} reply in RESP2 as Redis 7.0.15 writes it (fields in its order: {@code
 * slots}, {@code nodes}; per node {@code id}, {@code port}, {@code ip}, {@code endpoint}, {@code role},
 * {@code replication-offset}, {@code health}), for fake servers that stand in for cluster nodes.
 */
final class ShardsReply {
    private final List<String> shards = new ArrayList<>();

    /** Adds a shard serving {@code first..last} with these nodes ({@link #node}), in order. */
    ShardsReply shard(int first, int last, String... nodes) {
        StringBuilder b = new StringBuilder("*4\r\n").append(bulk("slots"));
        b.append("*2\r\n:").append(first).append("\r\n:").append(last).append("\r\n");
        b.append(bulk("nodes")).append('*').append(nodes.length).append("\r\n");
        for (String n : nodes) b.append(n);
        shards.add(b.toString());
        return this;
    }

    /** One node of a shard: {@code endpoint} is {@code 127.0.0.1:port}; {@code role} master or replica. */
    static String node(String endpoint, String role, String health) {
        int colon = endpoint.lastIndexOf(':');
        String ip = endpoint.substring(0, colon);
        String port = endpoint.substring(colon + 1);
        return "*14\r\n" + bulk("id") + bulk(String.format("%040x", endpoint.hashCode() & 0xffffffffL))
                + bulk("port") + ":" + port + "\r\n"
                + bulk("ip") + bulk(ip)
                + bulk("endpoint") + bulk(ip)
                + bulk("role") + bulk(role)
                + bulk("replication-offset") + ":0\r\n"
                + bulk("health") + bulk(health);
    }

    String resp() {
        return "*" + shards.size() + "\r\n" + String.join("", shards);
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }
}
