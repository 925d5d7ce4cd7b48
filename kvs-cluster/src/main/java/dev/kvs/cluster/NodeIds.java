package dev.kvs.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A node's id in the cluster map and in {@code CLUSTER} replies: 40 lowercase hex digits, Redis's form,
 * the SHA-1 of {@code cluster/name}. Derived rather than generated and kept: a memory-only node has no
 * data directory to keep one in, the name already identifies the node in its cluster, and whoever
 * writes the cluster map (a node, or {@code kvs cluster init} before any node runs) can compute its
 * members' ids. Renaming a node changes its id.
 */
public final class NodeIds {
    private NodeIds() {}

    /** The id of the node named {@code name} in {@code cluster}. */
    public static String of(String cluster, String name) {
        if (cluster == null || name == null) {
            throw new IllegalArgumentException("cluster and node name are needed: " + cluster + "/" + name);
        }
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-1").digest((cluster + "/" + name).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }
}
