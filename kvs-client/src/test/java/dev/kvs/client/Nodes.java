package dev.kvs.client;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Real kvs nodes in-process, on loopback with ephemeral ports, for the client's scenario tests. */
final class Nodes {
    private Nodes() {}

    /** A lone primary's configuration, with a store small enough for tests. */
    static NodeConfig.Builder primary(String name) {
        return NodeConfig.builder().name(name).port(0).adminPort(0).replPort(0).store(store().build());
    }

    static StoreConfig.Builder store() {
        return StoreConfig.builder().maxEntries(100_000).maxBytes(256L << 20);
    }

    /** A backup: it answers data commands {@code -NOTPRIMARY}. */
    static KvsNode startBackup(String name) {
        return KvsNode.start(primary(name).role(Role.BACKUP).build());
    }

    static String endpoint(KvsNode node) {
        return "127.0.0.1:" + node.port();
    }

    /**
     * A port nothing listens on right now (bound and released). Another socket may take it at once
     * (a node's port 0, a client's own outgoing port): for an endpoint that must stay dead, use
     * {@link #deadEndpoint()}.
     */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An endpoint that refuses connections for as long as it is open: its port is bound and never
     * listened on, so no node started meanwhile can be handed it, and no connection can take it as
     * its own local port and reach itself.
     */
    static DeadEndpoint deadEndpoint() {
        Socket s = new Socket();
        try {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new DeadEndpoint(s);
        } catch (IOException e) {
            try {
                s.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new UncheckedIOException(e);
        }
    }

    /** See {@link #deadEndpoint()}. */
    record DeadEndpoint(Socket holder) implements AutoCloseable {
        /** host:port, as the client's endpoints list takes it. */
        String endpoint() {
            return "127.0.0.1:" + holder.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            holder.close();
        }
    }
}
