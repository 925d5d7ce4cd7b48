package dev.kvs.client;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

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

    /** A port nothing listens on right now (bound and released). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
