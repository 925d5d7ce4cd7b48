package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.replication.UnfinishedKeys;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A read that waited in the gate for its key resumes on its connection's event loop and enters the
 * {@link ExecBarrier} as any command does, not on the thread that made the key readable: on a backup
 * that thread may be applying an EXEC's unit alone, and a read run there would see the unit's first
 * writes and not its last (a READONLY MGET saw "2 2 1"). Real gate, barrier, MGET and a Netty event
 * loop; the unit is the test thread inside {@link ExecBarrier#alone}.
 */
class KeyGateTest {
    private static final byte[] A = bytes("a");
    private static final byte[] B = bytes("b");
    private static final TxId FENCED_BY = TxId.of(1, 50);

    private final RespChannel resp = RespChannel.withDefaults();
    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    @AfterEach
    void close() {
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        resp.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private void put(byte[] key, long seq, String value) {
        byte[] v = bytes(value);
        resp.store.put(key, StoredValue.complete(TxId.of(1, seq), v));
    }

    @Test
    void aReadWhoseKeyBecomesReadableInsideAnExecUnitRunsAfterTheWholeUnit() throws Exception {
        ExecBarrier barrier = new ExecBarrier();
        CommandTable table = new CommandTable();
        CommandRefusals refusals = new CommandRefusals(
                resp.commands.roles(), resp.commands.cluster(), new ClientStats(), new AclLog(() -> 0));
        new StringCommands(resp.commands, new KeyGate(resp.commands, refusals, table, barrier)).register(table);
        put(A, 1, "1");
        put(B, 2, "1");
        UnfinishedKeys unfinished = new UnfinishedKeys();
        unfinished.add(A, FENCED_BY, 1, 0); // a's value of the unit is awaited: reads of a wait for it
        resp.commands.gate().activate(unfinished);

        EventLoop loop = loops.next();
        Thread loopThread = loop.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        Session session = new Session(1, "test", null);
        session.loop = loop;
        RedisMessage first = loop.submit(() ->
                        table.lookup(bytes("MGET")).command().execute(session, new byte[][] {bytes("MGET"), A, B}))
                .get(10, TimeUnit.SECONDS);
        assertThat(first).as("MGET's reply while a is awaited").isInstanceOf(LaterReply.class);
        CompletableFuture<RedisMessage> mget = ((LaterReply) first).reply().toCompletableFuture();

        barrier.alone(() -> {
            put(A, FENCED_BY.seq(), "2");
            unfinished.resolve(A, FENCED_BY); // a is readable: the waiting MGET may resume, not here
            // until the resumed read has run, or waits at the barrier's door (where it stays until the
            // unit is over): no earlier point tells that it will not run here
            await().atMost(Duration.ofSeconds(10)).until(() -> mget.isDone() || waitsForTheBarrier(loopThread));
            assertThat(mget.isDone() ? "ran and saw " + values(mget.join()) : "waits")
                    .as("the MGET, between the unit's two writes")
                    .isEqualTo("waits");
            put(B, FENCED_BY.seq() + 1, "2");
            return null;
        });

        assertThat(values(mget.get(10, TimeUnit.SECONDS))).containsExactly("2", "2");
    }

    /** The thread waits for a lock of the barrier: the resumed read is at its door. */
    private static boolean waitsForTheBarrier(Thread t) {
        Object blocker = LockSupport.getBlocker(t);
        return blocker != null && blocker.getClass().getEnclosingClass() == ReentrantReadWriteLock.class;
    }

    private static List<String> values(RedisMessage reply) {
        try {
            List<String> out = new ArrayList<>();
            for (RedisMessage m : ((ArrayRedisMessage) reply).children()) {
                out.add(((FullBulkStringRedisMessage) m).content().toString(StandardCharsets.UTF_8));
            }
            return out;
        } finally {
            ReferenceCountUtil.release(reply);
        }
    }
}
