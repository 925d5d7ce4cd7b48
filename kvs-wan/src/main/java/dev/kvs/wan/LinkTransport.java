package dev.kvs.wan;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The event loop and channels a link runs on. Native epoll where its library loads: it sleeps until
 * the nanosecond of the next delivery, so a delivery is late by the time to wake the thread (see the
 * package documentation). NIO otherwise: its selector sleeps whole milliseconds (rounded to the
 * nearest), so a delivery fires up to half a millisecond late, and in the last half millisecond before
 * one the loop polls without sleeping. {@code -Dkvs.transport=nio} forces NIO, as for the server.
 */
enum LinkTransport {
    EPOLL,
    NIO;

    /** The best transport on this machine, for a link that creates its own event loop. */
    static LinkTransport best() {
        if ("nio".equalsIgnoreCase(System.getProperty("kvs.transport"))) return NIO;
        try {
            return Epoll.isAvailable() ? EPOLL : NIO;
        } catch (Throwable notOnClasspath) { // NoClassDefFoundError / UnsatisfiedLinkError
            return NIO;
        }
    }

    /** The transport whose channels {@code loop} can run: epoll for an epoll loop, NIO otherwise. */
    static LinkTransport of(EventLoop loop) {
        try {
            return loop instanceof IoEventLoop io && io.isIoType(EpollIoHandler.class) ? EPOLL : NIO;
        } catch (Throwable notOnClasspath) {
            return NIO;
        }
    }

    /** A new group of one event loop thread named {@code name}. */
    EventLoopGroup newGroup(String name) {
        IoHandlerFactory factory = this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name), factory);
    }

    Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
