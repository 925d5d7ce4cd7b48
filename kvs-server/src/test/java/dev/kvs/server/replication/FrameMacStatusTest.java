package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.Role;
import dev.kvs.replication.auth.ClusterSecret;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameCodec;
import dev.kvs.replication.wire.FrameEncoder;
import dev.kvs.replication.wire.FrameMac;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A node with a cluster secret and no TLS says so ({@code frame protection: mac}), and a frame that
 * fails its MAC is counted in {@code /status}, {@code INFO} and {@code /metrics}: here a peer that
 * knows the secret sends, after the handshake, a {@code Handover} whose tag it did not compute. The
 * backup stays a backup in its epoch.
 */
class FrameMacStatusTest {
    private static final String SECRET = "shared-secret-0123456789";

    @Test
    void aFrameFailingItsMacIsCountedInStatusInfoAndMetrics() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (KvsNode b = KvsNode.start(NodeConfig.builder()
                        .name("dc-b")
                        .role(Role.BACKUP)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .clusterSecret(SECRET)
                        .admin(AdminConfig.defaults().withTrustLoopback(true))
                        .build());
                Jedis jb = new Jedis("127.0.0.1", b.port())) {
            long before = count(jb.info("replication"), "kvs_replication_frames_failed_mac:(\\d+)");
            assertThat(jb.info("replication")).contains("kvs_replication_frame_protection:mac");

            Channel ch = authenticatedPeer(group, b.replPort());
            ch.closeFuture().await(20, TimeUnit.SECONDS);

            assertThat(ch.isOpen()).as("the backup closed the connection").isFalse();
            String info = jb.info("replication");
            assertThat(count(info, "kvs_replication_frames_failed_mac:(\\d+)")).isGreaterThan(before);
            assertThat(info).contains("kvs_epoch:1", "kvs_role:backup");
            String status = Admin.get(b.adminPort(), "/status");
            assertThat(status).contains("\"frameProtection\":\"mac\"");
            assertThat(count(status, "\"framesFailedMac\":(\\d+)")).isGreaterThan(before);
            assertThat(count(Admin.get(b.adminPort(), "/metrics"), "kvs_replication_frames_failed_mac_total (\\d+)"))
                    .isGreaterThan(before);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Proves the secret as a real primary does, then writes a {@code Handover} followed by a tag of
     * zeros straight to the socket (past the tagger).
     */
    private static Channel authenticatedPeer(EventLoopGroup group, int port) {
        LinkSecurity security = new LinkSecurity(ClusterSecret.of(SECRET, "kvs"), null);
        return new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        FrameCodec.install(ch.pipeline(), 1 << 20);
                        security.addDiallerAuth(ch, 10_000);
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) { // once authenticated
                                ByteBuf forged = ctx.alloc().buffer();
                                forged.writeBytes(encode(new Frame.Handover(99)));
                                forged.writeZero(FrameMac.TAG_BYTES);
                                ctx.pipeline().context(FrameCodec.TAGGER).writeAndFlush(forged);
                            }
                        });
                    }
                })
                .connect("127.0.0.1", port)
                .syncUninterruptibly()
                .channel();
    }

    private static byte[] encode(Frame frame) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameEncoder());
        ch.writeOutbound(frame);
        ByteBuf buf = ch.readOutbound();
        byte[] b = new byte[buf.readableBytes()];
        buf.readBytes(b).release();
        ch.finishAndReleaseAll();
        return b;
    }

    private static long count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("%s in %s", regex, text).isTrue();
        return Long.parseLong(m.group(1));
    }
}
