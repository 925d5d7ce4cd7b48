package dev.kvs.coordination;

/**
 * Where one cluster keeps its state in ZooKeeper: everything under {@code /kvs/<cluster>}, so several
 * clusters can share an ensemble.
 */
public record ZkPaths(String cluster) {
    /** The parent of every cluster's znode. */
    public static final String PARENT = "/kvs";

    public ZkPaths {
        if (cluster == null || !cluster.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("cluster name must be 1-64 of [A-Za-z0-9_.-]: " + cluster);
        }
    }

    public String root() {
        return PARENT + "/" + cluster;
    }

    /** The cluster map. */
    public String map() {
        return root() + "/map";
    }

    /** The parent of the members' ephemeral znodes. */
    public String members() {
        return root() + "/members";
    }

    public String member(String node) {
        return members() + "/" + node;
    }

    /** The coordinators' leader election. */
    public String coordinator() {
        return root() + "/coordinator";
    }
}
