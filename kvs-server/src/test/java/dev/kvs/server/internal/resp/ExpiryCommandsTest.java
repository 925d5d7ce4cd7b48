package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.ExpiryConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.TestClock;
import dev.kvs.server.internal.expiry.ActiveExpiry;
import dev.kvs.server.internal.notify.KeyEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The expiry commands over RESP with Redis 7's replies and error words, on a clock that only moves
 * when the test says so.
 */
class ExpiryCommandsTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final String NIL = "$-1\r\n";
    private static final String OK = "+OK\r\n";
    private static final String SYNTAX = "-ERR syntax error\r\n";
    private static final String NOT_INTEGER = "-ERR value is not an integer or out of range\r\n";

    private final TestClock clock = TestClock.fixedAt(T0);
    private final RespChannel resp = new RespChannel(
            NodeConfig.builder()
                    .store(StoreConfig.builder()
                            .maxEntries(10_000)
                            .maxBytes(64L << 20)
                            .build())
                    .build(),
            null,
            null,
            false,
            clock);

    @AfterEach
    void close() {
        resp.close();
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    private static String integer(long n) {
        return ":" + n + "\r\n";
    }

    private static String invalidExpire(String command) {
        return "-ERR invalid expire time in '" + command + "' command\r\n";
    }

    private String cmd(String... args) {
        return resp.command(args);
    }

    @Test
    void setExIsVisibleThroughItsLastMillisecondAndAbsentAfter() {
        assertThat(cmd("SET", "k", "v", "EX", "100")).isEqualTo(OK);
        assertThat(cmd("TTL", "k")).isEqualTo(integer(100));
        assertThat(cmd("PTTL", "k")).isEqualTo(integer(100_000));
        assertThat(cmd("EXPIRETIME", "k")).isEqualTo(integer(T0 / 1000 + 100));
        assertThat(cmd("PEXPIRETIME", "k")).isEqualTo(integer(T0 + 100_000));
        // the record carries the absolute time, as the backup receives it
        assertThat(resp.store.get(b("k")).expireAtMillis()).isEqualTo(T0 + 100_000);

        clock.advance(Duration.ofMillis(100_000));
        assertThat(cmd("GET", "k")).isEqualTo(bulk("v"));
        assertThat(cmd("PTTL", "k")).isEqualTo(integer(0));

        clock.advance(Duration.ofMillis(1));
        assertThat(cmd("GET", "k")).isEqualTo(NIL);
        assertThat(cmd("TTL", "k")).isEqualTo(integer(-2));
        assertThat(cmd("PTTL", "k")).isEqualTo(integer(-2));
        assertThat(cmd("EXPIRETIME", "k")).isEqualTo(integer(-2));
        assertThat(cmd("EXISTS", "k")).isEqualTo(integer(0));
        assertThat(cmd("STRLEN", "k")).isEqualTo(integer(0));
        assertThat(cmd("TYPE", "k")).isEqualTo("+none\r\n");
        assertThat(cmd("MGET", "k")).isEqualTo("*1\r\n" + NIL);
        assertThat(cmd("GETRANGE", "k", "0", "-1")).isEqualTo(bulk(""));
        assertThat(cmd("DEL", "k")).isEqualTo(integer(0));
        assertThat(cmd("DBSIZE")).isEqualTo(integer(1)); // until active expiry removes it, as in Redis
    }

    @Test
    void setOptionsPxExatPxatKeepttlAndNxXxGet() {
        assertThat(cmd("SET", "k", "v", "PX", "1500")).isEqualTo(OK);
        assertThat(cmd("TTL", "k")).isEqualTo(integer(2)); // Redis rounds to the nearest second
        assertThat(cmd("SET", "k", "v2", "KEEPTTL")).isEqualTo(OK);
        assertThat(cmd("PTTL", "k")).isEqualTo(integer(1500));
        assertThat(cmd("GET", "k")).isEqualTo(bulk("v2"));
        assertThat(cmd("SET", "k", "v3")).isEqualTo(OK);
        assertThat(cmd("TTL", "k")).isEqualTo(integer(-1)); // SET without KEEPTTL clears it
        assertThat(cmd("SET", "k", "v", "exat", Long.toString(T0 / 1000 + 50))).isEqualTo(OK);
        assertThat(cmd("EXPIRETIME", "k")).isEqualTo(integer(T0 / 1000 + 50));
        assertThat(cmd("SET", "k", "v", "PXAT", Long.toString(T0 + 1234))).isEqualTo(OK);
        assertThat(cmd("PEXPIRETIME", "k")).isEqualTo(integer(T0 + 1234));
        assertThat(cmd("SET", "k", "v", "PXAT", Long.toString(Long.MAX_VALUE))).isEqualTo(OK);

        assertThat(cmd("SET", "k", "x", "NX", "EX", "10")).isEqualTo(NIL);
        assertThat(cmd("SET", "n", "x", "XX", "EX", "10")).isEqualTo(NIL);
        assertThat(cmd("EXISTS", "n")).isEqualTo(integer(0));
        assertThat(cmd("SET", "n", "x", "NX", "EX", "10")).isEqualTo(OK);
        assertThat(cmd("TTL", "n")).isEqualTo(integer(10));
        assertThat(cmd("SET", "n", "y", "XX", "KEEPTTL")).isEqualTo(OK);
        assertThat(cmd("TTL", "n")).isEqualTo(integer(10));

        assertThat(cmd("SET", "k", "new", "GET", "EX", "10")).isEqualTo(bulk("v"));
        assertThat(cmd("TTL", "k")).isEqualTo(integer(10));
        assertThat(cmd("SET", "fresh", "x", "NX", "GET")).isEqualTo(NIL);
        assertThat(cmd("GET", "fresh")).isEqualTo(bulk("x"));
        assertThat(cmd("SET", "k", "y", "NX", "GET")).isEqualTo(bulk("new")); // not set: the old value
        assertThat(cmd("GET", "k")).isEqualTo(bulk("new"));
        assertThat(cmd("SET", "k", "v", "EX", "10", "EX", "20")).isEqualTo(OK); // Redis: the last one wins
        assertThat(cmd("TTL", "k")).isEqualTo(integer(20));
    }

    @Test
    void setRefusesBadExpiriesAndContradictoryOptionsWithRedisWords() {
        assertThat(cmd("SET", "k", "v", "EX", "0")).isEqualTo(invalidExpire("set"));
        assertThat(cmd("SET", "k", "v", "PX", "-1")).isEqualTo(invalidExpire("set"));
        assertThat(cmd("SET", "k", "v", "EXAT", "0")).isEqualTo(invalidExpire("set"));
        assertThat(cmd("SET", "k", "v", "EX", Long.toString(Long.MAX_VALUE))).isEqualTo(invalidExpire("set"));
        assertThat(cmd("SET", "k", "v", "PX", Long.toString(Long.MAX_VALUE - 1)))
                .isEqualTo(invalidExpire("set"));
        assertThat(cmd("SET", "k", "v", "PX", "abc")).isEqualTo(NOT_INTEGER);
        assertThat(cmd("SET", "k", "v", "EX", "1.5")).isEqualTo(NOT_INTEGER);
        assertThat(cmd("SET", "k", "v", "EX", "10", "PX", "10")).isEqualTo(SYNTAX);
        assertThat(cmd("SET", "k", "v", "EX", "10", "KEEPTTL")).isEqualTo(SYNTAX);
        assertThat(cmd("SET", "k", "v", "KEEPTTL", "PXAT", "10")).isEqualTo(SYNTAX);
        assertThat(cmd("SET", "k", "v", "EX")).isEqualTo(SYNTAX);
        assertThat(cmd("SET", "k", "v", "NX", "XX")).isEqualTo(SYNTAX);
        assertThat(cmd("SET", "k", "v", "PERSIST")).isEqualTo(SYNTAX);
        assertThat(cmd("SET", "k", "v", "FOO")).isEqualTo(SYNTAX);
        assertThat(cmd("EXISTS", "k")).isEqualTo(integer(0)); // nothing was written

        assertThat(cmd("SETEX", "k", "0", "v")).isEqualTo(invalidExpire("setex"));
        assertThat(cmd("SETEX", "k", "x", "v")).isEqualTo(NOT_INTEGER);
        assertThat(cmd("PSETEX", "k", "-5", "v")).isEqualTo(invalidExpire("psetex"));
        assertThat(cmd("SETEX", "k", "10")).isEqualTo("-ERR wrong number of arguments for 'setex' command\r\n");
        assertThat(cmd("SETEX", "k", "10", "v")).isEqualTo(OK);
        assertThat(cmd("TTL", "k")).isEqualTo(integer(10));
        assertThat(cmd("PSETEX", "k", "1500", "w")).isEqualTo(OK);
        assertThat(cmd("PTTL", "k")).isEqualTo(integer(1500));
        assertThat(cmd("GET", "k")).isEqualTo(bulk("w"));
    }

    @Test
    void getexReadsAndSetsOrRemovesTheExpiry() {
        cmd("SET", "g", "v");
        assertThat(cmd("GETEX", "g")).isEqualTo(bulk("v"));
        assertThat(cmd("TTL", "g")).isEqualTo(integer(-1));
        assertThat(cmd("GETEX", "g", "EX", "100")).isEqualTo(bulk("v"));
        assertThat(cmd("TTL", "g")).isEqualTo(integer(100));
        assertThat(cmd("GETEX", "g", "PXAT", Long.toString(T0 + 5000))).isEqualTo(bulk("v"));
        assertThat(cmd("PTTL", "g")).isEqualTo(integer(5000));
        assertThat(cmd("GETEX", "g", "PERSIST")).isEqualTo(bulk("v"));
        assertThat(cmd("TTL", "g")).isEqualTo(integer(-1));
        assertThat(cmd("GETEX", "g", "PX", "0")).isEqualTo(invalidExpire("getex"));
        assertThat(cmd("GETEX", "g", "EX", "x")).isEqualTo(NOT_INTEGER);
        assertThat(cmd("GETEX", "g", "EX", "10", "PERSIST")).isEqualTo(SYNTAX);
        assertThat(cmd("GETEX", "g", "KEEPTTL")).isEqualTo(SYNTAX);
        assertThat(cmd("GETEX", "g", "EX")).isEqualTo(SYNTAX);
        assertThat(cmd("GETEX", "missing", "EX", "10")).isEqualTo(NIL);
        assertThat(cmd("EXISTS", "missing")).isEqualTo(integer(0));
        // an absolute time already past: the value is returned and the key deleted
        assertThat(cmd("GETEX", "g", "EXAT", Long.toString(T0 / 1000 - 1))).isEqualTo(bulk("v"));
        assertThat(cmd("GET", "g")).isEqualTo(NIL);
        assertThat(resp.store.get(b("g"))).isNull();
    }

    @Test
    void expireFamilyWithNxXxGtLt() {
        assertThat(cmd("EXPIRE", "missing", "10")).isEqualTo(integer(0));
        cmd("SET", "e", "v");
        assertThat(cmd("EXPIRE", "e", "100")).isEqualTo(integer(1));
        assertThat(cmd("TTL", "e")).isEqualTo(integer(100));
        assertThat(cmd("EXPIRE", "e", "50", "NX")).isEqualTo(integer(0));
        assertThat(cmd("EXPIRE", "e", "200", "XX")).isEqualTo(integer(1));
        assertThat(cmd("EXPIRE", "e", "100", "GT")).isEqualTo(integer(0));
        assertThat(cmd("EXPIRE", "e", "300", "gt")).isEqualTo(integer(1));
        assertThat(cmd("EXPIRE", "e", "400", "LT")).isEqualTo(integer(0));
        assertThat(cmd("EXPIRE", "e", "10", "LT")).isEqualTo(integer(1));
        assertThat(cmd("TTL", "e")).isEqualTo(integer(10));
        assertThat(cmd("GET", "e")).isEqualTo(bulk("v"));

        cmd("SET", "f", "v"); // no TTL counts as an infinite one
        assertThat(cmd("EXPIRE", "f", "10", "XX")).isEqualTo(integer(0));
        assertThat(cmd("EXPIRE", "f", "10", "GT")).isEqualTo(integer(0));
        assertThat(cmd("EXPIRE", "f", "10", "LT")).isEqualTo(integer(1));
        assertThat(cmd("EXPIRE", "f", "20", "NX")).isEqualTo(integer(0));
        assertThat(cmd("PERSIST", "f")).isEqualTo(integer(1));
        assertThat(cmd("PERSIST", "f")).isEqualTo(integer(0));
        assertThat(cmd("PERSIST", "missing")).isEqualTo(integer(0));
        assertThat(cmd("TTL", "f")).isEqualTo(integer(-1));
        assertThat(cmd("EXPIRETIME", "f")).isEqualTo(integer(-1));
        assertThat(cmd("PEXPIRETIME", "f")).isEqualTo(integer(-1));

        assertThat(cmd("PEXPIRE", "e", "1500")).isEqualTo(integer(1));
        assertThat(cmd("PTTL", "e")).isEqualTo(integer(1500));
        assertThat(cmd("EXPIREAT", "e", Long.toString(T0 / 1000 + 30))).isEqualTo(integer(1));
        assertThat(cmd("EXPIRETIME", "e")).isEqualTo(integer(T0 / 1000 + 30));
        assertThat(cmd("PEXPIREAT", "e", Long.toString(T0 + 777))).isEqualTo(integer(1));
        assertThat(cmd("PEXPIRETIME", "e")).isEqualTo(integer(T0 + 777));
        assertThat(resp.store.get(b("e")).value()).isEqualTo(b("v")); // the value is kept

        // a time in the past deletes the key (a replicated delete)
        assertThat(cmd("EXPIRE", "e", "-1")).isEqualTo(integer(1));
        assertThat(cmd("GET", "e")).isEqualTo(NIL);
        assertThat(resp.store.get(b("e"))).isNull();
        cmd("SET", "p", "v");
        assertThat(cmd("PEXPIREAT", "p", Long.toString(T0))).isEqualTo(integer(1));
        assertThat(cmd("EXISTS", "p")).isEqualTo(integer(0));
    }

    @Test
    void expireRefusesBadInputWithRedisWords() {
        cmd("SET", "e", "v");
        assertThat(cmd("EXPIRE", "e", "abc")).isEqualTo(NOT_INTEGER);
        assertThat(cmd("EXPIRE", "e", "10", "NX", "XX"))
                .isEqualTo("-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
        assertThat(cmd("EXPIRE", "e", "10", "NX", "GT"))
                .isEqualTo("-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
        assertThat(cmd("EXPIRE", "e", "10", "GT", "LT"))
                .isEqualTo("-ERR GT and LT options at the same time are not compatible\r\n");
        assertThat(cmd("EXPIRE", "e", "10", "FOO")).isEqualTo("-ERR Unsupported option FOO\r\n");
        assertThat(cmd("EXPIRE", "e", Long.toString(Long.MAX_VALUE))).isEqualTo(invalidExpire("expire"));
        assertThat(cmd("PEXPIRE", "e", Long.toString(Long.MAX_VALUE))).isEqualTo(invalidExpire("pexpire"));
        assertThat(cmd("EXPIREAT", "e", Long.toString(Long.MIN_VALUE))).isEqualTo(invalidExpire("expireat"));
        assertThat(cmd("EXPIRE", "e")).isEqualTo("-ERR wrong number of arguments for 'expire' command\r\n");
        assertThat(cmd("TTL", "e", "x")).isEqualTo("-ERR wrong number of arguments for 'ttl' command\r\n");
        assertThat(cmd("TTL", "e")).isEqualTo(integer(-1)); // nothing changed
    }

    @Test
    void otherWritesKeepOrClearTheTtlAsRedisDoes() {
        cmd("SET", "c", "10", "EX", "100");
        assertThat(cmd("INCR", "c")).isEqualTo(integer(11));
        assertThat(cmd("INCRBY", "c", "4")).isEqualTo(integer(15));
        assertThat(cmd("TTL", "c")).isEqualTo(integer(100));
        cmd("SET", "f", "1.5", "EX", "100");
        assertThat(cmd("INCRBYFLOAT", "f", "1")).isEqualTo(bulk("2.5"));
        assertThat(cmd("TTL", "f")).isEqualTo(integer(100));
        cmd("SET", "a", "x", "EX", "100");
        assertThat(cmd("APPEND", "a", "y")).isEqualTo(integer(2));
        assertThat(cmd("SETRANGE", "a", "0", "z")).isEqualTo(integer(2));
        assertThat(cmd("TTL", "a")).isEqualTo(integer(100));
        assertThat(cmd("GETSET", "a", "w")).isEqualTo(bulk("zy"));
        assertThat(cmd("TTL", "a")).isEqualTo(integer(-1));
        cmd("SET", "m", "1", "EX", "100");
        assertThat(cmd("MSET", "m", "2")).isEqualTo(OK);
        assertThat(cmd("TTL", "m")).isEqualTo(integer(-1));

        // once expired, a key is absent to every write as well
        cmd("SET", "x", "5", "EX", "1");
        cmd("SET", "y", "5", "EX", "1");
        clock.advance(Duration.ofMillis(1001));
        assertThat(cmd("INCR", "x")).isEqualTo(integer(1));
        assertThat(cmd("TTL", "x")).isEqualTo(integer(-1));
        assertThat(cmd("SETNX", "y", "new")).isEqualTo(integer(1));
        assertThat(cmd("GET", "y")).isEqualTo(bulk("new"));
        assertThat(cmd("TTL", "y")).isEqualTo(integer(-1));
    }

    @Test
    void activeExpiryRemovesExpiredKeysInBoundedRoundsAsReplicatedDeletes() {
        for (int i = 0; i < 5; i++) cmd("SET", "t" + i, "v", "PX", Integer.toString(1000 + i));
        cmd("SET", "forever", "v");
        cmd("SET", "later", "v", "EX", "60");
        ActiveExpiry expiry = new ActiveExpiry(
                resp.node.store(),
                resp.node.roles(),
                resp.node.writes(),
                resp.node.mode(),
                resp.node.expiredKeys(),
                new ExpiryConfig(Duration.ofMillis(100), 2),
                KeyEvents.off());
        assertThat(expiry.round()).isZero(); // nothing due yet
        long before = resp.commands.roles().current().lastTxId().seq();

        clock.advance(Duration.ofMillis(1005));
        assertThat(cmd("DBSIZE")).isEqualTo(integer(7));
        assertThat(cmd("INFO", "keyspace")).contains("db0:keys=7,expires=6,avg_ttl=0");
        assertThat(expiry.round()).isEqualTo(2);
        assertThat(expiry.round()).isEqualTo(2);
        assertThat(expiry.round()).isEqualTo(1);
        assertThat(expiry.round()).isZero();
        assertThat(expiry.expiredKeys()).isEqualTo(5);
        assertThat(cmd("DBSIZE")).isEqualTo(integer(2));
        assertThat(cmd("INFO", "stats")).contains("expired_keys:5\r\n");
        assertThat(cmd("INFO", "keyspace")).contains("db0:keys=2,expires=1,avg_ttl=0");
        for (int i = 0; i < 5; i++) assertThat(resp.store.get(b("t" + i))).isNull();
        // each removal was ordered as a write of its own
        assertThat(resp.commands.roles().current().lastTxId().seq()).isEqualTo(before + 5);
        assertThat(cmd("GET", "later")).isEqualTo(bulk("v"));
        assertThat(cmd("GET", "forever")).isEqualTo(bulk("v"));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
