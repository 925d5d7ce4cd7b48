package dev.kvs.server.internal.cluster;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Cluster layouts for tests: the shapes a Redis Cluster of the same size would have. */
public final class TestLayouts {
    private TestLayouts() {}

    /** A stable 40-hex node id for {@code name}: its SHA-1. */
    public static String nodeId(String name) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(name.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Two shards, as {@code redis-cli} would split two masters with one replica: {@code a} owns 0-8191
     * with primary {@code a1} (port {@code a1Port}) and backup {@code a2} ({@code a2Port}), {@code b}
     * owns 8192-16383 with primary {@code b1} ({@code b1Port}) alone; every member on 127.0.0.1.
     */
    public static ClusterLayout twoShards(String me, int a1Port, int a2Port, int b1Port) {
        ClusterMap map = new ClusterMap(List.of(
                new Shard("a", List.of(new SlotRange(0, 8191)), List.of("a1", "a2"), "a1", 1),
                new Shard("b", List.of(new SlotRange(8192, 16383)), List.of("b1"), "b1", 2)));
        return new ClusterLayout(
                map,
                me,
                Map.of(
                        "a1", new ClusterMember(nodeId("a1"), "127.0.0.1", a1Port),
                        "a2", new ClusterMember(nodeId("a2"), "127.0.0.1", a2Port),
                        "b1", new ClusterMember(nodeId("b1"), "127.0.0.1", b1Port)));
    }
}
