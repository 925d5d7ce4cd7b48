package dev.kvs.bench.shards;

import dev.kvs.coordination.ZkClients;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import picocli.CommandLine.Option;

/**
 * Where a cluster's map lives, as {@code kvs cluster init} and {@code show} take it: the ensemble, the
 * cluster's name, and the digest credentials its znodes are closed with (a file, else {@value
 * CoordinationConfig#CREDENTIALS_ENV}, else none), as a picocli mixin.
 */
public final class ZooKeeperOptions {
    /** How long a command waits for its first connection. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    @Option(
            names = "--zookeeper",
            required = true,
            paramLabel = "HOST:PORT,...",
            description = "The ZooKeeper ensemble, as the nodes' coordination.zookeeper")
    String zookeeper;

    @Option(
            names = "--cluster",
            required = true,
            paramLabel = "NAME",
            description = "The cluster's name, as the nodes' 'cluster:' (1-64 of A-Z a-z 0-9 _ . -)")
    String cluster;

    @Option(
            names = "--credentials-file",
            paramLabel = "FILE",
            description = "A file holding user:password for ZooKeeper's digest scheme (default: $"
                    + CoordinationConfig.CREDENTIALS_ENV + ", else none: an open ensemble)")
    Path credentialsFile;

    /**
     * The credentials given: the file's content without surrounding whitespace, else {@code env}'s
     * {@value CoordinationConfig#CREDENTIALS_ENV}, else none.
     *
     * @throws IllegalArgumentException if the file cannot be read or is empty
     */
    Optional<String> credentials(UnaryOperator<String> env) {
        if (credentialsFile != null) {
            try {
                String c = Files.readString(credentialsFile, StandardCharsets.UTF_8)
                        .strip();
                if (c.isEmpty())
                    throw new IllegalArgumentException("--credentials-file " + credentialsFile + " is empty");
                return Optional.of(c);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --credentials-file " + credentialsFile + ": " + e);
            }
        }
        String fromEnv = env.apply(CoordinationConfig.CREDENTIALS_ENV);
        return fromEnv == null || fromEnv.isEmpty() ? Optional.empty() : Optional.of(fromEnv);
    }

    /**
     * The client's settings, checked.
     *
     * @throws IllegalArgumentException quoting the connect string, or saying the credentials are not
     *     {@code user:password} (without quoting them)
     */
    ZkClients.Settings settings(UnaryOperator<String> env) {
        for (String server : String.valueOf(zookeeper).split(",", -1)) {
            NodeConfig.checkHostPort("--zookeeper", server.strip());
        }
        return new ZkClients.Settings(zookeeper, CoordinationConfig.DEFAULT_SESSION_TIMEOUT, credentials(env));
    }

    /**
     * Reports on {@code err} why a command ({@code name}) could not do its work on ZooKeeper {@code
     * connectString}: a refusal of the map itself ({@link IllegalStateException}, its message), credentials
     * the cluster's znodes do not belong to, or any other failure. Returns {@link CliErrorHandler#FAILURE}.
     */
    static int failed(PrintWriter err, String name, String connectString, Exception e) {
        if (e instanceof IllegalStateException) {
            err.println(name + ": " + e.getMessage());
        } else if (e instanceof KeeperException.NoAuthException) {
            err.println(name + ": ZooKeeper refused (" + e.getMessage() + "): the cluster's znodes belong to other"
                    + " credentials");
        } else {
            err.println(name + ": ZooKeeper " + connectString + " failed: " + e);
        }
        err.flush();
        return CliErrorHandler.FAILURE;
    }

    /**
     * A client connected to the ensemble; the caller closes it.
     *
     * @throws IllegalStateException if it does not connect within {@link #CONNECT_TIMEOUT}
     */
    static CuratorFramework connect(ZkClients.Settings settings) throws InterruptedException {
        CuratorFramework zk = ZkClients.start(settings);
        if (!zk.blockUntilConnected((int) CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IllegalStateException("cannot reach ZooKeeper at " + settings.connectString() + " within "
                    + CONNECT_TIMEOUT.toSeconds() + " s");
        }
        return zk;
    }
}
