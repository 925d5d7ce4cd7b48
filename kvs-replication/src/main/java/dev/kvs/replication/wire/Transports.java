package dev.kvs.replication.wire;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * The socket channel classes that fit an event loop group: native epoll ones for a group running
 * {@link EpollIoHandler} (which gives replication sockets {@code TCP_NOTSENT_LOWAT}), NIO ones for
 * any other.
 */
public final class Transports {
    private Transports() {}

    /** Whether {@code group} runs the native epoll transport. */
    public static boolean isEpoll(EventLoopGroup group) {
        try {
            return group instanceof IoEventLoopGroup g && Epoll.isAvailable() && g.isIoType(EpollIoHandler.class);
        } catch (Throwable noNativeTransport) { // NoClassDefFoundError / UnsatisfiedLinkError
            return false;
        }
    }

    /** The client socket channel class for {@code group}. */
    public static Class<? extends SocketChannel> socketChannel(EventLoopGroup group) {
        return isEpoll(group) ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The listening socket channel class for {@code group}. */
    public static Class<? extends ServerChannel> serverChannel(EventLoopGroup group) {
        return isEpoll(group) ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
