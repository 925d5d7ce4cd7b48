package dev.kvs.server.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The socket transport: native epoll on Linux where its library loads (fewer syscalls and copies
 * per request than NIO, measured in BENCHMARKS.md), NIO everywhere else. {@code -Dkvs.transport=nio}
 * forces NIO.
 */
public enum Transport {
    EPOLL,
    NIO;

    /** The best transport available on this machine. */
    public static Transport best() {
        if ("nio".equalsIgnoreCase(System.getProperty("kvs.transport"))) return NIO;
        try {
            return Epoll.isAvailable() ? EPOLL : NIO;
        } catch (Throwable notOnClasspath) { // NoClassDefFoundError / UnsatisfiedLinkError
            return NIO;
        }
    }

    public EventLoopGroup group(int threads, String name) {
        IoHandlerFactory factory = this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
    }

    /** The client port's loops: connections packed {@code pack} to a loop before the next is used. */
    public PackedEventLoops clientGroup(int threads, int pack, String name) {
        IoHandlerFactory factory = this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new PackedEventLoops(threads, pack, new DefaultThreadFactory(name, true), factory);
    }

    public Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
