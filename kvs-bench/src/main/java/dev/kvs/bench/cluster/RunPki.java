package dev.kvs.bench.cluster;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A throwaway certificate authority and node certificates for one run of a tool that starts its own
 * nodes with TLS ({@code kvs drill --tls}): a fresh EC P-256 CA, never reused, and for each node a
 * certificate for server and client use (replication is mutual TLS) naming the node, {@code
 * localhost} and every address it is reached on. PEM files in {@code DIR/tls/}, the directory and the
 * keys readable by their owner only. Valid for a day.
 */
public final class RunPki {
    private static final Pattern IP = Pattern.compile("[0-9.]+|.*:.*");

    private final Path dir;

    private RunPki(Path dir) {
        this.dir = dir;
    }

    /**
     * Writes {@code dir/tls/ca.crt} and, for each of {@code nodes}, {@code NAME.crt} and {@code
     * NAME.key}, each certificate naming the node, {@code localhost} and {@code hosts} (IP addresses
     * or DNS names).
     *
     * @throws UncheckedIOException if a file cannot be written
     * @throws IllegalStateException if a certificate cannot be made
     */
    public static RunPki create(Path dir, List<String> nodes, List<String> hosts) {
        Path tls = dir.resolve("tls");
        try {
            Files.createDirectories(tls);
            if (posix()) Files.setPosixFilePermissions(tls, PosixFilePermissions.fromString("rwx------"));
            Instant now = Instant.now();
            X509Bundle ca = new CertificateBuilder()
                    .subject("CN=kvs run CA " + Long.toHexString(now.toEpochMilli()))
                    .notBefore(now.minusSeconds(60))
                    .notAfter(now.plus(Duration.ofDays(1)))
                    .setIsCertificateAuthority(true)
                    .ecp256()
                    .buildSelfSigned();
            RunPki pki = new RunPki(tls);
            write(pki.caFile(), ca.getCertificatePEM(), false);
            for (String node : nodes) {
                Set<String> names = new LinkedHashSet<>(List.of(node, "localhost", "127.0.0.1"));
                names.addAll(hosts);
                CertificateBuilder b = new CertificateBuilder()
                        .subject("CN=" + node)
                        .notBefore(now.minusSeconds(60))
                        .notAfter(now.plus(Duration.ofDays(1)))
                        .addExtendedKeyUsageServerAuth()
                        .addExtendedKeyUsageClientAuth()
                        .ecp256();
                for (String n : names) {
                    if (IP.matcher(n).matches()) b.addSanIpAddress(n);
                    else b.addSanDnsName(n);
                }
                X509Bundle leaf = b.buildIssuedBy(ca);
                write(pki.certFile(node), leaf.getCertificatePathPEM(), false);
                write(pki.keyFile(node), leaf.getPrivateKeyPEM(), true);
            }
            return pki;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the run's TLS files in " + tls + ": " + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot make the run's TLS certificates: " + e, e);
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    private static void write(Path file, String pem, boolean secret) throws IOException {
        Files.deleteIfExists(file);
        if (secret && posix()) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
    }

    /** The CA certificate every node's and tool's trust starts from. */
    public Path caFile() {
        return dir.resolve("ca.crt");
    }

    /** {@code node}'s certificate chain, leaf first. */
    public Path certFile(String node) {
        return dir.resolve(node + ".crt");
    }

    /** {@code node}'s private key (PKCS#8), owner-only. */
    public Path keyFile(String node) {
        return dir.resolve(node + ".key");
    }

    /** What a tool needs to reach the nodes' TLS ports: trust in the CA, host names checked. */
    public ClientTlsFiles clientTls() {
        return ClientTlsFiles.trusting(caFile());
    }

    /**
     * The {@code tls:} section of {@code node}'s YAML: its certificate, mutual TLS on replication with
     * peers the CA signed, and TLS only on the client and admin ports.
     */
    public String yaml(String node) {
        return "tls:\n"
                + "  certFile: \"" + certFile(node) + "\"\n"
                + "  keyFile: \"" + keyFile(node) + "\"\n"
                + "  caFile: \"" + caFile() + "\"\n"
                + "  clients: true\n"
                + "  admin: true\n";
    }
}
