package dev.kvs.replication;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a node's TLS identity and trust are, as PEM files.
 *
 * @param certFile this node's certificate chain (leaf first)
 * @param keyFile this node's private key (PKCS#8, unencrypted)
 * @param caFile the certificates a peer's chain must lead to
 * @param peerName the name the peer's certificate must carry (a DNS or IP subject alternative name,
 *     or its common name); empty: on a dialled connection the peer's host name, on an accepted one any
 *     certificate the CA signed
 */
public record TlsFiles(Path certFile, Path keyFile, Path caFile, Optional<String> peerName) {
    public TlsFiles {
        Objects.requireNonNull(certFile, "certFile == null");
        Objects.requireNonNull(keyFile, "keyFile == null");
        Objects.requireNonNull(caFile, "caFile == null");
        Objects.requireNonNull(peerName, "peerName == null (use Optional.empty())");
        for (Path p : new Path[] {certFile, keyFile, caFile}) {
            if (!Files.isReadable(p)) throw new IllegalArgumentException("cannot read TLS file " + p);
        }
        peerName.ifPresent(n -> {
            if (n.isBlank()) throw new IllegalArgumentException("peerName is blank");
        });
    }
}
