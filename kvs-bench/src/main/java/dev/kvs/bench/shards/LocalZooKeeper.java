package dev.kvs.bench.shards;

import dev.kvs.bench.cluster.TwoDcs;
import dev.kvs.cluster.ClusterMap;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.EmbeddedZooKeeper;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * The ZooKeeper side of a {@link LocalCluster}: one {@link EmbeddedZooKeeper} in this process, its
 * credentials, and one {@link WanLink} per datacenter in front of it. A DC's nodes reach ZooKeeper only
 * through their DC's link, so a whole DC can be cut off from ZooKeeper while this process (and the
 * other DC) still reaches it. Isolating a DC {@linkplain WanLink#pause() pauses} its link: a silent
 * partition, as a real one is, in which the nodes' TCP connections stay up and nothing arrives (no
 * reset that would tell the client at once); the nodes find out only by their own timeouts.
 *
 * <p>The nodes' connect string names one server, the link; the nodes' Curator clients do not track the
 * ensemble ({@link ZkClients} turns the tracker off), so nothing rewrites it to ZooKeeper's own port.
 */
final class LocalZooKeeper implements AutoCloseable {
    private final EmbeddedZooKeeper server;
    private final String credentials;
    private final Map<String, WanLink> links;

    private LocalZooKeeper(EmbeddedZooKeeper server, String credentials, Map<String, WanLink> links) {
        this.server = server;
        this.credentials = credentials;
        this.links = links;
    }

    /**
     * Starts ZooKeeper on {@code port} and a link for each of {@code dcs} on an ephemeral loopback port,
     * with fresh digest credentials, written to {@code credentialsFile} (owner-only) for {@code kvs cluster
     * show} and operators.
     *
     * @throws IllegalStateException naming the port if ZooKeeper cannot start; nothing is left running
     */
    static LocalZooKeeper start(Path dataDir, int port, int tickMillis, Path credentialsFile, List<String> dcs) {
        String credentials = "kvs:" + HexFormat.of().formatHex(randomBytes(16));
        writePrivate(credentialsFile, credentials + "\n");
        EmbeddedZooKeeper zk;
        try {
            zk = EmbeddedZooKeeper.start(dataDir, port, tickMillis);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start ZooKeeper on 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
        Map<String, WanLink> links = new LinkedHashMap<>();
        try {
            for (String dc : dcs) {
                links.put(
                        dc,
                        WanLink.builder()
                                .listen(TwoDcs.LOOPBACK, 0)
                                .target(TwoDcs.LOOPBACK, port)
                                .build());
            }
        } catch (RuntimeException e) {
            links.values().forEach(WanLink::close);
            zk.close();
            throw e;
        }
        return new LocalZooKeeper(zk, credentials, links);
    }

    /** The digest credentials, {@code user:password}, the nodes get in their environment. */
    String credentials() {
        return credentials;
    }

    /** {@code 127.0.0.1:port} of ZooKeeper itself, as this process and operators reach it. */
    String connectString() {
        return server.connectString();
    }

    /** {@code 127.0.0.1:port} of DC {@code dc}'s link to ZooKeeper: its nodes' connect string. */
    String connectString(String dc) {
        return TwoDcs.LOOPBACK + ":" + link(dc).port();
    }

    /** Silently cuts DC {@code dc}'s nodes off ZooKeeper: their link delivers nothing, closes nothing. */
    void isolate(String dc) {
        link(dc).pause();
    }

    /** Ends {@link #isolate}: what was queued in the link arrives, then traffic flows again. */
    void heal(String dc) {
        link(dc).resume();
    }

    private WanLink link(String dc) {
        WanLink l = links.get(dc);
        if (l == null)
            throw new IllegalArgumentException("no datacenter " + dc + " (there are " + links.keySet() + ")");
        return l;
    }

    /** Creates the cluster map of {@code plan}, connecting directly (not through a DC's link). */
    ClusterMap createMap(Duration session, MapPlan plan) throws InterruptedException {
        return withClient(
                session,
                "create the cluster map",
                client -> MapInit.create(client, plan).map());
    }

    /**
     * The map of {@code cluster} as ZooKeeper holds it now, read directly.
     *
     * @throws IllegalStateException if ZooKeeper cannot be read in 10 s or holds no map
     */
    ClusterMap readMap(String cluster, Duration session) throws InterruptedException {
        return withClient(
                session,
                "read the map of " + cluster,
                client -> new ClusterMapStore(client, new ZkPaths(cluster))
                        .read()
                        .orElseThrow(() -> new IllegalStateException("ZooKeeper holds no map of " + cluster))
                        .map());
    }

    private interface ZkCall<T> {
        T call(CuratorFramework client) throws Exception;
    }

    private <T> T withClient(Duration session, String what, ZkCall<T> call) throws InterruptedException {
        String connect = server.connectString();
        CuratorFramework client = ZkClients.start(new ZkClients.Settings(connect, session, Optional.of(credentials)));
        try {
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("cannot reach ZooKeeper at " + connect + " in 10 s");
            }
            return call.call(client);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot " + what + " in " + connect + ": " + e, e);
        } finally {
            client.close();
        }
    }

    /** Closes the links, then ZooKeeper. */
    @Override
    public void close() {
        links.values().forEach(WanLink::close);
        server.close();
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /** Writes {@code text} to {@code file}, readable by its owner only where the file system says so. */
    static void writePrivate(Path file, String text) {
        try {
            Files.deleteIfExists(file);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
