package dev.kvs.wan;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/** A plain-socket server on loopback for a link to relay to: one thread per connection. */
final class LoopbackServer implements AutoCloseable {
    /** What the server does with each accepted connection, on its own thread. */
    @FunctionalInterface
    interface Handler {
        void handle(Socket socket) throws IOException, InterruptedException;
    }

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "loopback-server");
        t.setDaemon(true);
        return t;
    });

    private LoopbackServer(int receiveBufferBytes, Handler handler) throws IOException {
        server = new ServerSocket();
        if (receiveBufferBytes > 0) server.setReceiveBufferSize(receiveBufferBytes);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    sockets.add(s);
                    threads.execute(() -> {
                        try (s) {
                            handler.handle(s);
                        } catch (IOException | InterruptedException e) {
                            // the test closed the connection, or the link reset it
                        }
                    });
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    /** Sends every byte back. */
    static LoopbackServer echo() throws IOException {
        return new LoopbackServer(0, s -> s.getInputStream().transferTo(s.getOutputStream()));
    }

    /** Reads and records everything, see {@link Sink}. */
    static LoopbackServer sink(Sink sink) throws IOException {
        return new LoopbackServer(sink.receiveBufferBytes, sink::handle);
    }

    int port() {
        return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) s.close();
        threads.shutdownNow();
    }

    /** A handler that reads every connection to its end, recording what arrived and when. */
    static final class Sink {
        final List<Received> connections = new CopyOnWriteArrayList<>();
        private final CountDownLatch gate;
        private final int receiveBufferBytes;

        /** Reads at once. */
        Sink() {
            this(false, 0);
        }

        /**
         * @param gated if true, reads nothing until {@link #startReading()}
         * @param receiveBufferBytes the accepted sockets' receive buffer, 0 for the system default
         */
        Sink(boolean gated, int receiveBufferBytes) {
            this.gate = new CountDownLatch(gated ? 1 : 0);
            this.receiveBufferBytes = receiveBufferBytes;
        }

        void startReading() {
            gate.countDown();
        }

        Received connection(int i) {
            return connections.get(i);
        }

        private void handle(Socket s) throws IOException, InterruptedException {
            Received r = new Received();
            connections.add(r);
            gate.await();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[64 * 1024];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) r.add(buf, n);
            } catch (IOException e) {
                r.reset = true;
            } finally {
                r.endedAt = System.nanoTime();
                r.ended = true;
            }
        }
    }

    /** What one connection brought to a {@link Sink}. */
    static final class Received {
        final AtomicLong bytes = new AtomicLong();
        private final CRC32C crc = new CRC32C();
        volatile long lastByteAt;
        volatile long endedAt;
        volatile boolean ended;
        volatile boolean reset;

        private void add(byte[] buf, int n) {
            synchronized (crc) {
                crc.update(buf, 0, n);
            }
            lastByteAt = System.nanoTime();
            bytes.addAndGet(n);
        }

        long crc() {
            synchronized (crc) {
                return crc.getValue();
            }
        }
    }

    /** Writes {@code data} and flushes. */
    static void write(Socket s, byte[] data) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(data);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
