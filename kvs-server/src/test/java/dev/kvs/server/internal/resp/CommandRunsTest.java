package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run of one command on one key in one read runs as one ({@link CommandRuns}): one write, and each
 * command answered as it would have been alone; where a run could be told from its commands one by one,
 * each runs alone.
 */
class CommandRunsTest {
    private static final String WRONGTYPE = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

    private RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    /** The commands, each {@code words} array one, as one read. */
    private String read(String[]... commands) {
        StringBuilder raw = new StringBuilder();
        for (String[] c : commands) raw.append(RespChannel.encode(c));
        return resp.send(raw.toString());
    }

    private static String[] c(String... words) {
        return words;
    }

    private static String[][] times(int n, String... words) {
        String[][] out = new String[n][];
        for (int i = 0; i < n; i++) out[i] = words;
        return out;
    }

    @Test
    void aRunOfSetsOfOneKeyIsOneWriteOfTheLastValueAndEachIsAnsweredOkOnceItIsReplicated() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        String[][] run = new String[16][];
        for (int i = 0; i < 16; i++) run[i] = c("SET", "k", "v" + i);
        assertThat(read(run)).as("no reply before the backup has the write").isEmpty();
        assertThat(backup.lastTxId().seq()).as("TxIds taken").isEqualTo(1);
        backup.ackAll();
        assertThat(resp.awaitReplies(16 * 5)).isEqualTo("+OK\r\n".repeat(16));
        assertThat(resp.command("GET", "k")).isEqualTo("$3\r\nv15\r\n");
        assertThat(calls("set")).isEqualTo(16);
    }

    @Test
    void aRunEndsAtAnotherCommandOrKeyAndSetsWithOptionsRunAlone() {
        String replies = read(
                c("SET", "k", "a"),
                c("SET", "k", "b"),
                c("GET", "k"),
                c("SET", "k", "c"),
                c("SET", "j", "x"),
                c("SET", "k", "d"),
                c("SET", "k", "e", "GET"),
                c("SET", "k", "f"));
        assertThat(replies).isEqualTo("+OK\r\n+OK\r\n$1\r\nb\r\n+OK\r\n+OK\r\n+OK\r\n$1\r\nd\r\n+OK\r\n");
        assertThat(resp.command("MGET", "k", "j")).isEqualTo("*2\r\n$1\r\nf\r\n$1\r\nx\r\n");
        assertThat(calls("set")).isEqualTo(7);
    }

    @Test
    void aRunOfSaddsAnswersEachWithTheMembersItAdded() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        resp.command("SADD", "s", "a");
        backup.ackAll();
        resp.awaitReplies(4);
        String replies = read(
                c("SADD", "s", "a"),
                c("SADD", "s", "b"),
                c("SADD", "s", "b", "c"),
                c("SADD", "s", "c", "d", "d"),
                c("SADD", "s", "e", "a"));
        assertThat(replies).isEmpty();
        assertThat(backup.lastTxId().seq()).as("TxIds taken").isEqualTo(2);
        backup.ackAll();
        assertThat(resp.awaitReplies(5 * 4)).isEqualTo(":0\r\n:1\r\n:1\r\n:1\r\n:1\r\n");
        assertThat(members()).containsExactlyInAnyOrder("a", "b", "c", "d", "e");
    }

    @Test
    void aRunOfHsetsAnswersEachWithTheFieldsItAddedAndTheLastValueOfAFieldStays() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        resp.command("HSET", "h", "a", "0");
        backup.ackAll();
        resp.awaitReplies(4);
        String replies = read(
                c("HSET", "h", "a", "1"),
                c("HSET", "h", "b", "1"),
                c("HSET", "h", "b", "2", "c", "1"),
                c("HSET", "h", "d", "1", "d", "2", "e", "1"),
                c("HMSET", "h", "a", "9"),
                c("HMSET", "h", "f", "1"));
        assertThat(replies).isEmpty();
        assertThat(backup.lastTxId().seq()).as("TxIds taken: one a run").isEqualTo(3);
        backup.ackAll();
        assertThat(resp.awaitReplies(4 * 4 + 2 * 5)).isEqualTo(":0\r\n:1\r\n:1\r\n:2\r\n+OK\r\n+OK\r\n");
        assertThat(resp.command("HMGET", "h", "a", "b", "c", "d", "e", "f"))
                .isEqualTo("*6\r\n$1\r\n9\r\n$1\r\n2\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n1\r\n$1\r\n1\r\n");
        assertThat(read(times(2, "HSET", "h", "odd")))
                .isEqualTo("-ERR wrong number of arguments for 'hset' command\r\n".repeat(2));
    }

    @Test
    void aRunOfSpopsGivesEachAMemberUntilTheSetRunsOut() {
        resp.command("SADD", "s", "a", "b", "c");
        String[] replies = read(times(5, "SPOP", "s")).split("\r\n");
        Set<String> popped = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            assertThat(replies[2 * i]).isEqualTo("$1");
            popped.add(replies[2 * i + 1]);
        }
        assertThat(popped).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(replies).hasSize(8).endsWith("$-1", "$-1");
        assertThat(resp.command("EXISTS", "s")).isEqualTo(":0\r\n");
        assertThat(calls("spop")).isEqualTo(5);
    }

    @Test
    void spopsWithACountRunAlone() {
        resp.command("SADD", "s", "a", "b", "c", "d", "e");
        String replies = read(times(2, "SPOP", "s", "2"));
        assertThat(replies).matches("(\\*2\r\n\\$1\r\n[a-e]\r\n\\$1\r\n[a-e]\r\n){2}");
        assertThat(resp.command("SCARD", "s")).isEqualTo(":1\r\n");
    }

    @Test
    void aRunOfSpopsIsOnePop() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        resp.command("SADD", "s", "a", "b", "c", "d");
        backup.ackAll();
        resp.awaitReplies(4);
        assertThat(read(times(3, "SPOP", "s"))).isEmpty();
        assertThat(backup.lastTxId().seq()).as("TxIds taken").isEqualTo(2);
        backup.ackAll();
        assertThat(resp.awaitReplies(3 * 7)).matches("(\\$1\r\n[abcd]\r\n){3}");
        assertThat(resp.command("SCARD", "s")).isEqualTo(":1\r\n");
    }

    @Test
    void aRunOfCountersIsOneWriteAndEachIsAnsweredTheValueItLeft() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        String[][] run = {
            c("INCR", "n"),
            c("INCR", "n"),
            c("INCR", "n"),
            c("INCRBY", "n", "10"),
            c("INCRBY", "n", "-5"),
            c("DECR", "n"),
            c("DECR", "n"),
            c("DECRBY", "n", "3"),
            c("DECRBY", "n", "-1")
        };
        assertThat(read(run)).isEmpty();
        assertThat(backup.lastTxId().seq()).as("TxIds taken: one a run").isEqualTo(4);
        backup.ackAll();
        assertThat(resp.awaitReplies(26)).isEqualTo(":1\r\n:2\r\n:3\r\n:13\r\n:8\r\n:7\r\n:6\r\n:3\r\n:4\r\n");
        assertThat(calls("incr")).isEqualTo(3);
        assertThat(calls("incrby")).isEqualTo(2);
    }

    @Test
    void aRunOfCountersWhereAStepFailsRunsEachAlone() {
        resp.command("SET", "max", Long.toString(Long.MAX_VALUE - 1));
        assertThat(read(times(3, "INCR", "max")))
                .isEqualTo(":" + Long.MAX_VALUE + "\r\n" + "-ERR increment or decrement would overflow\r\n".repeat(2));
        assertThat(read(c("INCRBY", "max", "-1"), c("INCRBY", "max", "x"), c("INCRBY", "max", "-1")))
                .isEqualTo(":" + (Long.MAX_VALUE - 1) + "\r\n-ERR value is not an integer or out of range\r\n:"
                        + (Long.MAX_VALUE - 2) + "\r\n");
        resp.command("SET", "word", "abc");
        assertThat(read(times(2, "DECR", "word")))
                .isEqualTo("-ERR value is not an integer or out of range\r\n".repeat(2));
        resp.command("SADD", "set", "m");
        assertThat(read(times(2, "INCR", "set"))).isEqualTo(WRONGTYPE.repeat(2));
    }

    @Test
    void aRunOnAKeyOfTheWrongTypeAnswersEachCommandWrongtype() {
        resp.command("SET", "str", "x");
        resp.command("SADD", "set", "m");
        assertThat(read(times(3, "SPOP", "str"))).isEqualTo(WRONGTYPE.repeat(3));
        assertThat(read(times(3, "SADD", "str", "m"))).isEqualTo(WRONGTYPE.repeat(3));
        assertThat(read(times(2, "SET", "set", "v"))).isEqualTo("+OK\r\n+OK\r\n");
        assertThat(resp.command("GET", "set")).isEqualTo("$1\r\nv\r\n");
    }

    @Test
    void inATransactionARunIsQueued() {
        String replies = read(c("MULTI"), c("SET", "k", "1"), c("SET", "k", "2"), c("SET", "k", "3"), c("GET", "k"));
        assertThat(replies).isEqualTo("+OK\r\n" + "+QUEUED\r\n".repeat(4));
        assertThat(resp.store.get("k".getBytes(StandardCharsets.US_ASCII)))
                .as("nothing written before EXEC")
                .isNull();
        assertThat(resp.command("EXEC")).isEqualTo("*4\r\n+OK\r\n+OK\r\n+OK\r\n$1\r\n3\r\n");
    }

    @Test
    void clientReplySkipDropsTheReplyOfTheFirstCommandOfARunOnly() {
        String replies = read(c("CLIENT", "REPLY", "SKIP"), c("SET", "k", "1"), c("SET", "k", "2"), c("SET", "k", "3"));
        assertThat(replies).isEqualTo("+OK\r\n+OK\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo("$1\r\n3\r\n");
    }

    @Test
    void withKeyspaceEventsOnEachCommandOfARunPublishesItsOwn() {
        resp.close();
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        KeyEvents keyEvents = new KeyEvents(
                (channel, message) -> events.add(new String(channel, StandardCharsets.ISO_8859_1) + " "
                        + new String(message, StandardCharsets.ISO_8859_1)),
                EventClasses.parse("E$s"));
        resp = RespChannel.withEvents(
                NodeConfig.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(64L << 20)
                                .build())
                        .build(),
                Clock.systemUTC(),
                keyEvents);
        read(times(3, "SET", "k", "v"));
        read(times(2, "SADD", "s", "a"));
        assertThat(events)
                .containsExactly(
                        "__keyevent@0__:set k",
                        "__keyevent@0__:set k",
                        "__keyevent@0__:set k",
                        "__keyevent@0__:sadd s");
    }

    private List<String> members() {
        String[] lines = resp.command("SMEMBERS", "s").split("\r\n");
        List<String> out = new ArrayList<>();
        for (int i = 2; i < lines.length; i += 2) out.add(lines[i]);
        return out;
    }

    /** The {@code calls} of {@code command} in {@code INFO commandstats}. */
    private long calls(String command) {
        Matcher m =
                Pattern.compile("cmdstat_" + command + ":calls=(\\d+),").matcher(resp.command("INFO", "commandstats"));
        assertThat(m.find()).as("cmdstat_%s", command).isTrue();
        return Long.parseLong(m.group(1));
    }
}
