package dev.kvs.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PackedEventLoopsTest {

    private final List<Channel> channels = new ArrayList<>();
    private PackedEventLoops group;

    @AfterEach
    void close() throws InterruptedException {
        for (Channel c : channels) c.close().sync();
        if (group != null) group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private PackedEventLoops group(int threads, int pack) {
        group = new PackedEventLoops(
                threads, pack, new DefaultThreadFactory("packed-test", true), NioIoHandler.newFactory());
        return group;
    }

    /** Registers an unconnected socket channel through the group's own register, as the server's acceptor does. */
    private Channel register() throws InterruptedException {
        Channel c = new NioSocketChannel();
        c.pipeline().addLast(new ChannelInboundHandlerAdapter());
        group.register(c).sync();
        channels.add(c);
        return c;
    }

    private EventLoop loop(int i) {
        List<EventLoop> loops = new ArrayList<>();
        group.forEach(e -> loops.add((EventLoop) e));
        return loops.get(i);
    }

    @Test
    void fillsOneLoopBeforeTheNext() throws InterruptedException {
        group(3, 2);
        List<EventLoop> placed = new ArrayList<>();
        for (int i = 0; i < 6; i++) placed.add(register().eventLoop());
        assertThat(placed).containsExactly(loop(0), loop(0), loop(1), loop(1), loop(2), loop(2));
        assertThat(group.served()).containsExactly(2, 2, 2);
    }

    @Test
    void onceEveryLoopIsFullSpreadsToTheFewest() throws InterruptedException {
        group(2, 2);
        for (int i = 0; i < 4; i++) register();
        List<EventLoop> placed = new ArrayList<>();
        for (int i = 0; i < 4; i++) placed.add(register().eventLoop());
        assertThat(placed).containsExactly(loop(0), loop(1), loop(0), loop(1));
        assertThat(group.served()).containsExactly(4, 4);
    }

    @Test
    void packOfOneSpreadsFromTheFirstConnection() throws InterruptedException {
        group(2, 1);
        List<EventLoop> placed = new ArrayList<>();
        for (int i = 0; i < 4; i++) placed.add(register().eventLoop());
        assertThat(placed).containsExactly(loop(0), loop(1), loop(0), loop(1));
    }

    @Test
    void closedConnectionsLeaveRoomForTheNext() throws InterruptedException {
        group(2, 2);
        Channel first = register();
        register();
        Channel third = register();
        assertThat(third.eventLoop()).isEqualTo(loop(1));
        first.close().sync();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(group.served()).containsExactly(1, 1));
        assertThat(register().eventLoop()).isEqualTo(loop(0));
        assertThat(group.served()).containsExactly(2, 1);
    }

    @Test
    void aPackBelowOneIsRefused() {
        assertThatThrownBy(() ->
                        new PackedEventLoops(1, 0, new DefaultThreadFactory("x", true), NioIoHandler.newFactory()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pack < 1: 0");
    }
}
