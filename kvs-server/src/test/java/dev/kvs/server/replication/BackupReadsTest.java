package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.FailoverConfig.ReadPolicy;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Reads on a backup (READONLY/READWRITE, as Redis Cluster): complete keys are served, a key whose key
 * packet arrived but whose value did not is fenced as after a promotion, writes stay refused, and
 * {@code -NOTPRIMARY} names the primary's client address from the replication handshake.
 */
class BackupReadsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** 2 Mbit/s: a 2 MiB value needs 8 s on the wire, so it is still in flight when the link is cut. */
    private static TwoDc twoDc(ReadPolicy policy, Duration blockTimeout) {
        return TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(2), 2_000_000)
                .replication(TwoDc.replication().build())
                .failover(new FailoverConfig(policy, blockTimeout, Duration.ZERO))
                .start();
    }

    private static byte[] bigValue() {
        byte[] big = new byte[2 << 20];
        new Random(7).nextBytes(big);
        return big;
    }

    /** Waits until the backup {@code bk} holds {@code key}'s value ({@code KVS.PEEK} says complete). */
    private static void awaitComplete(Jedis bk, String key) {
        await().atMost(WAIT).until(() -> {
            List<Object> peek = JedisAccess.peek(bk, key.getBytes());
            return peek != null && "complete".equals(new String((byte[]) peek.get(0)));
        });
    }

    private static Object readonly(Jedis j) {
        return j.sendCommand(() -> "READONLY".getBytes());
    }

    @Test
    void aReadonlyConnectionReadsCompleteKeysAndIsRefusedUnfinishedOnesAndWrites() {
        try (TwoDc dc = twoDc(ReadPolicy.REJECT, Duration.ZERO);
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            String primary = "127.0.0.1:" + dc.primary().port();
            assertThat(p.set("whole", "arrived")).isEqualTo("OK");
            assertThat(p.set("n", "12345")).isEqualTo("OK");
            awaitComplete(bk, "n");
            await().atMost(WAIT).until(() -> JedisAccess.info(bk, "master_host").equals("127.0.0.1"));
            assertThat(JedisAccess.info(bk, "master_port"))
                    .isEqualTo(Integer.toString(dc.primary().port()));
            assertThat(JedisAccess.info(bk, "master_link_status")).isEqualTo("up");
            assertThat(JedisAccess.info(bk, "kvs_link_state")).isEqualTo("streaming");

            // without READONLY a backup refuses reads, naming the primary's client address
            assertThatThrownBy(() -> bk.get("whole"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage(
                            "NOTPRIMARY " + primary
                                    + " this node is a backup; read from the primary, or send READONLY to read from the backup");

            assertThat(readonly(bk)).isEqualTo("OK".getBytes());
            assertThat(bk.get("whole")).isEqualTo("arrived");
            assertThat(bk.mget("whole", "n", "nope")).containsExactly("arrived", "12345", null);
            assertThat(bk.exists("whole", "n", "nope")).isEqualTo(2);
            assertThat(bk.strlen("n")).isEqualTo(5);
            assertThat(bk.getrange("n", 1, 2)).isEqualTo("23");
            assertThat(bk.type("whole")).isEqualTo("string");
            assertThat(bk.get("nope")).isNull();
            assertThatThrownBy(() -> bk.set("whole", "x"))
                    .hasMessage("NOTPRIMARY " + primary + " this node is a backup; write to the primary");
            assertThatThrownBy(() -> bk.incr("n")).hasMessageStartingWith("NOTPRIMARY " + primary);

            // id-first: the SET is answered once its key packet is on the backup; its value never arrives
            byte[] big = bigValue();
            assertThat(p.set("big".getBytes(), big)).isEqualTo("OK");
            dc.link().cut();
            String unfinished = "UNFINISHED big 1:3";
            assertThatThrownBy(() -> bk.get("big")).hasMessage(unfinished);
            assertThatThrownBy(() -> bk.strlen("big")).hasMessage(unfinished);
            assertThatThrownBy(() -> bk.mget("whole", "big")).hasMessage(unfinished);
            assertThatThrownBy(() -> bk.exists("big")).hasMessage(unfinished);
            assertThat(bk.get("whole")).as("complete keys are still served").isEqualTo("arrived");
            await().atMost(WAIT)
                    .until(() -> JedisAccess.info(bk, "master_link_status").equals("down"));
            assertThat(JedisAccess.info(bk, "kvs_link_state")).isEqualTo("down");
            assertThat(JedisAccess.info(bk, "master_host"))
                    .as("the primary's address is kept after its link drops")
                    .isEqualTo("127.0.0.1");

            assertThat(bk.sendCommand(() -> "READWRITE".getBytes())).isEqualTo("OK".getBytes());
            assertThatThrownBy(() -> bk.get("whole")).hasMessageStartingWith("NOTPRIMARY " + primary + " ");
            // the primary accepts READONLY/READWRITE too (no-ops there)
            assertThat(readonly(p)).isEqualTo("OK".getBytes());
            assertThat(p.get("whole")).isEqualTo("arrived");
        }
    }

    @Test
    void withTheBlockPolicyAReadOfAnUnfinishedKeyWaitsForItsValue() throws Exception {
        try (TwoDc dc = twoDc(ReadPolicy.BLOCK, Duration.ofSeconds(60));
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc);
                Jedis bk2 = JedisAccess.backup(dc)) {
            assertThat(p.set("old", "v1")).isEqualTo("OK");
            await().atMost(WAIT).until(() -> JedisAccess.peek(bk, "old".getBytes()) != null);
            byte[] big = bigValue();
            assertThat(p.set("old".getBytes(), big)).isEqualTo("OK"); // key packet on the backup, value not
            dc.link().cut();
            assertThat(readonly(bk)).isEqualTo("OK".getBytes());
            CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> bk.get("old".getBytes()));
            await().atMost(WAIT)
                    .until(() -> JedisAccess.info(bk2, "kvs_blocked_reads").equals("1"));
            assertThat(read).as("never the older value v1").isNotDone();

            dc.link().bandwidthBitsPerSecond(0); // unlimited
            dc.link().heal(); // the primary reconnects and sends the value again
            assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(big);
            assertThat(JedisAccess.info(bk2, "kvs_blocked_reads")).isEqualTo("0");
        }
    }

    /**
     * A script runs with the barrier held alone, and a backup applies an EXEC's unit inside the barrier:
     * a script that waited, inside, for a key of such a unit waited for itself (the node hung). It waits
     * for its declared keys before it starts instead.
     */
    @Test
    void aScriptWaitsForItsDeclaredKeysValuesBeforeItStarts() throws Exception {
        try (TwoDc dc = twoDc(ReadPolicy.BLOCK, Duration.ofSeconds(60));
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc);
                Jedis bk2 = JedisAccess.backup(dc)) {
            byte[] big = unitInFlight(dc, p);
            assertThat(readonly(bk)).isEqualTo("OK".getBytes());
            CompletableFuture<Object> read = CompletableFuture.supplyAsync(() -> bk.evalReadonly(
                    "return redis.call('GET', KEYS[1])".getBytes(), List.of("big".getBytes()), List.of()));
            await().atMost(WAIT)
                    .until(() -> JedisAccess.info(bk2, "kvs_blocked_reads").equals("1"));
            assertThat(read).as("the unit's value has not arrived").isNotDone();

            dc.link().bandwidthBitsPerSecond(0);
            dc.link().heal(); // the primary reconnects and sends the unit's values again
            assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(big);
            assertThat(bk.get("other")).isEqualTo("x");
        }
    }

    /**
     * A script's read of a fenced key it did not declare is refused at once, as with the {@code reject}
     * policy, inside EXEC too: waiting there, it would hold the barrier that the key's unit, and its own
     * resumption, need.
     */
    @Test
    void aScriptsReadOfAnUndeclaredFencedKeyIsRefusedAtOnce() throws Exception {
        try (TwoDc dc = twoDc(ReadPolicy.BLOCK, Duration.ofSeconds(60));
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] big = unitInFlight(dc, p);
            assertThat(readonly(bk)).isEqualTo("OK".getBytes());
            String unfinished = "UNFINISHED big 1:";
            CompletableFuture<Object> alone = CompletableFuture.supplyAsync(() -> {
                try {
                    return bk.evalReadonly(
                            "return redis.call('GET', ARGV[1])".getBytes(), List.of(), List.of("big".getBytes()));
                } catch (JedisDataException e) {
                    return e.getMessage();
                }
            });
            assertThat(alone.get(WAIT.toSeconds(), TimeUnit.SECONDS)).asString().startsWith(unfinished);
            CompletableFuture<List<Object>> inExec = CompletableFuture.supplyAsync(() -> {
                Transaction t = bk.multi();
                t.evalReadonly("return redis.call('GET', ARGV[1])".getBytes(), List.of(), List.of("big".getBytes()));
                return t.exec();
            });
            List<Object> replies = inExec.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(replies).hasSize(1);
            assertThat(replies.get(0)).isInstanceOf(JedisDataException.class);
            assertThat(((JedisDataException) replies.get(0)).getMessage()).startsWith(unfinished);

            dc.link().bandwidthBitsPerSecond(0);
            dc.link().heal(); // the unit still applies: nothing holds the barrier
            await().atMost(WAIT).until(() -> Arrays.equals(bk.get("big".getBytes()), big));
            assertThat(bk.get("other")).isEqualTo("x");
        }
    }

    /**
     * An EXEC whose read meets a fenced key waits for its reads' values before it runs, then runs them
     * together: it answers one state the primary had. When the read waited alone, inside the EXEC, the
     * other reads ran at once and it ran once its key's newest write had arrived: here, after a later
     * write of another key the EXEC had already read.
     */
    @Test
    void anExecWaitsForItsReadsKeysThenReadsThemTogether() throws Exception {
        try (TwoDc dc = twoDc(ReadPolicy.BLOCK, Duration.ofSeconds(60));
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc);
                Jedis bk2 = JedisAccess.backup(dc)) {
            assertThat(p.set("y", "old")).isEqualTo("OK");
            awaitComplete(bk2, "y");
            Transaction first = p.multi();
            first.set("big".getBytes(), bigValue()); // 8 s on the 2 Mbit/s link
            first.set("other", "x");
            assertThat(first.exec()).containsExactly("OK", "OK");

            assertThat(readonly(bk)).isEqualTo("OK".getBytes());
            CompletableFuture<List<Object>> exec = CompletableFuture.supplyAsync(() -> {
                Transaction t = bk.multi();
                t.get("big");
                t.get("y");
                return t.exec();
            });
            await().atMost(WAIT)
                    .until(() -> !JedisAccess.info(bk2, "kvs_blocked_reads").equals("0"));
            assertThat(p.set("y", "new")).isEqualTo("OK");
            Transaction second = p.multi();
            second.set("big", "small");
            second.set("other", "x2");
            assertThat(second.exec()).containsExactly("OK", "OK");
            assertThat(exec).as("the first unit's value is still on the link").isNotDone();

            dc.link().bandwidthBitsPerSecond(0);
            assertThat(exec.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .as("big and y as the primary had them together")
                    .containsExactly("small", "new");
            assertThat(bk2.info("commandstats"))
                    .as("the two GETs are counted once their reply is read")
                    .contains("cmdstat_get:calls=2,");
        }
    }

    /** An EXEC's unit on the primary (a large value and a small one) whose values stay on the cut link. */
    private static byte[] unitInFlight(TwoDc dc, Jedis p) {
        byte[] big = bigValue();
        Transaction t = p.multi();
        t.set("big".getBytes(), big);
        t.set("other", "x");
        assertThat(t.exec()).containsExactly("OK", "OK"); // the key packets are on the backup
        dc.link().cut();
        return big;
    }

    @Test
    void theBackupNamesTheAdvertisedAddressAndCountsAsReplicaInInfo() {
        KvsNode backup = KvsNode.start(NodeConfig.builder()
                .name("dc-backup")
                .role(Role.BACKUP)
                .port(0)
                .adminPort(0)
                .replPort(0)
                .build());
        try (backup;
                KvsNode primary = KvsNode.start(NodeConfig.builder()
                        .name("dc-main")
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .peer("127.0.0.1:" + backup.replPort())
                        .advertise("kvs-main.example:6390")
                        .build());
                Jedis bk = new Jedis("127.0.0.1", backup.port(), 30_000)) {
            await().atMost(WAIT)
                    .until(() -> JedisAccess.info(bk, "master_link_status").equals("up"));
            assertThatThrownBy(() -> bk.set("k", "v"))
                    .hasMessage("NOTPRIMARY kvs-main.example:6390 this node is a backup; write to the primary");
            assertThat(JedisAccess.info(bk, "master_host")).isEqualTo("kvs-main.example");
            assertThat(JedisAccess.info(bk, "master_port")).isEqualTo("6390");
            @SuppressWarnings("unchecked")
            List<Object> role = (List<Object>) bk.sendCommand(Protocol.Command.ROLE);
            assertThat(new String((byte[]) role.get(0))).isEqualTo("slave");
            assertThat(new String((byte[]) role.get(1))).isEqualTo("kvs-main.example");
            assertThat(role.get(2)).isEqualTo(6390L);
        }
    }

    @Test
    void aBackupThatNeverMetItsPrimaryNamesNone() {
        try (KvsNode backup = KvsNode.start(NodeConfig.builder()
                        .name("dc-backup")
                        .role(Role.BACKUP)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .build());
                Jedis bk = new Jedis("127.0.0.1", backup.port(), 30_000)) {
            assertThatThrownBy(() -> bk.set("k", "v"))
                    .hasMessage("NOTPRIMARY - this node is a backup; write to the primary");
            assertThat(readonly(bk)).isEqualTo("OK".getBytes());
            assertThat(bk.get("k"))
                    .as("a backup that never received anything serves its empty store")
                    .isNull();
            assertThat(JedisAccess.info(bk, "kvs_link_state")).isEqualTo("down");
            assertThat(JedisAccess.info(bk, "master_link_status")).isEqualTo("down");
        }
    }
}
