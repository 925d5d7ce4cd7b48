package dev.kvs.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LinkTransportTest {
    @Test
    void bestIsEpollWhereItLoadsUnlessNioIsForced() {
        assumeTrue(System.getProperty("kvs.transport") == null, "kvs.transport set for the whole run");
        assertThat(LinkTransport.best()).isEqualTo(Epoll.isAvailable() ? LinkTransport.EPOLL : LinkTransport.NIO);
        System.setProperty("kvs.transport", "NIO");
        try {
            assertThat(LinkTransport.best()).isEqualTo(LinkTransport.NIO);
        } finally {
            System.clearProperty("kvs.transport");
        }
    }

    @Test
    void aLoopGetsChannelsOfItsOwnKind() {
        EventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            LinkTransport t = LinkTransport.of(nio.next());
            assertThat(t).isEqualTo(LinkTransport.NIO);
            assertThat(t.serverChannel()).isEqualTo(NioServerSocketChannel.class);
        } finally {
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        assumeTrue(Epoll.isAvailable(), "native epoll not available here");
        EventLoopGroup epoll = LinkTransport.EPOLL.newGroup("link-transport-test");
        try {
            LinkTransport t = LinkTransport.of(epoll.next());
            assertThat(t).isEqualTo(LinkTransport.EPOLL);
            assertThat(t.serverChannel()).isEqualTo(EpollServerSocketChannel.class);
        } finally {
            epoll.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
