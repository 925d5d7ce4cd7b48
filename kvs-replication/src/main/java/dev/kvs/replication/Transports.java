package dev.kvs.replication;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
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
    /**
     * The most one read of a socket takes into one buffer: 1 MiB. Netty's default stops at 64 KiB, so a
     * 1 MiB value that had all arrived took 16 reads (a system call and a wake of the decoder each); a
     * 100 kB one, two. Redis reads a big argument's remaining bytes in one call.
     */
    public static final int MAX_READ_BYTES = 1 << 20;

    private static final RecvByteBufAllocator READS = new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES);

    private Transports() {}

    /**
     * How a connection's reads are sized: Netty's adaptive sizing (a read that fills its buffer makes the
     * next one larger, reads that fall short make it smaller), up to {@link #MAX_READ_BYTES}. A buffer
     * lives only until its bytes are decoded, so an idle connection holds none.
     */
    public static RecvByteBufAllocator readAllocator() {
        return READS;
    }

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
