package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * GET and MGET of values longer than {@link RespReplyEncoder#COPY_LIMIT} reply with a direct buffer
 * the store filled ({@link DirectValues}): the same bytes as before, and every such buffer released,
 * whether the reply was written or dropped (output limit, connection closed while it waited).
 */
class LargeValueRepliesTest {
    private static final int BIG = 100 * 1024;

    /** Records the direct buffers sized for a long value, to check they are all released. */
    private static final class TrackingAllocator extends AbstractByteBufAllocator {
        final List<ByteBuf> large = new ArrayList<>();

        TrackingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = Unpooled.directBuffer(initialCapacity, maxCapacity);
            if (initialCapacity > RespReplyEncoder.COPY_LIMIT) large.add(b);
            return b;
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return Unpooled.buffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        void assertAllReleased() {
            for (ByteBuf b : large)
                assertThat(b.refCnt()).as("refCnt of a value's buffer").isZero();
        }
    }

    private final TrackingAllocator alloc = new TrackingAllocator();
    private final AckOnDemandReplication backup = new AckOnDemandReplication();
    private RespChannel resp;

    private void open(long outputLimit) {
        NodeConfig config = NodeConfig.builder()
                .store(StoreConfig.builder().maxEntries(1000).maxBytes(64 << 20).build())
                .clientOutputBufferLimit(outputLimit)
                .build();
        resp = new RespChannel(config, backup, null, false, alloc);
    }

    @AfterEach
    void close() {
        if (resp != null) resp.close();
    }

    private static String value(long seed, int length) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) b.append((char) ('a' + r.nextInt(26)));
        return b.toString();
    }

    private static String bulk(String v) {
        return "$" + v.length() + "\r\n" + v + "\r\n";
    }

    /** Sets {@code key} without waiting for the backup. */
    private void setAsync(String key, String value) {
        assertThat(resp.command("KVS.MODE", "async")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SET", key, value)).isEqualTo("+OK\r\n");
        assertThat(resp.command("KVS.MODE", "id-first")).isEqualTo("+OK\r\n");
    }

    @Test
    void getOfALongValueRepliesFromADirectBufferAndReleasesIt() {
        open(0);
        String big = value(1, BIG), small = value(2, 100), edge = value(3, RespReplyEncoder.COPY_LIMIT + 1);
        setAsync("big", big);
        setAsync("small", small);
        setAsync("edge", edge);

        assertThat(resp.command("GET", "big")).isEqualTo(bulk(big));
        assertThat(resp.command("GET", "small")).isEqualTo(bulk(small));
        assertThat(resp.command("GET", "edge")).isEqualTo(bulk(edge));
        assertThat(resp.command("GET", "absent")).isEqualTo("$-1\r\n");

        assertThat(alloc.large).as("one buffer per long value read").hasSize(2);
        assertThat(alloc.large.get(0).capacity())
                .as("the value and room for its header and CRLF")
                .isEqualTo(FramedBulk.HEADER_ROOM + BIG + FramedBulk.TRAILER_ROOM);
        alloc.assertAllReleased();
    }

    /**
     * The reply of a long value leaves as one buffer, the store's, holding header, value and CRLF: not
     * a header, the value and a trailer in three buffers (three allocations, three writes).
     */
    @Test
    void getOfALongValueWritesTheWholeReplyAsTheValuesOneBuffer() {
        open(0);
        String big = value(9, BIG);
        setAsync("big", big);

        resp.channel.writeInbound(
                Unpooled.wrappedBuffer(RespChannel.encode("GET", "big").getBytes(StandardCharsets.ISO_8859_1)));
        resp.channel.runPendingTasks();
        List<ByteBuf> written = new ArrayList<>();
        ByteBuf b;
        while ((b = resp.channel.readOutbound()) != null) written.add(b);
        try {
            assertThat(written).as("buffers written for one GET").hasSize(1);
            assertThat(written.get(0).toString(StandardCharsets.ISO_8859_1)).isEqualTo(bulk(big));
            assertThat(alloc.large).hasSize(1);
        } finally {
            written.forEach(ByteBuf::release);
        }
        alloc.assertAllReleased();
    }

    @Test
    void mgetMixesLongAndShortValuesInOrder() {
        open(0);
        String a = value(4, BIG), b = value(5, 3 * BIG + 7), c = value(6, 10);
        setAsync("a", a);
        setAsync("b", b);
        setAsync("c", c);

        String reply = resp.command("MGET", "a", "nope", "c", "b", "a");

        assertThat(reply).isEqualTo("*5\r\n" + bulk(a) + "$-1\r\n" + bulk(c) + bulk(b) + bulk(a));
        assertThat(alloc.large).hasSize(3);
        alloc.assertAllReleased();
    }

    @Test
    void pipelinedGetsOfLongValuesLeaveInOrder() {
        open(0);
        String a = value(7, BIG), b = value(8, 20);
        setAsync("a", a);
        setAsync("b", b);

        String reply = resp.send(RespChannel.encode("GET", "a")
                + RespChannel.encode("GET", "b")
                + RespChannel.encode("MGET", "b", "a")
                + RespChannel.encode("PING"));

        assertThat(reply).isEqualTo(bulk(a) + bulk(b) + "*2\r\n" + bulk(b) + bulk(a) + "+PONG\r\n");
        alloc.assertAllReleased();
    }

    @Test
    void repliesDroppedAtTheOutputLimitAreReleased() {
        open(1 << 20);
        String[] mget = new String[21];
        mget[0] = "MGET";
        for (int i = 1; i < mget.length; i++) {
            mget[i] = "k" + i;
            setAsync(mget[i], value(i, BIG));
        }
        assertThat(resp.command("SET", "x", "1")).as("waits for the backup").isEmpty();
        assertThat(resp.command("GET", "k1")).as("queued behind the SET").isEmpty();

        resp.command(mget); // a 2 MB reply queued behind the pending SET: over the limit

        assertThat(resp.channel.isActive()).isFalse();
        assertThat(resp.server.stats().outputBufferLimitDisconnections.sum()).isEqualTo(1);
        assertThat(alloc.large).hasSize(21);
        alloc.assertAllReleased();
    }

    @Test
    void repliesWaitingWhenTheConnectionClosesAreReleased() {
        open(0);
        setAsync("big", value(9, BIG));
        assertThat(resp.command("SET", "x", "1")).as("waits for the backup").isEmpty();
        assertThat(resp.send(RespChannel.encode("GET", "big") + RespChannel.encode("MGET", "big", "big")))
                .isEmpty();
        assertThat(alloc.large).hasSize(3);

        resp.channel.close();
        resp.channel.runPendingTasks();
        backup.ackAll(); // the SET's reply comes after the close
        resp.channel.runPendingTasks();

        alloc.assertAllReleased();
    }

    @Test
    void repliesQueuedBehindAWriteAreWrittenAndReleasedOnceItIsAnswered() {
        open(0);
        String big = value(10, BIG);
        setAsync("big", big);
        assertThat(resp.command("SET", "x", "1")).isEmpty();
        assertThat(resp.command("GET", "big")).isEmpty();

        backup.ackAll();
        resp.channel.runPendingTasks();

        assertThat(resp.drain()).isEqualTo("+OK\r\n" + bulk(big));
        alloc.assertAllReleased();
    }
}
