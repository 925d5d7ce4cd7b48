package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.Transports;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The client port reads a large value in few, large reads. */
class RespServerReadsTest {
    @Test
    void connectionsReadWithTheAllocatorThatGrowsToOneMebibyte() throws Exception {
        try (LiveRespServer live =
                new LiveRespServer(NodeConfig.builder().port(0).build())) {
            EventLoopGroup group = Transport.NIO.group(1, "test-bootstrap");
            try {
                ServerBootstrap b = live.server.bootstrap(group, group, Transport.NIO);
                assertThat(b.config().childOptions().get(ChannelOption.RCVBUF_ALLOCATOR))
                        .isSameAs(Transports.readAllocator());
            } finally {
                group.shutdownGracefully().sync();
            }
            // and such a server takes a 1 MiB value whole
            byte[] value = new byte[1 << 20];
            Arrays.fill(value, (byte) 'v');
            var s = live.connect();
            s.getOutputStream()
                    .write(("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + value.length + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().write(value);
            s.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            assertThat(LiveRespServer.readLine(s)).isEqualTo("+OK");
            assertThat(live.commands
                            .store()
                            .get("k".getBytes(StandardCharsets.US_ASCII))
                            .value())
                    .isEqualTo(value);
        }
    }
}
