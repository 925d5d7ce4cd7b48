package dev.kvs.replication.backup;

import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameDecoder;
import dev.kvs.replication.wire.FrameEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An on-path attacker between a primary and its backup, on loopback: passes the cluster secret's
 * challenge-response through unchanged, then hands every frame the primary sends on the first key
 * channel (the {@code Hello} first) to an {@link Attack}, which says what to send in its place. Every
 * other connection, and everything the backup sends, is relayed as it is. Plain sockets and one
 * thread per direction: the relay must not share the code it attacks.
 */
final class TamperingRelay implements AutoCloseable {
    /** What the relay sends for one frame of the attacked connection. */
    interface Attack {
        /**
         * @param frame the frame, decoded
         * @param bytes its bytes on the wire, length prefix and tag included (a copy: free to change)
         * @return the byte strings to send now, in order (none: the frame is held or dropped)
         */
        List<byte[]> onFrame(Frame frame, byte[] bytes);
    }

    /** Relays every frame as it is. */
    static final Attack NONE = (frame, bytes) -> List.of(bytes);

    private static final byte AUTH_INIT = 17;
    private static final byte AUTH_PROOF = 19;

    private final ServerSocket server;
    private final int target;
    private final int tagBytes;
    private final Attack attack;
    private final AtomicBoolean attackTaken = new AtomicBoolean();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** Completes when the backup has closed the attacked connection. */
    final CompletableFuture<Void> attackedClosed = new CompletableFuture<>();

    /**
     * @param target the backup's replication port
     * @param tagBytes the bytes of the tag after each frame once the peers are authenticated
     */
    TamperingRelay(int target, int tagBytes, Attack attack) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = target;
        this.tagBytes = tagBytes;
        this.attack = attack;
        Thread t = new Thread(this::acceptLoop, "tampering-relay-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** A frame's bytes as the encoder writes them, without a tag. */
    static byte[] encode(Frame frame) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameEncoder());
        ch.writeOutbound(frame);
        ByteBuf buf = ch.readOutbound();
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
            ch.finishAndReleaseAll();
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket primary = server.accept();
                Socket backup = new Socket(InetAddress.getLoopbackAddress(), target);
                primary.setTcpNoDelay(true);
                backup.setTcpNoDelay(true);
                sockets.add(primary);
                sockets.add(backup);
                AtomicBoolean attacked = new AtomicBoolean();
                start("tampering-relay-up", () -> up(primary, backup, attacked));
                start("tampering-relay-down", () -> down(backup, primary, attacked));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    /** Primary to backup: frame by frame. */
    private void up(Socket from, Socket to, AtomicBoolean attacked) {
        try (DataInputStream in = new DataInputStream(from.getInputStream())) {
            OutputStream out = to.getOutputStream();
            boolean authenticated = false;
            boolean first = true;
            while (true) {
                int length = in.readInt();
                byte[] frame = new byte[4 + length];
                frame[0] = (byte) (length >>> 24);
                frame[1] = (byte) (length >>> 16);
                frame[2] = (byte) (length >>> 8);
                frame[3] = (byte) length;
                in.readFully(frame, 4, length);
                byte type = frame[5];
                boolean tagged = authenticated && type != AUTH_INIT;
                if (type == AUTH_PROOF) authenticated = true;
                byte[] bytes = tagged ? Arrays.copyOf(frame, frame.length + tagBytes) : frame;
                if (tagged) in.readFully(bytes, frame.length, tagBytes);
                if (!tagged) {
                    out.write(bytes);
                    continue;
                }
                Frame decoded = decode(frame);
                if (first) {
                    first = false;
                    attacked.set(decoded instanceof Frame.Hello h
                            && h.kind() == Frame.ChannelKind.KEY
                            && attackTaken.compareAndSet(false, true));
                }
                if (!attacked.get()) {
                    out.write(bytes);
                    continue;
                }
                for (byte[] b : attack.onFrame(decoded, bytes.clone())) out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // EOF or reset: the connection is over
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Backup to primary: bytes as they come; notes when the backup closes the attacked connection. */
    private void down(Socket from, Socket to, AtomicBoolean attacked) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buf)) >= 0; ) out.write(buf, 0, n);
        } catch (IOException e) {
            // reset: over too
        } finally {
            if (attacked.get()) attackedClosed.complete(null);
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static Frame decode(byte[] frame) throws IOException {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Integer.MAX_VALUE));
        try {
            ch.writeInbound(Unpooled.wrappedBuffer(frame));
            Frame f = ch.readInbound();
            if (f == null) throw new EOFException("not one whole frame");
            return f;
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) closeQuietly(s);
    }
}
