package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.pubsub.PubSub;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pub/sub over real connections (issue #37), each reply's exact bytes as Redis 7.0.15 sends them, in
 * RESP2 and RESP3. {@code -Dkvs.compat.redis=HOST:PORT} runs the same tests against a real Redis (the
 * tests that reach into kvs, marked so, are skipped there). Channels are named per run, so a shared
 * Redis's other clients are not disturbed.
 */
class PubSubTest {
    private static LiveRespServer kvs;
    private static String host;
    private static int port;
    private static final String RUN =
            "ps" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";

    private final List<Socket> sockets = new ArrayList<>();

    @BeforeAll
    static void start() throws InterruptedException {
        String redis = System.getProperty("kvs.compat.redis");
        if (redis != null) {
            int colon = redis.lastIndexOf(':');
            host = redis.substring(0, colon);
            port = Integer.parseInt(redis.substring(colon + 1));
            return;
        }
        kvs = new LiveRespServer(NodeConfig.builder().build());
        host = "127.0.0.1";
        port = kvs.port;
    }

    @AfterAll
    static void stop() {
        if (kvs != null) kvs.close();
    }

    @AfterEach
    void closeSockets() throws IOException {
        for (Socket s : sockets) s.close();
    }

    private Socket connect(int protocol) throws IOException {
        Socket s = new Socket(host, port);
        s.setSoTimeout(10_000);
        sockets.add(s);
        if (protocol == 3) assertThat(RespText.call(s, "HELLO", "3")).startsWith("%7\r\n");
        return s;
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    /** A (un)subscribe confirmation or message: an array in RESP2, a push in RESP3. */
    private static String push(int protocol, Object... items) {
        StringBuilder b = new StringBuilder(protocol == 3 ? ">" : "*")
                .append(items.length)
                .append("\r\n");
        for (Object o : items) {
            if (o == null) b.append(protocol == 3 ? "_\r\n" : "$-1\r\n");
            else if (o instanceof Integer n) b.append(':').append(n).append("\r\n");
            else b.append(bulk((String) o));
        }
        return b.toString();
    }

    private static void send(Socket s, String... args) throws IOException {
        s.getOutputStream().write(RespChannel.encode(args).getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
    }

    private static List<String> next(Socket s, int replies) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < replies; i++) out.add(RespText.next(s));
        return out;
    }

    @Test
    void subscribeConfirmsEachChannelWithTheCountOfSubscriptions() throws IOException {
        for (int protocol : new int[] {2, 3}) {
            Socket s = connect(protocol);
            String a = RUN + "a" + protocol;
            String b = RUN + "b" + protocol;
            send(s, "SUBSCRIBE", a, b, a);
            assertThat(next(s, 3))
                    .containsExactly(
                            push(protocol, "subscribe", a, 1),
                            push(protocol, "subscribe", b, 2),
                            push(protocol, "subscribe", a, 2));
            send(s, "PSUBSCRIBE", a + "*");
            assertThat(next(s, 1)).containsExactly(push(protocol, "psubscribe", a + "*", 3));
            send(s, "SSUBSCRIBE", a);
            assertThat(next(s, 1)).containsExactly(push(protocol, "ssubscribe", a, 1));
            send(s, "UNSUBSCRIBE", RUN + "never");
            assertThat(next(s, 1)).containsExactly(push(protocol, "unsubscribe", RUN + "never", 3));
            send(s, "PUNSUBSCRIBE");
            assertThat(next(s, 1)).containsExactly(push(protocol, "punsubscribe", a + "*", 2));
            send(s, "SUNSUBSCRIBE");
            assertThat(next(s, 1)).containsExactly(push(protocol, "sunsubscribe", a, 0));
        }
    }

    @Test
    void unsubscribeFromNothingAnswersNullAndZero() throws IOException {
        for (int protocol : new int[] {2, 3}) {
            Socket s = connect(protocol);
            assertThat(RespText.call(s, "UNSUBSCRIBE")).isEqualTo(push(protocol, "unsubscribe", null, 0));
            assertThat(RespText.call(s, "PUNSUBSCRIBE")).isEqualTo(push(protocol, "punsubscribe", null, 0));
            assertThat(RespText.call(s, "SUNSUBSCRIBE")).isEqualTo(push(protocol, "sunsubscribe", null, 0));
        }
    }

    @Test
    void unsubscribeWithoutNamesLeavesEveryChannel() throws IOException {
        Socket s = connect(2);
        String a = RUN + "all-a";
        String b = RUN + "all-b";
        send(s, "SUBSCRIBE", a, b);
        next(s, 2);
        send(s, "UNSUBSCRIBE");
        // Redis answers in its dict's order: compared as a set, the counts 1 then 0
        List<String> replies = next(s, 2);
        Set<String> names = new HashSet<>();
        for (String r : replies) names.add(((List<?>) RespText.parse(r)).get(1).toString());
        assertThat(names).containsExactlyInAnyOrder(a, b);
        assertThat(replies.get(0)).endsWith(":1\r\n");
        assertThat(replies.get(1)).endsWith(":0\r\n");
        assertThat(RespText.call(s, "GET", RUN + "k")).isEqualTo("$-1\r\n"); // out of subscribe mode
    }

    @Test
    void publishReachesChannelAndPatternSubscribersInBothProtocols() throws IOException {
        String channel = RUN + "news.1";
        String pattern = RUN + "news.*";
        Socket sub2 = connect(2);
        Socket sub3 = connect(3);
        Socket psub = connect(2);
        Socket publisher = connect(2);
        send(sub2, "SUBSCRIBE", channel);
        next(sub2, 1);
        send(sub3, "SUBSCRIBE", channel);
        next(sub3, 1);
        send(psub, "PSUBSCRIBE", pattern);
        next(psub, 1);
        assertThat(RespText.call(publisher, "PUBLISH", channel, "hello")).isEqualTo(":3\r\n");
        assertThat(RespText.call(publisher, "PUBLISH", RUN + "other", "x")).isEqualTo(":0\r\n");
        assertThat(RespText.next(sub2)).isEqualTo(push(2, "message", channel, "hello"));
        assertThat(RespText.next(sub3)).isEqualTo(push(3, "message", channel, "hello"));
        assertThat(RespText.next(psub)).isEqualTo(push(2, "pmessage", pattern, channel, "hello"));
        assertThat(RespText.call(publisher, "SPUBLISH", channel, "x")).isEqualTo(":0\r\n");
    }

    @Test
    void shardMessagesReachOnlyShardSubscribers() throws IOException {
        String channel = RUN + "shard";
        Socket s = connect(3);
        Socket publisher = connect(2);
        send(s, "SSUBSCRIBE", channel);
        next(s, 1);
        assertThat(RespText.call(publisher, "PUBLISH", channel, "plain")).isEqualTo(":0\r\n");
        assertThat(RespText.call(publisher, "SPUBLISH", channel, "sharded")).isEqualTo(":1\r\n");
        assertThat(RespText.next(s)).isEqualTo(push(3, "smessage", channel, "sharded"));
    }

    @Test
    void resp2SubscribeModeAllowsOnlyItsCommands() throws IOException {
        Socket s = connect(2);
        String channel = RUN + "mode";
        send(s, "SUBSCRIBE", channel);
        next(s, 1);
        String refusal = "-ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are"
                + " allowed in this context\r\n";
        assertThat(RespText.call(s, "GET", RUN + "k")).isEqualTo(refusal.formatted("get"));
        assertThat(RespText.call(s, "publish", channel, "x")).isEqualTo(refusal.formatted("publish"));
        assertThat(RespText.call(s, "MULTI")).isEqualTo(refusal.formatted("multi"));
        assertThat(RespText.call(s, "PING")).isEqualTo("*2\r\n" + bulk("pong") + bulk(""));
        assertThat(RespText.call(s, "PING", "hi")).isEqualTo("*2\r\n" + bulk("pong") + bulk("hi"));
        assertThat(RespText.call(s, "UNSUBSCRIBE", channel)).isEqualTo(push(2, "unsubscribe", channel, 0));
        assertThat(RespText.call(s, "PING")).isEqualTo("+PONG\r\n");
        assertThat(RespText.call(s, "GET", RUN + "k")).isEqualTo("$-1\r\n");
    }

    @Test
    void resp3ConnectionRunsAnyCommandWhileSubscribedAndSeesItsOwnMessageFirst() throws IOException {
        Socket s = connect(3);
        String channel = RUN + "self";
        send(s, "SUBSCRIBE", channel);
        next(s, 1);
        assertThat(RespText.call(s, "GET", RUN + "k")).isEqualTo("_\r\n");
        assertThat(RespText.call(s, "PING")).isEqualTo("+PONG\r\n");
        send(s, "PUBLISH", channel, "me");
        assertThat(next(s, 2)).containsExactly(push(3, "message", channel, "me"), ":1\r\n");
    }

    @Test
    void publishRunsInsideMultiAndFromScripts() throws IOException {
        String channel = RUN + "tx";
        Socket sub = connect(2);
        Socket c = connect(2);
        send(sub, "SUBSCRIBE", channel);
        next(sub, 1);
        assertThat(RespText.call(c, "MULTI")).isEqualTo("+OK\r\n");
        assertThat(RespText.call(c, "PUBLISH", channel, "in-exec")).isEqualTo("+QUEUED\r\n");
        assertThat(RespText.call(c, "EXEC")).isEqualTo("*1\r\n:1\r\n");
        assertThat(RespText.next(sub)).isEqualTo(push(2, "message", channel, "in-exec"));
        assertThat(RespText.call(c, "EVAL", "return redis.call('publish', KEYS[1], ARGV[1])", "1", channel, "lua"))
                .isEqualTo(":1\r\n");
        assertThat(RespText.next(sub)).isEqualTo(push(2, "message", channel, "lua"));
        assertThat(RespText.call(c, "EVAL", "return redis.call('subscribe', 'x')", "0"))
                .startsWith("-ERR This Redis command is not allowed from script");
    }

    @Test
    void subscribeInsideMultiAnswersInsideExec() throws IOException {
        Socket s = connect(2);
        String channel = RUN + "multi-sub";
        RespText.call(s, "MULTI");
        assertThat(RespText.call(s, "SUBSCRIBE", channel)).isEqualTo("+QUEUED\r\n");
        assertThat(RespText.call(s, "EXEC")).isEqualTo("*1\r\n" + push(2, "subscribe", channel, 1));
    }

    @Test
    void pubsubIntrospectionCountsSubscribers() throws IOException {
        String channel = RUN + "intro";
        String pattern = RUN + "intro*";
        Socket a = connect(2);
        Socket b = connect(3);
        Socket c = connect(2);
        send(a, "SUBSCRIBE", channel);
        next(a, 1);
        send(b, "SUBSCRIBE", channel);
        next(b, 1);
        send(b, "PSUBSCRIBE", pattern);
        next(b, 1);
        assertThat(RespText.call(c, "PUBSUB", "NUMSUB", channel, RUN + "none"))
                .isEqualTo("*4\r\n" + bulk(channel) + ":2\r\n" + bulk(RUN + "none") + ":0\r\n");
        assertThat(RespText.call(c, "PUBSUB", "CHANNELS", RUN + "intr?")).isEqualTo("*1\r\n" + bulk(channel));
        assertThat(RespText.call(c, "PUBSUB", "SHARDCHANNELS", RUN + "*")).isEqualTo("*0\r\n");
        assertThat(RespText.call(c, "PUBSUB", "SHARDNUMSUB", channel)).isEqualTo("*2\r\n" + bulk(channel) + ":0\r\n");
        assertThat(RespText.call(c, "PUBSUB", "NUMPAT")).matches(":[1-9]\\d*\r\n");
        assertThat(RespText.call(c, "PUBSUB", "NUMPAT", "x"))
                .isEqualTo("-ERR wrong number of arguments for 'pubsub|numpat' command\r\n");
        assertThat(RespText.call(c, "PUBSUB", "CHANNELS", "a", "b"))
                .isEqualTo("-ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.\r\n");
        assertThat(RespText.call(c, "PUBSUB", "foo")).isEqualTo("-ERR unknown subcommand 'foo'. Try PUBSUB HELP.\r\n");
        assertThat(RespText.call(c, "PUBSUB", "HELP")).startsWith("*14\r\n+PUBSUB <subcommand>");
    }

    @Test
    void resetLeavesEverySubscriptionAndReturnsToResp2() throws IOException {
        for (int protocol : new int[] {2, 3}) {
            Socket s = connect(protocol);
            Socket c = connect(2);
            String channel = RUN + "reset" + protocol;
            send(s, "SUBSCRIBE", channel);
            next(s, 1);
            send(s, "PSUBSCRIBE", channel + "*");
            next(s, 1);
            assertThat(RespText.call(s, "RESET")).isEqualTo("+RESET\r\n");
            assertThat(RespText.call(c, "PUBSUB", "NUMSUB", channel)).endsWith(":0\r\n");
            assertThat(RespText.call(c, "PUBLISH", channel, "x")).isEqualTo(":0\r\n");
            assertThat(RespText.call(s, "GET", RUN + "k")).isEqualTo("$-1\r\n"); // RESP2 again, not subscribed
            assertThat(RespText.call(s, "CLIENT", "INFO")).contains(" sub=0 psub=0 ssub=0 ");
        }
    }

    @Test
    void pushesAreWrittenUnderClientReplyOffAndOtherRepliesAreNot() throws IOException {
        Socket s = connect(3);
        Socket c = connect(2);
        String channel = RUN + "off";
        send(s, "CLIENT", "REPLY", "OFF");
        send(s, "SUBSCRIBE", channel);
        assertThat(RespText.next(s)).isEqualTo(push(3, "subscribe", channel, 1));
        send(s, "GET", RUN + "k"); // silenced
        assertThat(RespText.call(c, "PUBLISH", channel, "hello")).isEqualTo(":1\r\n");
        assertThat(RespText.next(s)).isEqualTo(push(3, "message", channel, "hello"));
        send(s, "CLIENT", "REPLY", "ON");
        assertThat(RespText.next(s)).isEqualTo("+OK\r\n");
        send(s, "CLIENT", "REPLY", "SKIP");
        send(s, "ECHO", "skipped");
        assertThat(RespText.call(s, "ECHO", "seen")).isEqualTo(bulk("seen"));
    }

    @Test
    void closedSubscriberIsForgotten() throws IOException {
        String channel = RUN + "gone";
        Socket s = connect(2);
        Socket c = connect(2);
        send(s, "SUBSCRIBE", channel);
        next(s, 1);
        assertThat(RespText.call(c, "PUBSUB", "NUMSUB", channel)).endsWith(":1\r\n");
        s.close();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> RespText.call(c, "PUBLISH", channel, "x").equals(":0\r\n"));
        assertThat(RespText.call(c, "PUBSUB", "NUMSUB", channel)).endsWith(":0\r\n");
    }

    // ---- kvs only: the registry reached from another thread, and the output limit

    private static PubSub kvsPubSub() {
        Assumptions.assumeTrue(kvs != null, "reaches into kvs");
        return kvs.server.pubSub();
    }

    @Test
    void publishFromAnotherThreadReachesSubscribersOnTheEventLoop() throws Exception {
        PubSub pubSub = kvsPubSub();
        String channel = RUN + "thread";
        Socket s = connect(3);
        send(s, "PSUBSCRIBE", RUN + "thr*");
        next(s, 1);
        int[] receivers = new int[1];
        Thread publisher = new Thread(() -> receivers[0] = pubSub.publish(
                channel.getBytes(StandardCharsets.UTF_8), "from-thread".getBytes(StandardCharsets.UTF_8)));
        publisher.start();
        publisher.join();
        assertThat(receivers[0]).isEqualTo(1);
        assertThat(RespText.next(s)).isEqualTo(push(3, "pmessage", RUN + "thr*", channel, "from-thread"));
    }

    @Test
    void configSetsThePubsubClassOutputLimit() throws IOException {
        Socket c = connect(2);
        String limit = "client-output-buffer-limit";
        String pubsubDefault = "pubsub 33554432 8388608 60";
        assertThat(RespText.call(c, "CONFIG", "GET", limit))
                .matches("\\*2\r\n" + Pattern.quote(bulk(limit)) + "\\$\\d+\r\nnormal \\d+ 0 0 slave 268435456"
                        + " 67108864 60 " + pubsubDefault + "\r\n");
        try {
            assertThat(RespText.call(c, "CONFIG", "SET", limit, "PUBSUB 1mb 512kb 10"))
                    .isEqualTo("+OK\r\n");
            assertThat(RespText.call(c, "CONFIG", "GET", limit)).endsWith(" pubsub 1048576 524288 10\r\n");
            String failed = "-ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - ";
            assertThat(RespText.call(c, "CONFIG", "SET", limit, "pubsub 1mb 512kb"))
                    .isEqualTo(failed + "Wrong number of arguments in buffer limit configuration.\r\n");
            assertThat(RespText.call(c, "CONFIG", "SET", limit, "foo 1mb 512kb 5"))
                    .isEqualTo(failed + "Invalid client class specified in buffer limit configuration.\r\n");
            assertThat(RespText.call(c, "CONFIG", "SET", limit, "pubsub 1x 2 3"))
                    .isEqualTo(
                            failed + "Error in hard, soft or soft_seconds setting in buffer limit configuration.\r\n");
            assertThat(RespText.call(c, "CONFIG", "GET", limit)).endsWith(" pubsub 1048576 524288 10\r\n");
        } finally {
            assertThat(RespText.call(c, "CONFIG", "SET", limit, pubsubDefault)).isEqualTo("+OK\r\n");
        }
    }

    @Test
    void slowSubscriberIsDisconnectedAtTheHardLimitWithoutBlockingThePublisher() throws Exception {
        Socket admin = connect(2);
        assertThat(RespText.call(admin, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 256kb 0 0"))
                .isEqualTo("+OK\r\n");
        long before = kvs == null ? 0 : kvs.server.pubSub().disconnections();
        try {
            String channel = RUN + "slow";
            Socket slow = new Socket();
            slow.setReceiveBufferSize(4096);
            slow.connect(new InetSocketAddress(host, port));
            slow.setSoTimeout(10_000);
            sockets.add(slow);
            send(slow, "SUBSCRIBE", channel);
            next(slow, 1); // then reads nothing more
            Socket publisher = connect(2);
            String payload = "x".repeat(64 << 10);
            // the publisher sends far more than the limit and the kernel's buffers hold: every PUBLISH is
            // answered at once although the subscriber reads nothing, until the subscriber is cut off
            int sent = 0;
            boolean subscribed = true;
            while (subscribed && sent < 2000) {
                assertThat(RespText.call(publisher, "PUBLISH", channel, payload))
                        .matches(":[01]\r\n");
                sent++;
                subscribed = RespText.call(admin, "PUBSUB", "NUMSUB", channel).endsWith(":1\r\n");
            }
            assertThat(subscribed)
                    .as("subscriber still subscribed after %d messages", sent)
                    .isFalse();
            assertThat(sent).isGreaterThan(4);
            assertThat(readsToEnd(slow)).isTrue();
            assertThat(RespText.call(publisher, "PUBLISH", channel, "after")).isEqualTo(":0\r\n");
            if (kvs != null) {
                assertThat(kvs.server.pubSub().disconnections()).isEqualTo(before + 1);
                assertThat(RespText.call(admin, "INFO", "stats"))
                        .contains("kvs_pubsub_limit_disconnections:" + (before + 1) + "\r\n");
                assertThat(kvs.node.status().pubSub().limitDisconnections()).isEqualTo(before + 1);
                assertThat(kvs.commands.metrics().scrape())
                        .contains("kvs_pubsub_limit_disconnections_total " + (before + 1) + ".0");
            }
        } finally {
            RespText.call(admin, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60");
        }
    }

    /** True once the server has closed {@code s} (what it still had queued is read and dropped). */
    private static boolean readsToEnd(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buf = new byte[64 << 10];
        try {
            while (in.read(buf) != -1) {
                // drain
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true; // closed with unread data: a reset
        }
    }
}
