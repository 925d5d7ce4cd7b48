package dev.kvs.coordination;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * How a node connects to ZooKeeper. With credentials, the session authenticates with ZooKeeper's
 * {@code digest} scheme and every znode it creates is readable and writable only by sessions with the
 * same credentials ({@code CREATOR_ALL_ACL}): the map, the members and the election are closed to
 * anyone else on the ensemble.
 */
public final class ZkClients {

    /**
     * @param connectString {@code host:port,...} of the ensemble
     * @param sessionTimeout asked of ZooKeeper; the lease lasts two thirds of what it grants
     * @param credentials {@code user:password} for the digest scheme; empty for an open ensemble (tests,
     *     the one-machine default)
     */
    public record Settings(String connectString, Duration sessionTimeout, Optional<String> credentials) {
        public Settings {
            if (connectString == null || connectString.isBlank()) {
                throw new IllegalArgumentException("zookeeper connect string is empty");
            }
            if (sessionTimeout.toMillis() < 200 || sessionTimeout.toMillis() > 600_000) {
                throw new IllegalArgumentException(
                        "zookeeper session timeout out of 200 ms..10 min: " + sessionTimeout.toMillis() + " ms");
            }
            credentials.ifPresent(c -> {
                int colon = c.indexOf(':');
                if (colon < 1 || colon == c.length() - 1) {
                    throw new IllegalArgumentException("zookeeper credentials must be user:password");
                }
            });
        }
    }

    private ZkClients() {}

    /** A started client (not yet connected: Curator connects in the background). */
    public static CuratorFramework start(Settings settings) {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(settings.connectString())
                .sessionTimeoutMs((int) settings.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) settings.sessionTimeout().toMillis())
                .retryPolicy(new ExponentialBackoffRetry(50, 3, 1000))
                // the connect string is the operator's: keep to it (the tracker would rewrite it)
                .ensembleTracker(false);
        settings.credentials()
                .ifPresent(c -> b.authorization("digest", c.getBytes(UTF_8)).aclProvider(CREATOR_ONLY));
        CuratorFramework zk = b.build();
        zk.start();
        return zk;
    }

    /**
     * Runs {@code lastWrites} (a node deleting its member znode, say), then closes {@code zk}, and waits for
     * both at most {@code grace}. A client cut off from its ensemble would otherwise spend its retry policy
     * and connection timeouts on them (several seconds, more at a longer session timeout). Past the grace
     * both are interrupted and the client closed without its session's close reaching ZooKeeper, which
     * expires the session a session timeout later and deletes its ephemeral znodes, as for a node that died.
     * So nothing of the caller's safety may depend on {@code lastWrites}.
     *
     * <p>They run on a thread of their own, which the interruption ends within milliseconds; the caller
     * waits at most twice {@code grace}.
     *
     * @return true if both finished within {@code grace}; false if ZooKeeper was given up on
     */
    public static boolean closeWithin(CuratorFramework zk, Duration grace, Runnable lastWrites) {
        Thread closer = new Thread(
                () -> {
                    try {
                        lastWrites.run();
                    } finally {
                        zk.close();
                    }
                },
                "kvs-zookeeper-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(grace.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!closer.isAlive()) return true;
        // Again and again: ZooKeeper's close takes the first interruption for the end of its wait for the
        // session's close, then waits for its connecting thread (which sleeps up to a second between
        // attempts) unless interrupted again. Bounded all the same.
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            while (closer.isAlive() && System.nanoTime() - deadline < 0) {
                closer.interrupt();
                closer.join(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    // Not List.of: ZooKeeper asks its ACL lists whether they contain null, which List.of answers with a throw.
    private static final List<ACL> SHARED_PARENT = Collections.unmodifiableList(
            Arrays.asList(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE)));

    private static final ACLProvider CREATOR_ONLY = new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            // The parent of every cluster: other clusters, with other credentials, must be able to add
            // theirs beside ours.
            return path.equals(ZkPaths.PARENT) ? SHARED_PARENT : ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    };
}
