package dev.kvs.replication.auth;

import dev.kvs.replication.wire.FrameMac;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret both nodes of a cluster share to authenticate their replication connections: each side
 * proves it knows the secret with an HMAC-SHA256 over two fresh nonces (one from each side), so a
 * proof cannot be replayed on another connection nor reflected back at its sender. The secret itself
 * never crosses the wire. From the secret and both nonces each side then derives one key per direction
 * of the connection, under which every later frame carries a MAC ({@link FrameMac}) unless TLS
 * protects the connection. Immutable; {@link #toString()} does not show it.
 */
public final class ClusterSecret {
    /** The shortest secret accepted, in UTF-8 bytes. */
    public static final int MIN_BYTES = 16;

    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] LISTENER = "kvs-replication listener proof\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DIALLER = "kvs-replication dialler proof\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DIALLER_FRAMES =
            "kvs-replication frames dialler to listener\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LISTENER_FRAMES =
            "kvs-replication frames listener to dialler\0".getBytes(StandardCharsets.US_ASCII);
    // the direction field of each direction's FrameMac nonce
    private static final int DIALLER_DIRECTION = 1;
    private static final int LISTENER_DIRECTION = 2;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;
    private final byte[] cluster;

    private ClusterSecret(byte[] secret, String cluster) {
        this.key = new SecretKeySpec(secret, ALGORITHM);
        this.cluster = cluster.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The secret of {@code cluster}.
     *
     * @throws IllegalArgumentException if the secret is shorter than {@value #MIN_BYTES} UTF-8 bytes
     */
    public static ClusterSecret of(String secret, String cluster) {
        Objects.requireNonNull(secret, "secret == null");
        Objects.requireNonNull(cluster, "cluster == null");
        byte[] b = secret.getBytes(StandardCharsets.UTF_8);
        if (b.length < MIN_BYTES) {
            throw new IllegalArgumentException(
                    "the cluster secret must be at least " + MIN_BYTES + " bytes (it is " + b.length + ")");
        }
        return new ClusterSecret(b, cluster);
    }

    /** A fresh random nonce of {@code n} bytes. */
    static byte[] nonce(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    /** The listener's proof: over the dialler's nonce, then its own. */
    byte[] listenerProof(byte[] diallerNonce, byte[] listenerNonce) {
        return mac(LISTENER, diallerNonce, listenerNonce);
    }

    /** The dialler's proof: over the listener's nonce, then its own. */
    byte[] diallerProof(byte[] diallerNonce, byte[] listenerNonce) {
        return mac(DIALLER, listenerNonce, diallerNonce);
    }

    /** The MAC of the frames the dialler sends on the connection of these nonces, after its proof. */
    FrameMac diallerFrames(byte[] diallerNonce, byte[] listenerNonce) {
        return new FrameMac(frameKey(DIALLER_FRAMES, diallerNonce, listenerNonce), DIALLER_DIRECTION);
    }

    /** The MAC of the frames the listener sends on the connection of these nonces, after the dialler's proof. */
    FrameMac listenerFrames(byte[] diallerNonce, byte[] listenerNonce) {
        return new FrameMac(frameKey(LISTENER_FRAMES, diallerNonce, listenerNonce), LISTENER_DIRECTION);
    }

    /**
     * HKDF-SHA256 (RFC 5869) with both nonces as the salt and the secret as the input key: extract,
     * then one block of expand with the direction's label and the cluster as the info. A fresh key per
     * connection (the nonces) and direction (the label); the proofs, HMACs under the secret itself,
     * say nothing about it.
     */
    private byte[] frameKey(byte[] label, byte[] diallerNonce, byte[] listenerNonce) {
        try {
            Mac extract = Mac.getInstance(ALGORITHM);
            byte[] salt = new byte[diallerNonce.length + listenerNonce.length];
            System.arraycopy(diallerNonce, 0, salt, 0, diallerNonce.length);
            System.arraycopy(listenerNonce, 0, salt, diallerNonce.length, listenerNonce.length);
            extract.init(new SecretKeySpec(salt, ALGORITHM));
            byte[] prk = extract.doFinal(key.getEncoded());
            Mac expand = Mac.getInstance(ALGORITHM);
            expand.init(new SecretKeySpec(prk, ALGORITHM));
            expand.update(label);
            expand.update(cluster);
            expand.update((byte) 1);
            return Arrays.copyOf(expand.doFinal(), FrameMac.KEY_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Constant-time comparison of a received proof with the expected one. */
    static boolean matches(byte[] expected, byte[] received) {
        return MessageDigest.isEqual(expected, received);
    }

    private byte[] mac(byte[] label, byte[] first, byte[] second) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(label);
            mac.update(cluster);
            mac.update((byte) 0);
            mac.update(first);
            mac.update(second);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "ClusterSecret[****]";
    }
}
