package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvs.core.WriteStages;
import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.auth.LinkSecurity;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The socket options a replication connection gets. */
class DialerTest {
    private static Channel dial(EventLoopGroup group, ServerSocket server, FlowControlConfig flow, Dialer.Kind kind)
            throws InterruptedException {
        ReplicatorConfig config = ReplicatorConfig.builder().flowControl(flow).build();
        InetSocketAddress peer = new InetSocketAddress("127.0.0.1", server.getLocalPort());
        PrimaryLink link = new PrimaryLink(
                config,
                null,
                null,
                null,
                null,
                "c",
                "n",
                peer,
                e -> {},
                () -> {},
                LinkSecurity.NONE,
                () -> "",
                WriteStages.OFF,
                "");
        return Dialer.dial(link, group, kind, new ChannelInboundHandlerAdapter())
                .sync()
                .channel();
    }

    @Test
    void valueSocketsOnEpollKeepFewUnsentBytesInTheKernelAndKeySocketsDoNot() throws Exception {
        assumeTrue(Epoll.isAvailable(), "no native epoll transport here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (ServerSocket server = new ServerSocket(0)) {
            FlowControlConfig flow =
                    FlowControlConfig.builder().notSentLowWatermarkBytes(20_000).build();
            Channel value = dial(group, server, flow, Dialer.Kind.VALUE);
            Channel key = dial(group, server, flow, Dialer.Kind.KEY);
            assertThat(value.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT))
                    .isEqualTo(20_000L);
            assertThat(key.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT))
                    .isZero();
            Channel unflowed = dial(group, server, FlowControlConfig.off(), Dialer.Kind.VALUE);
            assertThat(unflowed.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT))
                    .isZero();
            value.close().sync();
            key.close().sync();
            unflowed.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }

    @Test
    void dscpMarksKeysExpeditedAndValuesLowerEffortOnlyWhenAsked() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ServerSocket server = new ServerSocket(0)) {
            FlowControlConfig marked = FlowControlConfig.builder().dscp(true).build();
            Channel key = dial(group, server, marked, Dialer.Kind.KEY);
            Channel value = dial(group, server, marked, Dialer.Kind.VALUE);
            Channel plain = dial(group, server, FlowControlConfig.defaults(), Dialer.Kind.KEY);
            assertThat(key.config().getOption(ChannelOption.IP_TOS)).isEqualTo(46 << 2);
            assertThat(value.config().getOption(ChannelOption.IP_TOS)).isEqualTo(8 << 2);
            assertThat(plain.config().getOption(ChannelOption.IP_TOS)).isZero();
            key.close().sync();
            value.close().sync();
            plain.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
