package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.TestContexts;
import dev.kvs.server.internal.Transport;
import dev.kvs.server.internal.cluster.ClusterView;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A RESP client port on a real loopback socket (NIO, one I/O thread), for tests that need the network. */
final class LiveRespServer implements AutoCloseable {
    /** The node's parts other than its RESP port (active expiry, status), for the tests that use them. */
    final NodeContext node;
    /** What the port's commands work with. */
    final CommandContext commands;

    final RespServer server;
    final int port;
    private final KvStore store;
    private final EventLoopGroup boss = Transport.NIO.group(1, "test-accept");
    private final EventLoopGroup workers = Transport.NIO.group(1, "test-io");
    private final List<Socket> sockets = new ArrayList<>();

    LiveRespServer(NodeConfig config) throws InterruptedException {
        this(config, ClusterView.NONE);
    }

    /** A primary answering as the member of a cluster that {@code cluster} shows. */
    LiveRespServer(NodeConfig config, ClusterView cluster) throws InterruptedException {
        store = KvStore.builder().config(config.store()).open();
        node = TestContexts.primary(config, store, 1, 0);
        commands = TestContexts.commands(node, cluster);
        server = new RespServer(commands);
        port = server.start("127.0.0.1", 0, boss, workers, Transport.NIO);
    }

    ClientStats stats() {
        return server.stats();
    }

    /** A new client socket, closed with the server; reads time out after 10 s rather than hang a test. */
    Socket connect() {
        try {
            Socket s = new Socket("127.0.0.1", port);
            s.setSoTimeout(10_000);
            sockets.add(s);
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void send(Socket s, String raw) {
        try {
            s.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one reply line (up to and without its CRLF), or null if the server closed the connection. */
    static String readLine(Socket s) {
        try {
            InputStream in = s.getInputStream();
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n' && b.length() > 0 && b.charAt(b.length() - 1) == '\r') {
                    return b.substring(0, b.length() - 1);
                }
                b.append((char) c);
            }
            return b.length() == 0 ? null : b.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Everything the server sends until it closes the connection. */
    static String readToEnd(Socket s) {
        try {
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        server.close();
        workers.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        commands.metrics().close();
        store.close();
    }
}
