package dev.kvs.replication.wire;

import dev.kvs.core.log.ThrottledLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tag that follows every frame one side of a connection sends once both sides proved the cluster
 * secret and no TLS protects the connection: 16 bytes of AES-GCM over the frame's bytes, under a key
 * of this connection and direction, with the frame's sequence number in this direction as the nonce.
 * The sequence number is never sent: each side counts the frames, so a frame altered, injected,
 * replayed, reordered or dropped on the way fails the next check.
 *
 * <p>The frame is AES-GCM's plaintext and the ciphertext is thrown away: the tag authenticates the
 * ciphertext, which the key and the nonce map one to one to the frame. AES-GCM rather than HMAC-SHA256
 * because values of 1-10 MiB go through it: with AES-NI and carry-less multiply the JDK's AES-GCM
 * runs at about 5 GB/s where HmacSHA256 (SHA extensions) runs at 2 GB/s; GMAC proper (the frame as
 * associated data only) is not intrinsified in JDK 17 for large inputs (0.13 GB/s). Measured on the
 * build machine, see BENCHMARKS.md.
 *
 * <p>One instance per direction of one connection, used on its event loop only: not thread-safe.
 */
public final class FrameMac {
    /** The bytes of the tag after each frame. */
    public static final int TAG_BYTES = 16;

    /** The bytes of a key. */
    public static final int KEY_BYTES = 16;

    /** The frame's bytes are encrypted in pieces of this size into one scratch buffer, never all at once. */
    private static final int PIECE_BYTES = 16 * 1024;

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private static final Logger log = LoggerFactory.getLogger(FrameMac.class);
    private static final ThrottledLog failures = new ThrottledLog(log);

    /** Frames tagged and checked by {@link #warmUp}: enough for the JIT to compile the path with its AES intrinsics. */
    static final int WARM_UP_FRAMES = 20_000;

    private static final AtomicBoolean warming = new AtomicBoolean();

    private final SecretKeySpec key;
    private final int direction;
    private final Cipher gcm;
    private final byte[] expected = new byte[TAG_BYTES];
    private final byte[] received = new byte[TAG_BYTES];
    private ByteBuffer scratch;
    private long seq;

    /**
     * @param key {@value #KEY_BYTES} bytes, fresh for this connection and direction
     * @param direction a number that differs between the two directions of a connection (part of the
     *     nonce, so that even one key for both could never reuse a nonce)
     * @throws IllegalArgumentException if the key is not {@value #KEY_BYTES} bytes
     */
    public FrameMac(byte[] key, int direction) {
        if (key.length != KEY_BYTES) throw new IllegalArgumentException("key of " + key.length + " bytes");
        this.key = new SecretKeySpec(key, "AES");
        this.direction = direction;
        try {
            this.gcm = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM is not available in this JVM", e);
        }
    }

    /** Writes the tag of the next frame, {@code frame}'s readable bytes, to {@code out}. */
    void tag(ByteBuf frame, ByteBuf out) {
        compute(frame, frame.readerIndex(), frame.readableBytes());
        out.writeBytes(expected);
    }

    /**
     * Whether the {@value #TAG_BYTES} bytes at {@code tagIndex} of {@code in} are the tag of the next
     * frame, the {@code length} bytes at {@code index}. Constant time in the tag.
     */
    boolean verify(ByteBuf in, int index, int length, int tagIndex) {
        compute(in, index, length);
        in.getBytes(tagIndex, received);
        return MessageDigest.isEqual(expected, received);
    }

    /** The sequence number of the next frame (frames tagged or checked so far). */
    long next() {
        return seq;
    }

    /**
     * Counts a frame that failed its check and writes a WARN, at most one line per {@link
     * ThrottledLog#DEFAULT_INTERVAL} for the whole process.
     */
    static void failed(Object remote, long seq) {
        failures.warn(
                "closed the replication connection with {}: frame {} after the handshake failed its MAC (altered,"
                        + " injected, replayed, reordered or dropped on the way); nothing of it was applied",
                remote,
                seq);
    }

    /**
     * Frames that failed their MAC in this process since it started (one node per process in production;
     * nodes started in one test JVM share it): each closed its connection.
     */
    public static long failures() {
        return failures.events();
    }

    /**
     * Starts, once per process, a background thread that tags and checks {@link #WARM_UP_FRAMES} frames
     * of a few sizes under a throwaway key. Without it the first few hundred frames of a node that has
     * just started run AES-GCM interpreted (a {@code Cipher.init} and the blocks in plain Java, on both
     * nodes), which measured as 2 to 3 ms more on an id-first write of 100 B in a fresh pair; compiled,
     * the tag costs about 0.4 us a small frame. Returns at once; idempotent.
     */
    public static void warmUpInBackground() {
        if (!warming.compareAndSet(false, true)) return;
        Thread t = new Thread(FrameMac::warmUp, "kvs-frame-mac-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /** Tags and checks {@link #WARM_UP_FRAMES} frames of 64 B to 16 KiB; returns how many checked. */
    static int warmUp() {
        FrameMac sender = new FrameMac(new byte[KEY_BYTES], 1);
        FrameMac receiver = new FrameMac(new byte[KEY_BYTES], 1);
        ByteBuf wire = Unpooled.directBuffer(PIECE_BYTES + TAG_BYTES);
        int checked = 0;
        try {
            for (int i = 0; i < WARM_UP_FRAMES; i++) {
                int size = i % 64 == 0 ? PIECE_BYTES : 64 << (i % 3);
                sender.tag(wire.slice(0, size), wire.slice(size, TAG_BYTES).clear());
                if (receiver.verify(wire, 0, size, size)) checked++;
            }
        } finally {
            wire.release();
        }
        return checked;
    }

    private void compute(ByteBuf buf, int index, int length) {
        try {
            gcm.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, nonce()));
            ByteBuffer out = scratch();
            ByteBuffer[] parts = buf.nioBufferCount() == 1
                    ? new ByteBuffer[] {buf.nioBuffer(index, length)}
                    : buf.nioBuffers(index, length);
            for (ByteBuffer part : parts) {
                while (part.hasRemaining()) {
                    ByteBuffer piece = part.slice();
                    piece.limit(Math.min(PIECE_BYTES, piece.remaining()));
                    part.position(part.position() + piece.remaining());
                    out.clear();
                    gcm.update(piece, out);
                }
            }
            out.clear();
            int n = gcm.doFinal(NOTHING, out);
            out.get(n - TAG_BYTES, expected); // after the last partial block's ciphertext
            seq++;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM failed", e);
        }
    }

    private byte[] nonce() {
        byte[] n = new byte[12];
        n[0] = (byte) (direction >>> 24);
        n[1] = (byte) (direction >>> 16);
        n[2] = (byte) (direction >>> 8);
        n[3] = (byte) direction;
        for (int i = 0; i < 8; i++) n[4 + i] = (byte) (seq >>> (56 - 8 * i));
        return n;
    }

    /** Direct, so that a direct frame is encrypted without a copy; a piece plus what GCM holds back. */
    private ByteBuffer scratch() {
        if (scratch == null) scratch = ByteBuffer.allocateDirect(PIECE_BYTES + 2 * TAG_BYTES);
        return scratch;
    }
}
