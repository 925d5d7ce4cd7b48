package dev.kvs.coordination;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * One ZooKeeper server inside the process, for the one-machine default ({@code ./kvs cluster}) and
 * demos: no quorum, so no witness and no tolerance of its own failure. Production runs a three-site
 * ensemble (see the operations guide); nodes reach it by its connect string either way.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private final ZooKeeperServerEmbedded server;
    private final int port;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Starts a server on {@code port} (loopback only) keeping its data in {@code dataDir}.
     *
     * @param tickMillis ZooKeeper's tick: sessions of 2 to 20 ticks are granted
     */
    public static EmbeddedZooKeeper start(Path dataDir, int port, int tickMillis) throws Exception {
        if (port < 1 || port > 65_535) throw new IllegalArgumentException("zookeeper port out of 1..65535: " + port);
        if (tickMillis < 10) throw new IllegalArgumentException("zookeeper tick < 10 ms: " + tickMillis);
        Files.createDirectories(dataDir);
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(port));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("tickTime", Integer.toString(tickMillis));
        config.setProperty("initLimit", "10");
        config.setProperty("syncLimit", "5");
        // ZooKeeper's own HTTP admin server (Jetty) is not shipped: kvs has its admin port.
        config.setProperty("admin.enableServer", "false");
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                .baseDir(dataDir)
                .configuration(config)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build();
        server.start(30_000);
        return new EmbeddedZooKeeper(server, port);
    }

    /** {@code 127.0.0.1:port}, for a node's {@code zookeeper} setting. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.close();
    }
}
