package dev.kvs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.client.KvsClientException;
import dev.kvs.cluster.SlotRange;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class TopologyTest {
    /** Redis 7.0.15's reply on a three-primary cluster (captured from redis-server, ports renamed). */
    private static final String REDIS_7_0_15 = "*3\r\n"
            + shard(5461, 10922, node("3465f97cf0b8bb950461b60dcb47c66ca575f1b9", 17002, "master", "online"))
            + shard(10923, 16383, node("76e66ad74dbe1bdb15ed66aaacc5e61a8846b766", 17003, "master", "online"))
            + shard(0, 5460, node("7242ecab9f1503e855be873504ce2b4845662866", 17001, "master", "online"));

    @Test
    void parsesRedisSevenShards() {
        Topology t = parse(REDIS_7_0_15, false);
        assertThat(t.shards()).hasSize(3);
        assertThat(t.shards().get(0).slots()).containsExactly(new SlotRange(5461, 10922));
        assertThat(t.shards().get(0).nodes()).containsExactly(new Endpoint("127.0.0.1", 17002));
        assertThat(t.shards().get(2).slots()).containsExactly(new SlotRange(0, 5460));
        assertThat(t.slotsCovered()).isEqualTo(16_384);
    }

    @Test
    void putsThePrimaryFirstAndFailedReplicasLast() {
        String reply = "*1\r\n*4\r\n" + bulk("slots") + "*4\r\n:0\r\n:99\r\n:200\r\n:299\r\n" + bulk("nodes") + "*3\r\n"
                + node("a", 1, "replica", "failed") + node("b", 2, "replica", "online")
                + node("c", 3, "master", "online");
        Topology t = parse(reply, false);
        assertThat(t.shards().get(0).nodes()).extracting(Endpoint::port).containsExactly(3, 2, 1);
        assertThat(t.shards().get(0).slots()).containsExactly(new SlotRange(0, 99), new SlotRange(200, 299));
        assertThat(t.slotsCovered()).isEqualTo(200);
    }

    @Test
    void aTlsClientTakesTheTlsPortAndAnUnknownEndpointFallsBackToTheIp() {
        String node = "*12\r\n" + bulk("id") + bulk("x") + bulk("port") + ":6379\r\n" + bulk("tls-port") + ":6390\r\n"
                + bulk("ip") + bulk("10.0.0.7") + bulk("endpoint") + bulk("?") + bulk("role") + bulk("master");
        String reply = "*1\r\n*4\r\n" + bulk("slots") + "*2\r\n:0\r\n:16383\r\n" + bulk("nodes") + "*1\r\n" + node;
        assertThat(parse(reply, true).shards().get(0).nodes()).containsExactly(new Endpoint("10.0.0.7", 6390));
        assertThat(parse(reply, false).shards().get(0).nodes()).containsExactly(new Endpoint("10.0.0.7", 6379));
    }

    @Test
    void skipsShardsWithoutSlots() {
        String reply = "*2\r\n" + shard(0, 16383, node("a", 1, "master", "online")) + "*4\r\n" + bulk("slots")
                + "*0\r\n" + bulk("nodes") + "*1\r\n" + node("b", 2, "master", "online");
        assertThat(parse(reply, false).shards()).hasSize(1);
    }

    @Test
    void refusesASlotInTwoShardsOrOutOfRange() {
        String twice = "*2\r\n" + shard(0, 100, node("a", 1, "master", "online"))
                + shard(100, 200, node("b", 2, "master", "online"));
        assertThatThrownBy(() -> parse(twice, false))
                .isInstanceOf(KvsClientException.class)
                .hasMessage("unexpected reply to CLUSTER SHARDS: slot 100 is served by two shards");
        String outside = "*1\r\n" + shard(0, 16384, node("a", 1, "master", "online"));
        assertThatThrownBy(() -> parse(outside, false))
                .hasMessage("unexpected reply to CLUSTER SHARDS: slot range is not in 0..16383: 0-16384");
        assertThatThrownBy(() -> parse(":1\r\n", false))
                .hasMessage("unexpected reply to CLUSTER SHARDS: the reply is not an array");
    }

    @Test
    void movedNamesTheSlotAndTheNode() {
        assertThat(ServerErrors.moved("MOVED 12182 127.0.0.1:17003"))
                .isEqualTo(new ServerErrors.Moved(12182, new Endpoint("127.0.0.1", 17003)));
        assertThat(ServerErrors.moved("MOVED 1 ::1:6380"))
                .isEqualTo(new ServerErrors.Moved(1, new Endpoint("::1", 6380)));
        assertThat(ServerErrors.moved("MOVED 16384 h:1")).isNull();
        assertThat(ServerErrors.moved("MOVED x h:1")).isNull();
        assertThat(ServerErrors.moved("ASK 1 h:1")).isNull();
        assertThat(ServerErrors.kind("MOVED 1 h:1")).isEqualTo(ServerErrors.Kind.MOVED);
        // a client of one pair keeps today's behaviour: the reply's text as a KvsClientException
        assertThat(ServerErrors.toException("MOVED 1 h:1", List.of()))
                .isExactlyInstanceOf(KvsClientException.class)
                .hasMessage("MOVED 1 h:1");
    }

    private static Topology parse(String resp, boolean tls) {
        return decode(resp, m -> Topology.parse(m, tls));
    }

    private static <T> T decode(String resp, Function<RedisMessage, T> f) {
        EmbeddedChannel ch =
                new EmbeddedChannel(new RedisDecoder(), new RedisBulkStringAggregator(), new RedisArrayAggregator());
        ch.writeInbound(Unpooled.copiedBuffer(resp, StandardCharsets.UTF_8));
        RedisMessage m = ch.readInbound();
        try {
            return f.apply(m);
        } finally {
            ReferenceCountUtil.release(m);
            assertThat(ch.finish()).isFalse();
        }
    }

    private static String shard(int first, int last, String node) {
        return "*4\r\n" + bulk("slots") + "*2\r\n:" + first + "\r\n:" + last + "\r\n" + bulk("nodes") + "*1\r\n" + node;
    }

    private static String node(String id, int port, String role, String health) {
        return "*14\r\n" + bulk("id") + bulk(id) + bulk("port") + ":" + port + "\r\n" + bulk("ip") + bulk("127.0.0.1")
                + bulk("endpoint") + bulk("127.0.0.1") + bulk("role") + bulk(role) + bulk("replication-offset")
                + ":0\r\n" + bulk("health") + bulk(health);
    }

    private static String bulk(String s) {
        return "$" + s.getBytes(StandardCharsets.UTF_8).length + "\r\n" + s + "\r\n";
    }
}
