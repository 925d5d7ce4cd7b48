package dev.kvs.coordination;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's ephemeral member znode, {@code /kvs/<cluster>/members/<node>}, holding its {@link
 * MemberStatus} as JSON. Curator's {@link PersistentNode} re-creates it after the session is replaced, so
 * a node that came back is seen again; a coordinator reads its disappearance as the node's death. The
 * node's {@link Lease} is proven by this znode.
 */
public final class MemberNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MemberNode.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PersistentNode node;
    private final String path;

    public MemberNode(CuratorFramework zk, ZkPaths paths, MemberStatus status) throws Exception {
        this.path = paths.member(status.node());
        this.node = new PersistentNode(zk, CreateMode.EPHEMERAL, false, path, JSON.writeValueAsBytes(status));
    }

    /** Creates the znode and waits up to {@code timeoutMs} for it to exist. */
    public boolean start(long timeoutMs) throws InterruptedException {
        node.start();
        return node.waitForInitialCreate(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Publishes a new status (role, epoch, link state...). */
    public void update(MemberStatus status) throws Exception {
        node.setData(JSON.writeValueAsBytes(status));
    }

    public String path() {
        return path;
    }

    /**
     * Deletes the znode if ZooKeeper can be reached; if not, it goes with the session when that expires
     * (a coordinator then sees the node gone, as it should). Interruptible: {@link ZkClients#closeWithin}
     * interrupts it when ZooKeeper does not answer in time, and says so itself.
     */
    @Override
    public void close() {
        try {
            node.close();
        } catch (IOException unreachable) {
            if (unreachable.getCause() instanceof InterruptedException) return;
            log.info(
                    "member znode {} not deleted ({}); it goes when the session expires",
                    path,
                    unreachable.getMessage());
        }
    }
}
