package dev.kvs.server;

import dev.kvs.replication.Role;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.PackedEventLoops;
import dev.kvs.server.internal.Transport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The threads a node's ports run on, one group per port so that none holds up another: the client
 * port's accept loop and its I/O loops, the admin port's loop (NIO: the admin server needs it), and,
 * on a node that replicates, the replication key and value loops.
 */
final class EventLoops {
    final EventLoopGroup accept;
    final PackedEventLoops clients;
    final EventLoopGroup admin;
    /** Null on a primary without a peer: it never replicates. */
    final EventLoopGroup replication;
    /** A backup's value channels: applying values never holds up its key channel. Null with {@link #replication}. */
    final EventLoopGroup replicationValues;

    EventLoops(NodeConfig config, Transport transport) {
        this.accept = transport.group(1, "kvs-accept");
        int threads = config.ioThreads() > 0
                ? config.ioThreads()
                : Runtime.getRuntime().availableProcessors();
        this.clients = transport.clientGroup(threads, config.ioPackConnections(), "kvs-io");
        this.admin =
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("kvs-admin"), NioIoHandler.newFactory());
        this.replication = config.peer().isPresent() || config.role() == Role.BACKUP
                ? transport.group(1, "kvs-repl") // epoll gives value sockets TCP_NOTSENT_LOWAT
                : null;
        this.replicationValues = replication == null ? null : transport.group(1, "kvs-repl-values");
    }

    /** Shuts every group down, each in turn, handing each step to {@code step} (which keeps its failure). */
    void shutdown(Consumer<Runnable> step) {
        for (EventLoopGroup g : new EventLoopGroup[] {accept, clients, admin, replication, replicationValues}) {
            if (g != null)
                step.accept(() -> g.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly());
        }
    }
}
