package dev.kvs.bench.cluster;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.TlsFiles;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.TlsPortsConfig;
import dev.kvs.server.config.UserConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * An in-process node secured as the production checklist of {@code docs/security.md} says for the tools'
 * ports: TLS-only client and admin ports with a {@link RunPki} certificate, an admin token, and users. The
 * tools' tests drive it.
 */
public final class SecuredNode {
    /** The admin token of every secured node. */
    public static final String ADMIN_TOKEN = "bench-test-admin-token-0123456789";
    /** A readwrite user, and a readonly one. */
    public static final String APP = "app", APP_PASSWORD = "app-pass", READER = "reader", READER_PASSWORD = "r-pass";

    private SecuredNode() {}

    /** The run's CA and a certificate for {@code name} in {@code dir/tls}. */
    public static RunPki pki(Path dir, String name) {
        return RunPki.create(dir, List.of(name), List.of());
    }

    /** Starts a lone primary named {@code name} with {@code pki}'s certificate on loopback. */
    public static KvsNode start(RunPki pki, String name, TlsPortsConfig.ClientAuth clientAuth) {
        return KvsNode.start(NodeConfig.builder()
                .name(name)
                .port(0)
                .replPort(0)
                .adminPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(200_000)
                        .maxBytes(512L << 20)
                        .build())
                .users(List.of(
                        UserConfig.withPassword(APP, APP_PASSWORD, UserConfig.Role.READWRITE),
                        UserConfig.withPassword(READER, READER_PASSWORD, UserConfig.Role.READONLY)))
                .admin(AdminConfig.defaults().withToken(ADMIN_TOKEN))
                .tls(new TlsFiles(pki.certFile(name), pki.keyFile(name), pki.caFile(), Optional.empty()))
                .tlsPorts(new TlsPortsConfig(true, true, clientAuth))
                .build());
    }
}
