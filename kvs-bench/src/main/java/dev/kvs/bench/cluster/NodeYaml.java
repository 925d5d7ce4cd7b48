package dev.kvs.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * What the YAML of both nodes of two DCs says besides where each listens: one per drill or benchmark,
 * each writing its nodes' files with {@link #write}.
 *
 * @param cluster the nodes' cluster name, e.g. {@code kvs-drill}
 * @param mode the nodes' default replication mode label, e.g. {@code id-first}
 * @param tuning the YAML the file ends with, whole lines: the {@code store}, {@code replication} and
 *     {@code failover} sections, e.g. {@code "store:\n  maxBytes: 2GiB\n"}
 * @param adminToken the nodes' {@code admin.token}, which {@link TwoDcs} sends on every admin request;
 *     null for a fresh one ({@link #newAdminToken}): the nodes have a cluster secret, so a node without
 *     a token would not start
 * @param pki the run's certificates: each node gets its {@link RunPki#yaml(String) tls section}
 *     (mutual TLS on replication, TLS-only client and admin ports); null for none
 * @param clusterSecret whether both nodes get the run's {@code clusterSecret} (they prove it on every
 *     replication connection and, without TLS, MAC every frame after); true but to measure that cost
 */
public record NodeYaml(
        String cluster, String mode, String tuning, String adminToken, RunPki pki, boolean clusterSecret) {
    private static final SecureRandom RANDOM = new SecureRandom();

    public NodeYaml {
        if (adminToken == null) adminToken = newAdminToken();
    }

    /** With the run's cluster secret. */
    public NodeYaml(String cluster, String mode, String tuning, String adminToken, RunPki pki) {
        this(cluster, mode, tuning, adminToken, pki, true);
    }

    /** With a fresh admin token. */
    public NodeYaml(String cluster, String mode, String tuning) {
        this(cluster, mode, tuning, null, null);
    }

    /** Without TLS. */
    public NodeYaml(String cluster, String mode, String tuning, String adminToken) {
        this(cluster, mode, tuning, adminToken, null);
    }

    /** The same with TLS from {@code runPki} (null: none). */
    public NodeYaml withPki(RunPki runPki) {
        return new NodeYaml(cluster, mode, tuning, adminToken, runPki, clusterSecret);
    }

    /** The same without a cluster secret: replication frames carry no MAC (unless TLS, none is needed). */
    public NodeYaml withoutClusterSecret() {
        return new NodeYaml(cluster, mode, tuning, adminToken, pki, false);
    }

    /** Whether the nodes' client and admin ports speak TLS only. */
    public boolean tls() {
        return pki != null;
    }

    /** A fresh random admin token (64 hex digits): one per drill or benchmark, never reused. */
    public static String newAdminToken() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * The cluster secret of every node this process starts: fresh per run, so the nodes prove it to
     * each other on every replication connection, as a production pair does.
     */
    static final String RUN_SECRET = HexFormat.of().formatHex(randomBytes(24));

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /**
     * Writes {@code dir/name.yaml} for one node and returns its path, readable by its owner only (where
     * the file system has POSIX permissions): it holds the cluster secret and the admin token.
     *
     * @param role {@code primary} or {@code backup}
     * @param bind the address the node binds its ports on
     * @param port its RESP port, 0 for any free one (likewise {@code replPort} and {@code adminPort})
     * @param peer the primary's replication peer {@code host:port}, null for the backup
     * @throws UncheckedIOException if the file cannot be written
     */
    public Path write(
            Path dir, String name, String role, String bind, int port, int replPort, int adminPort, String peer) {
        String yaml = "cluster: " + cluster + "\n"
                + "name: " + name + "\n"
                + "role: " + role + "\n"
                + "bind: " + bind + "\n"
                + "port: " + port + "\n"
                + "replPort: " + replPort + "\n"
                + "adminPort: " + adminPort + "\n"
                + (peer == null ? "" : "peer: " + peer + "\n")
                + "mode: " + mode + "\n"
                + (clusterSecret ? "clusterSecret: " + RUN_SECRET + "\n" : "")
                + "admin:\n  token: \"" + adminToken + "\"\n"
                + (pki == null ? "" : pki.yaml(name))
                + tuning;
        Path file = dir.resolve(name + ".yaml");
        try {
            Files.deleteIfExists(file);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }
}
