package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import io.netty.buffer.ByteBuf;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The replies queued for one client are bounded: past {@link SessionLimits#REPLY_SOFT_LIMIT} its further
 * commands wait (and reading it pauses) until they drain; past clientOutputBufferLimit it is closed.
 * The review's case: a SET waiting for its key ack, then 1,000 GETs of a 1 MiB value, queued 1 GB.
 */
class ReplyBudgetTest {
    private static final int VALUE = 64 * 1024;
    private static final int GETS = 1000;

    private final AckOnDemandReplication backup = new AckOnDemandReplication();
    private RespChannel resp;

    private static NodeConfig.Builder config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder().maxEntries(1000).maxBytes(64 << 20).build());
    }

    @AfterEach
    void close() {
        if (resp != null) resp.close();
    }

    /** Stores {@code key} without waiting for the backup, then makes the next write wait for it. */
    private void storeBig(String... keys) {
        assertThat(resp.command("KVS.MODE", "async")).isEqualTo("+OK\r\n");
        for (String k : keys)
            assertThat(resp.command("SET", k, "v".repeat(VALUE))).isEqualTo("+OK\r\n");
        assertThat(resp.command("KVS.MODE", "id-first")).isEqualTo("+OK\r\n");
    }

    @Test
    void repliesBehindAPendingWriteStopAtTheSoftLimitUntilItIsAnswered() {
        resp = new RespChannel(config().build(), backup);
        storeBig("big");
        assertThat(resp.command("SET", "x", "1")).as("waits for the backup").isEmpty();

        StringBuilder gets = new StringBuilder();
        for (int i = 0; i < GETS; i++) gets.append(RespChannel.encode("GET", "big"));
        assertThat(resp.send(gets.toString())).isEmpty();

        assertThat(resp.handler().queuedReplyBytes())
                .as("replies queued behind the pending SET")
                .isLessThanOrEqualTo(SessionLimits.REPLY_SOFT_LIMIT + VALUE + 64);
        assertThat(resp.channel.config().isAutoRead()).as("reading paused").isFalse();

        backup.ackAll();
        resp.channel.runPendingTasks();

        assertThat(countReplies()).as("+OK, then every GET's value, in order").isEqualTo(1 + GETS);
        assertThat(resp.handler().queuedReplyBytes()).isZero();
        assertThat(resp.channel.config().isAutoRead()).as("reading resumed").isTrue();
        assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
    }

    @Test
    void aClientOverTheHardLimitIsClosed() {
        resp = new RespChannel(config().clientOutputBufferLimit(1 << 20).build(), backup);
        String[] mget = new String[41];
        mget[0] = "MGET";
        for (int i = 1; i < mget.length; i++) mget[i] = "k" + i;
        storeBig(java.util.Arrays.copyOfRange(mget, 1, mget.length));
        assertThat(resp.command("SET", "x", "1")).as("waits for the backup").isEmpty();

        resp.command(mget); // a 2.6 MB reply queued behind the pending SET

        assertThat(resp.channel.isActive()).isFalse();
        assertThat(resp.server.stats().outputBufferLimitDisconnections.sum()).isEqualTo(1);
    }

    @Test
    void underTheHardLimitNothingIsClosed() {
        resp = new RespChannel(config().clientOutputBufferLimit(8 << 20).build(), backup);
        storeBig("a", "b");
        assertThat(resp.command("SET", "x", "1")).isEmpty();

        resp.command("MGET", "a", "b");

        assertThat(resp.channel.isActive()).isTrue();
        backup.ackAll();
        resp.channel.runPendingTasks();
        assertThat(countReplies()).as("+OK, then both values").isEqualTo(3);
    }

    /** Counts the replies written so far, checking each is +OK, an MGET's array header, or the big value. */
    private int countReplies() {
        StringBuilder all = new StringBuilder();
        ByteBuf buf;
        while ((buf = resp.channel.readOutbound()) != null) {
            all.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        String out = all.toString();
        String bigReply = "$" + VALUE + "\r\n" + "v".repeat(VALUE) + "\r\n";
        int n = 0;
        int at = 0;
        while (at < out.length()) {
            if (out.startsWith("+OK\r\n", at)) {
                at += 5;
            } else if (out.startsWith("*2\r\n", at)) {
                at += 4;
                continue; // an MGET's array: its elements are counted
            } else {
                assertThat(out.startsWith(bigReply, at))
                        .as("a whole reply at %d", at)
                        .isTrue();
                at += bigReply.length();
            }
            n++;
        }
        return n;
    }

    /** Over a real socket: a client that pipelines many large GETs before reading gets them all, in order. */
    @Test
    void aClientThatReadsLateGetsEveryReply() throws Exception {
        try (LiveRespServer live = new LiveRespServer(config().port(0).build())) {
            Socket s = live.connect();
            LiveRespServer.send(s, RespChannel.encode("SET", "big", "v".repeat(VALUE)));
            assertThat(LiveRespServer.readLine(s)).isEqualTo("+OK");
            int count = 300; // 19 MiB of replies: several times the soft limit, and more than socket buffers hold
            StringBuilder gets = new StringBuilder();
            for (int i = 0; i < count; i++) gets.append(RespChannel.encode("GET", "big"));
            LiveRespServer.send(s, gets.toString() + "PING\r\n");

            InputStream in = s.getInputStream();
            byte[] header = ("$" + VALUE + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < count; i++) {
                assertThat(in.readNBytes(header.length)).as("reply %d", i).isEqualTo(header);
                byte[] value = in.readNBytes(VALUE + 2);
                assertThat(value[0]).isEqualTo((byte) 'v');
                assertThat(value[VALUE - 1]).isEqualTo((byte) 'v');
                assertThat(value[VALUE]).isEqualTo((byte) '\r');
            }
            assertThat(LiveRespServer.readLine(s)).isEqualTo("+PONG");
        }
    }
}
