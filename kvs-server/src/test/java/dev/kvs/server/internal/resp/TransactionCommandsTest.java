package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import dev.kvs.server.internal.TestClock;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.cluster.TestLayouts;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH over RESP, with Redis 7.0's replies (checked against
 * redis-server 7.0.15; {@code RedisCompatibilityTest} compares them with a live one). Another client
 * of the same node is a second connection on the same port ({@link #other}).
 */
class TransactionCommandsTest {
    private static final String EXECABORT = "-EXECABORT Transaction discarded because of previous errors.\r\n";
    private static final String QUEUED = "+QUEUED\r\n";
    private static final String NULL_ARRAY = "*-1\r\n";

    private final TestClock clock = TestClock.fixedAt(1_700_000_000_000L);
    private RespChannel resp = new RespChannel(config().build(), null, null, false, clock);
    private EmbeddedChannel other;

    private static NodeConfig.Builder config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(64L << 20)
                        .build());
    }

    @AfterEach
    void close() {
        if (other != null) other.finishAndReleaseAll();
        resp.close();
    }

    /** A command from a second client of the same node; its reply, waited for. */
    private String other(String... args) {
        if (other == null) {
            other = new EmbeddedChannel();
            resp.server.configure(other.pipeline());
            RespChannel.guardOutbound(other);
            other.pipeline().fireChannelActive();
        }
        other.writeInbound(Unpooled.copiedBuffer(RespChannel.encode(args), StandardCharsets.ISO_8859_1));
        return RespChannel.awaitReply(other); // FLUSHDB's reply comes from the sweep's thread
    }

    private String exec() {
        return resp.command("EXEC");
    }

    @Test
    void queuedCommandsRunAtExecAndItsArrayHoldsEachReply() {
        assertThat(resp.command("MULTI")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SET", "k", "v")).isEqualTo(QUEUED);
        assertThat(resp.command("GET", "k")).isEqualTo(QUEUED);
        assertThat(resp.command("PING")).isEqualTo(QUEUED);
        assertThat(other("GET", "k")).as("nothing ran before EXEC").isEqualTo("$-1\r\n");

        assertThat(exec()).isEqualTo("*3\r\n+OK\r\n$1\r\nv\r\n+PONG\r\n");
        assertThat(resp.command("MULTI")).isEqualTo("+OK\r\n");
        assertThat(exec()).as("an empty transaction").isEqualTo("*0\r\n");
    }

    @Test
    void aCommandThatFailsWhenRunIsAnErrorInTheArrayAndTheOthersStand() {
        resp.command("MULTI");
        resp.command("SET", "k", "v");
        resp.command("INCR", "k");
        resp.command("SET", "j", "w");

        assertThat(exec()).isEqualTo("*3\r\n+OK\r\n-ERR value is not an integer or out of range\r\n+OK\r\n");
        assertThat(resp.command("GET", "j")).isEqualTo("$1\r\nw\r\n");
    }

    @Test
    void discardDropsTheQueueAndTheMisplacedCommandsAnswerAsRedis() {
        assertThat(resp.command("EXEC")).isEqualTo("-ERR EXEC without MULTI\r\n");
        assertThat(resp.command("DISCARD")).isEqualTo("-ERR DISCARD without MULTI\r\n");
        resp.command("MULTI");
        assertThat(resp.command("MULTI")).isEqualTo("-ERR MULTI calls can not be nested\r\n");
        assertThat(resp.command("WATCH", "x")).isEqualTo("-ERR WATCH inside MULTI is not allowed\r\n");
        resp.command("SET", "k", "v");
        assertThat(resp.command("DISCARD")).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo("$-1\r\n");
        assertThat(resp.command("EXEC")).isEqualTo("-ERR EXEC without MULTI\r\n");

        resp.command("MULTI");
        resp.command("MULTI");
        resp.command("WATCH", "x");
        assertThat(exec()).as("neither error aborts the transaction").isEqualTo("*0\r\n");
    }

    @Test
    void anErrorWhileQueuingAbortsTheExecAndRunsNothing() {
        resp.command("MULTI");
        resp.command("SET", "a", "1");
        assertThat(resp.command("NOSUCH", "x"))
                .isEqualTo("-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n");
        resp.command("SET", "b", "2");
        assertThat(exec()).isEqualTo(EXECABORT);
        assertThat(resp.command("EXISTS", "a", "b")).isEqualTo(":0\r\n");
        assertThat(resp.command("PING")).as("out of the transaction").isEqualTo("+PONG\r\n");

        resp.command("MULTI");
        assertThat(resp.command("GET")).isEqualTo("-ERR wrong number of arguments for 'get' command\r\n");
        assertThat(exec()).isEqualTo(EXECABORT);

        resp.command("MULTI");
        resp.command("SET", "a", "1");
        assertThat(resp.command("SHUTDOWN")).isEqualTo("-ERR Command not allowed inside a transaction\r\n");
        assertThat(exec()).isEqualTo(EXECABORT);
        assertThat(resp.command("EXISTS", "a")).isEqualTo(":0\r\n");
    }

    @Test
    void aCommandTheUsersRoleForbidsAbortsTheExec() {
        resp.close();
        resp = new RespChannel(config().user(UserConfig.withPassword("reader", "r", UserConfig.Role.READONLY))
                .build());
        resp.command("AUTH", "reader", "r");
        resp.command("MULTI");
        assertThat(resp.command("GET", "k")).isEqualTo(QUEUED);
        assertThat(resp.command("SET", "k", "v")).startsWith("-NOPERM");
        assertThat(exec()).isEqualTo(EXECABORT);
    }

    @Test
    void watchedKeysWrittenByAnotherClientMakeExecAnswerANullArray() {
        for (String[] write : new String[][] {
            {"SET", "x", "40"}, {"DEL", "x"}, {"EXPIRE", "x", "100"}, {"INCR", "x"}, {"RENAME", "y", "x"},
        }) {
            resp.command("SET", "x", "30");
            resp.command("SET", "y", "1");
            resp.command("WATCH", "x");
            other(write);
            resp.command("MULTI");
            resp.command("SET", "done", "yes");
            assertThat(exec()).as(String.join(" ", write)).isEqualTo(NULL_ARRAY);
            assertThat(resp.command("EXISTS", "done")).isEqualTo(":0\r\n");
        }
        resp.command("WATCH", "x", "absent");
        other("SET", "absent", "now");
        resp.command("MULTI");
        assertThat(exec()).as("an absent key written").isEqualTo(NULL_ARRAY);
    }

    @Test
    void aWatchedKeyNotWrittenLetsExecRunAndExecUnwatches() {
        resp.command("SET", "x", "30");
        resp.command("WATCH", "x", "y");
        resp.command("WATCH", "z");
        other("GET", "x");
        other("SET", "unrelated", "1");
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).isEqualTo("*1\r\n+PONG\r\n");

        other("SET", "x", "40");
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).as("no longer watched after EXEC").isEqualTo("*1\r\n+PONG\r\n");
    }

    @Test
    void unwatchDiscardAndAFailedExecForgetTheWatchedKeys() {
        resp.command("WATCH", "x");
        other("SET", "x", "1");
        assertThat(resp.command("UNWATCH")).isEqualTo("+OK\r\n");
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).isEqualTo("*1\r\n+PONG\r\n");

        resp.command("WATCH", "x");
        other("SET", "x", "10");
        resp.command("MULTI");
        resp.command("DISCARD");
        resp.command("MULTI");
        resp.command("INCR", "x");
        assertThat(exec()).isEqualTo("*1\r\n:11\r\n");

        resp.command("WATCH", "x");
        other("SET", "x", "10");
        resp.command("MULTI");
        assertThat(exec()).isEqualTo(NULL_ARRAY);
        other("SET", "x", "20");
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).as("after a failed EXEC").isEqualTo("*1\r\n+PONG\r\n");
    }

    @Test
    void aFlushTouchesTheWatchedKeysThatExistedOnly() {
        resp.command("SET", "x", "30");
        resp.command("WATCH", "x");
        assertThat(other("FLUSHDB")).isEqualTo("+OK\r\n");
        resp.command("MULTI");
        assertThat(exec()).isEqualTo(NULL_ARRAY);

        resp.command("DEL", "x");
        resp.command("WATCH", "x");
        assertThat(other("FLUSHALL")).isEqualTo("+OK\r\n");
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).isEqualTo("*1\r\n+PONG\r\n");
    }

    @Test
    void aKeyThatExpiresWhileWatchedIsTouchedAStaleOneIsNot() {
        resp.command("SET", "x", "foo", "PX", "1000");
        resp.command("WATCH", "x");
        clock.advance(Duration.ofMillis(1001));
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).as("expired while watched").isEqualTo(NULL_ARRAY);

        resp.command("SET", "x", "foo", "PX", "1000");
        clock.advance(Duration.ofMillis(1001));
        resp.command("WATCH", "x");
        assertThat(resp.command("EXISTS", "x")).isEqualTo(":0\r\n");
        other("DEL", "x");
        assertThat(other("FLUSHDB")).isEqualTo("+OK\r\n");
        resp.command("MULTI");
        resp.command("PING");
        assertThat(exec()).as("stale when watched").isEqualTo("*1\r\n+PONG\r\n");

        resp.command("SET", "x", "foo", "PX", "1000");
        clock.advance(Duration.ofMillis(1001));
        resp.command("WATCH", "x");
        other("SET", "x", "again");
        resp.command("MULTI");
        assertThat(exec()).as("stale, then written").isEqualTo(NULL_ARRAY);
    }

    @Test
    void aWritesReplyInTheArrayWaitsForReplicationAndTheArrayKeepsTheReplyOrder() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = new RespChannel(config().mode(ReplicationMode.ID_FIRST).build(), backup);
        resp.command("MULTI");
        resp.command("SET", "a", "1");
        resp.command("GET", "a");
        resp.command("SET", "b", "2");
        assertThat(resp.command("EXEC")).as("waits for the backup's acks").isEmpty();
        assertThat(resp.command("PING")).as("behind EXEC's reply").isEmpty();

        backup.ackAll();
        resp.channel.runPendingTasks();
        assertThat(resp.drain()).isEqualTo("*3\r\n+OK\r\n$1\r\n1\r\n+OK\r\n+PONG\r\n");
    }

    /**
     * Without replication room a write is held; in MULTI it is only queued, and the EXEC waits for room
     * for all its writes, none written meanwhile (at the write timeout it is refused, EXECABORT BUSY).
     */
    @Test
    void anExecOfWritesWaitsForReplicationRoomAsAWriteDoes() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = new RespChannel(config().mode(ReplicationMode.ASYNC).build(), backup, null, true);
        backup.room(false);
        resp.command("MULTI");
        assertThat(resp.command("SET", "a", "1")).as("queued, not held").isEqualTo(QUEUED);
        resp.command("SET", "b", "2");
        assertThat(resp.command("EXEC")).as("held for room").isEmpty();
        resp.advanceTime(10, TimeUnit.MILLISECONDS);
        assertThat(resp.drain()).isEmpty();

        backup.room(true);
        resp.advanceTime(2, TimeUnit.MILLISECONDS);
        assertThat(resp.drain()).isEqualTo("*2\r\n+OK\r\n+OK\r\n");

        assertThat(resp.command("GET", "b")).isEqualTo("$1\r\n2\r\n");
    }

    @Test
    void aTransactionAcrossSlotsIsCrossSlotAtExecAndRunsNothing() {
        resp.close();
        resp = RespChannel.clustered(config().build(), ClusterView.of(TestLayouts.twoShards("a1", 7001, 7002, 7003)));
        // "bar" and "{bar}x" hash to slot 5061 (shard a), "foo" to 12182 (shard b)
        resp.command("MULTI");
        resp.command("SET", "bar", "1");
        resp.command("SET", "{bar}x", "2");
        assertThat(exec()).isEqualTo("*2\r\n+OK\r\n+OK\r\n");

        resp.command("MULTI");
        resp.command("SET", "bar", "3");
        assertThat(resp.command("SET", "b", "4"))
                .as("slot 3300, of shard a: served here")
                .isEqualTo(QUEUED);
        assertThat(exec()).isEqualTo("-CROSSSLOT Keys in request don't hash to the same slot\r\n");
        assertThat(resp.command("GET", "bar")).isEqualTo("$1\r\n1\r\n");

        resp.command("MULTI");
        assertThat(resp.command("GET", "foo")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
        assertThat(exec()).isEqualTo(EXECABORT);
    }
}
