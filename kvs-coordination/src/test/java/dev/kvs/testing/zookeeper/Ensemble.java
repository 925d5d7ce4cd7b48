package dev.kvs.testing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.wan.WanLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * A real three-server ZooKeeper ensemble (Curator's {@link TestingCluster}) with a 100 ms tick, so that
 * sessions of 200 ms to 2 s are granted, and clients whose traffic to every server goes through a {@link
 * WanLink} of its own, which a test pauses for a silent partition or cuts.
 *
 * <p>Its ports come from {@link QuietPorts}, outside the kernel's ephemeral range: a port Curator picks
 * by binding port 0 is free only until the ensemble binds it, and a client's outgoing connection can take
 * it in between; ZooKeeper then exits the JVM (exit code 14, "unable to bind quorum port").
 */
public final class Ensemble implements AutoCloseable {
    /** The session timeout tests ask for (and get). */
    public static final Duration SESSION = Duration.ofMillis(1500);

    private final TestingCluster cluster;
    private final List<AutoCloseable> opened = new ArrayList<>();

    public Ensemble() throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(
                    null, QuietPorts.free(), QuietPorts.free(), QuietPorts.free(), true, id, 100, 100));
        }
        cluster = new TestingCluster(specs);
        cluster.start();
    }

    public String connectString() {
        return cluster.getConnectString();
    }

    /** The servers' client ports on loopback, for links a test puts in front of them. */
    public List<Integer> clientPorts() {
        return cluster.getInstances().stream().map(InstanceSpec::getPort).toList();
    }

    /** A client connected straight to the servers. */
    public CuratorFramework client() throws InterruptedException {
        return connected(cluster.getConnectString());
    }

    /** A client whose every server is reached through a link of its own, with those links. */
    public record Holder(CuratorFramework zk, List<WanLink> links) implements AutoCloseable {
        public void pause() {
            links.forEach(WanLink::pause);
        }

        public void resume() {
            links.forEach(WanLink::resume);
        }

        @Override
        public void close() {
            links.forEach(WanLink::close);
            zk.close();
        }
    }

    public Holder clientThroughLinks() throws InterruptedException {
        List<String> addresses = new ArrayList<>();
        List<WanLink> links = new ArrayList<>();
        for (InstanceSpec spec : cluster.getInstances()) {
            WanLink link = WanLink.builder().target("127.0.0.1", spec.getPort()).build();
            links.add(link);
            addresses.add("127.0.0.1:" + link.port());
        }
        CuratorFramework zk = connected(String.join(",", addresses));
        return new Holder(zk, links);
    }

    private CuratorFramework connected(String connectString) throws InterruptedException {
        CuratorFramework zk = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) SESSION.toMillis())
                .connectionTimeoutMs((int) SESSION.toMillis())
                .retryPolicy(new RetryOneTime(50))
                // it would rewrite the connection string to the servers' own addresses, around the links
                .ensembleTracker(false)
                .build();
        zk.start();
        assertThat(zk.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return zk;
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
