package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.resp.StructureFixtures.b;
import static dev.kvs.server.internal.resp.StructureFixtures.hset;
import static dev.kvs.server.internal.resp.StructureFixtures.members;
import static dev.kvs.server.internal.resp.StructureFixtures.sadd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.core.ValueType;
import dev.kvs.server.config.ExpiryConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.TestClock;
import dev.kvs.server.internal.expiry.ActiveExpiry;
import dev.kvs.server.internal.notify.KeyEvents;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The expiry commands on hashes and sets: the members stay, only the header's expiry and TxId change;
 * an expiry in the past deletes the key; an expired structure is absent to every command, and active
 * expiry removes it and frees its members.
 */
class ExpiryCommandsOnStructuresTest {
    private static final long T0 = 1_700_000_000_000L;

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

    private String cmd(String... args) {
        return resp.command(args);
    }

    private static String integer(long n) {
        return ":" + n + "\r\n";
    }

    private long seq() {
        return resp.commands.roles().current().lastTxId().seq();
    }

    @Test
    void expireFamilyRewritesTheHeaderAndKeepsTheMembers() {
        hset(resp, "h", "f", "v", "g", "w");
        sadd(resp, "s", "a");
        long before = seq();
        assertThat(cmd("EXPIRE", "h", "100")).isEqualTo(integer(1));
        assertThat(seq()).as("one TxId per change").isEqualTo(before + 1);
        assertThat(resp.store.header(b("h")).txId().seq()).isEqualTo(before + 1);
        assertThat(cmd("TTL", "h")).isEqualTo(integer(100));
        assertThat(cmd("PEXPIRE", "s", "5000", "NX")).isEqualTo(integer(1));
        assertThat(cmd("PEXPIRE", "s", "9000", "NX")).isEqualTo(integer(0));
        assertThat(cmd("PTTL", "s")).isEqualTo(integer(5000));
        assertThat(cmd("EXPIREAT", "h", Long.toString(T0 / 1000 + 50), "LT")).isEqualTo(integer(1));
        assertThat(cmd("EXPIRETIME", "h")).isEqualTo(integer(T0 / 1000 + 50));
        assertThat(cmd("PEXPIREAT", "h", Long.toString(T0 + 10_000), "GT")).isEqualTo(integer(0));
        assertThat(cmd("PEXPIRETIME", "h")).isEqualTo(integer(T0 + 50_000));
        assertThat(cmd("PERSIST", "h")).isEqualTo(integer(1));
        assertThat(cmd("PERSIST", "h")).isEqualTo(integer(0));
        assertThat(cmd("TTL", "h")).isEqualTo(integer(-1));
        assertThat(cmd("TYPE", "h")).isEqualTo("+hash\r\n");
        assertThat(members(resp, "h", ValueType.HASH)).containsExactly("f=v", "g=w");
        assertThat(members(resp, "s", ValueType.SET)).containsExactly("a=");
    }

    @Test
    void anExpiryInThePastDeletesTheStructure() {
        hset(resp, "h", "f", "v");
        assertThat(cmd("EXPIREAT", "h", "1")).isEqualTo(integer(1));
        assertThat(cmd("EXISTS", "h")).isEqualTo(integer(0));
        assertThat(resp.store.header(b("h")) == null || !resp.store.exists(b("h")))
                .isTrue();
        assertThat(resp.store.stats().valueBytes()).isZero();
    }

    @Test
    void anExpiredStructureIsAbsentAndActiveExpiryFreesIt() {
        hset(resp, "h", "f", "v");
        sadd(resp, "s", "a");
        cmd("PEXPIRE", "h", "1000");
        cmd("PEXPIRE", "s", "1000");
        clock.advance(Duration.ofMillis(1001));
        assertThat(cmd("TYPE", "h")).isEqualTo("+none\r\n");
        assertThat(cmd("EXISTS", "h", "s")).isEqualTo(integer(0));
        assertThat(cmd("TTL", "h")).isEqualTo(integer(-2));
        assertThat(cmd("GET", "h")).as("absent, not WRONGTYPE").isEqualTo("$-1\r\n");
        assertThat(cmd("EXPIRE", "h", "100")).isEqualTo(integer(0));
        assertThat(cmd("RENAME", "h", "x")).isEqualTo("-ERR no such key\r\n");
        assertThat(cmd("OBJECT", "ENCODING", "h")).isEqualTo("$-1\r\n");
        ActiveExpiry expiry = new ActiveExpiry(
                resp.node.store(),
                resp.node.roles(),
                resp.node.writes(),
                resp.node.mode(),
                resp.node.expiredKeys(),
                new ExpiryConfig(Duration.ofMillis(100), 10),
                KeyEvents.off());
        assertThat(expiry.round()).isEqualTo(2);
        assertThat(cmd("DBSIZE")).isEqualTo(integer(0));
        assertThat(resp.store.stats().valueBytes()).as("members freed").isZero();
        sadd(resp, "h", "new"); // a write to the key starts from nothing
        assertThat(cmd("TYPE", "h")).isEqualTo("+set\r\n");
    }
}
