package dev.kvs.server.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The client port's event loops, which place connections by how many each loop serves rather than in turn.
 *
 * <p>A new connection goes to the first loop serving fewer than {@code pack} connections; once every loop
 * serves {@code pack}, to the loop serving the fewest (the first of those on a tie). So a few connections share
 * one loop, and many spread over all of them.
 *
 * <p>Why: a loop serving only one or two connections sleeps between their requests, and each sleep is a context
 * switch and a wake-up on the next request's path. Four clients of 100 kB values on two loops of a two-core
 * machine measured 0.5 to 0.9 context switches per request and 0.62x Redis's SETs; on one loop 0.85x
 * (BENCHMARKS.md, "Few connections of 100 kB values"; "Packing client connections" for where the cut lies).
 * Fifty pipelining clients need both loops. {@code pack = 1} spreads connections evenly from the first one, as
 * Netty's round robin does on a fresh start.
 *
 * <p>Connections stay on the loop they were placed on: counts fall as connections close, and the next
 * connections fill the gap.
 */
public final class PackedEventLoops extends MultiThreadIoEventLoopGroup {

    private final int pack;
    private final IoEventLoop[] loops;
    private final AtomicIntegerArray served;
    private final Object placing = new Object();

    public PackedEventLoops(int threads, int pack, ThreadFactory threadFactory, IoHandlerFactory ioHandlerFactory) {
        super(threads, threadFactory, ioHandlerFactory);
        if (pack < 1) throw new IllegalArgumentException("pack < 1: " + pack);
        this.pack = pack;
        List<IoEventLoop> children = new ArrayList<>();
        for (EventExecutor e : this) children.add((IoEventLoop) e);
        this.loops = children.toArray(new IoEventLoop[0]);
        this.served = new AtomicIntegerArray(loops.length);
    }

    /** Connections each loop serves now, in loop order. */
    public int[] served() {
        int[] out = new int[loops.length];
        for (int i = 0; i < out.length; i++) out[i] = served.get(i);
        return out;
    }

    @Override
    public ChannelFuture register(Channel channel) {
        return loops[place(channel)].register(channel);
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        return loops[place(promise.channel())].register(promise);
    }

    @Deprecated
    @Override
    public ChannelFuture register(Channel channel, ChannelPromise promise) {
        return loops[place(channel)].register(channel, promise);
    }

    /** Picks {@code channel}'s loop and counts it there until it closes. */
    private int place(Channel channel) {
        int chosen;
        synchronized (placing) { // one acceptor thread calls this; the lock only orders a second caller
            chosen = choose();
            served.incrementAndGet(chosen);
        }
        int loop = chosen;
        channel.closeFuture().addListener(f -> served.decrementAndGet(loop));
        return loop;
    }

    private int choose() {
        int fewest = 0;
        for (int i = 0; i < loops.length; i++) {
            int n = served.get(i);
            if (n < pack) return i;
            if (n < served.get(fewest)) fewest = i;
        }
        return fewest;
    }
}
