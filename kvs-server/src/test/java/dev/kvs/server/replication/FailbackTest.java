package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.FailoverConfig.ReadPolicy;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.wan.WanLink;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Failback and planned switchover between two nodes that each know the other as their peer, with a
 * {@link WanLink} each way: the deposed primary hands back the values the new primary fenced, rolls
 * back what the backup never acknowledged, and then serves as the backup.
 */
class FailbackTest {

    /** Node A (first primary) and B (first backup); {@code toB} carries A's replication, {@code toA} B's. */
    private static final class Pair implements AutoCloseable {
        final TwoDc dc;
        final WanLink toB;
        final WanLink toA;
        final KvsNode b;
        final KvsNode a;

        Pair(ReplicationMode mode, long bitsPerSecond, ReplicatorConfig replication, FailoverConfig failover) {
            dc = TwoDc.builder()
                    .names("dc-a", "dc-b")
                    .mode(mode)
                    .replication(replication)
                    .failover(failover)
                    .link(Duration.ofMillis(5), bitsPerSecond)
                    .returnLink(Duration.ofMillis(2))
                    .start();
            toB = dc.link();
            toA = dc.returnLink();
            b = dc.backup();
            a = dc.primary();
        }

        Jedis clientA() {
            return new Jedis("127.0.0.1", a.port(), 30_000);
        }

        Jedis clientB() {
            return new Jedis("127.0.0.1", b.port(), 30_000);
        }

        @Override
        public void close() {
            dc.close();
        }
    }

    private static ReplicatorConfig replication() {
        return ReplicatorConfig.builder()
                .writeTimeout(Duration.ofMillis(500))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(200))
                .chunkBytes(64 * 1024)
                .build();
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Sets up: "whole" replicated, "big" announced but its value still on the wire, then the link cut. */
    private static byte[] cutWithAValueInFlight(Pair dc, Jedis a, Jedis b) {
        assertThat(a.set("whole", "arrived")).isEqualTo("OK");
        await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(b, "whole".getBytes()) != null);
        byte[] big = randomBytes(2 << 20, 3); // 2 s on an 8 Mbit/s link
        assertThat(a.set("big".getBytes(), big)).isEqualTo("OK"); // id-first: its key packet is on B
        dc.toB.cut();
        // a write B never hears of: in id-first its client is told it was not replicated
        assertThatThrownBy(() -> a.set("orphan", "never acknowledged")).hasMessageStartingWith("NOREPLICA");
        return big;
    }

    @Test
    void aBlockedReadIsServedWhenTheLinkHealsAndTheOldPrimaryHandsTheValueBack() throws Exception {
        FailoverConfig failover = new FailoverConfig(ReadPolicy.BLOCK, Duration.ofSeconds(60), Duration.ZERO);
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 8_000_000, replication(), failover);
                Jedis a = dc.clientA();
                Jedis b = dc.clientB();
                Jedis reader = dc.clientB()) {
            byte[] big = cutWithAValueInFlight(dc, a, b);
            assertThat(Admin.post(dc.b.adminPort(), "/promote")).contains("\"epoch\":2", "\"unfinishedCount\":1");
            assertThat(b.get("whole")).isEqualTo("arrived");

            CompletableFuture<byte[]> blocked = CompletableFuture.supplyAsync(() -> reader.get("big".getBytes()));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> JedisAccess.info(b, "kvs_blocked_reads").equals("1"));
            assertThat(blocked).isNotDone();

            dc.toB.heal(); // A redials, learns it is stale, demotes itself and hands "big" back
            assertThat(blocked.get(30, TimeUnit.SECONDS)).isEqualTo(big);
            assertThat(Admin.get(dc.b.adminPort(), "/lost")).contains("\"lostCount\":0", "\"unfinishedCount\":0");

            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(Admin.get(dc.a.adminPort(), "/failback"))
                            .contains("\"state\":\"done\"", "\"wanted\":1", "\"accepted\":1", "\"rolledBackCount\":1")
                            .contains("\"key\":\"orphan\"", "\"txId\":\"1:3\"", "\"op\":\"put\""));
            assertThat(a.info("replication")).contains("kvs_role:backup", "kvs_epoch:2", "kvs_failback:done");
            assertThat(Admin.get(dc.a.adminPort(), "/status")).contains("\"failback\":\"done\"");
            assertThat(Admin.get(dc.b.adminPort(), "/status"))
                    .contains("\"promoted\":true", "\"lostKeys\":0", "\"blockedReads\":0");

            // A now serves as B's backup: B's writes reach it, and the rolled-back write is gone
            assertThat(b.set("after", "failback")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                List<Object> after = JedisAccess.peek(a, "after".getBytes());
                assertThat(after).isNotNull();
                assertThat((byte[]) after.get(4)).isEqualTo("failback".getBytes());
                assertThat((byte[]) JedisAccess.peek(a, "big".getBytes()).get(4))
                        .isEqualTo(big);
            });
            assertThat(JedisAccess.peek(a, "orphan".getBytes())).isNull();
        }
    }

    @Test
    void aKeyDeclaredLostIsWholeAgainAfterFailbackAndLeavesTheManifest() throws Exception {
        FailoverConfig failover = new FailoverConfig(ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO);
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 8_000_000, replication(), failover);
                Jedis a = dc.clientA();
                Jedis b = dc.clientB()) {
            byte[] big = cutWithAValueInFlight(dc, a, b);
            assertThat(Admin.post(dc.b.adminPort(), "/promote?lost=true")).contains("\"lostCount\":1");
            assertThatThrownBy(() -> b.get("big")).hasMessage("LOST big 1:2");
            assertThat(Admin.get(dc.b.adminPort(), "/lost")).contains("\"key\":\"big\"");

            dc.toB.heal();
            await().atMost(Duration.ofSeconds(30))
                    .ignoreException(redis.clients.jedis.exceptions.JedisDataException.class) // LOST until then
                    .untilAsserted(() -> assertThat(b.get("big".getBytes())).isEqualTo(big));
            assertThat(Admin.get(dc.b.adminPort(), "/lost")).contains("\"lostCount\":0", "\"unfinishedCount\":0");
            assertThat(b.set("big", "writable again")).isEqualTo("OK");
        }
    }

    @Test
    void plannedSwitchoverHandsOverWithNothingUnfinishedAndTheOldPrimaryBecomesTheBackup() throws Exception {
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 50_000_000, replication(), FailoverConfig.defaults());
                Jedis a = dc.clientA();
                Jedis b = dc.clientB()) {
            byte[] big = randomBytes(1 << 20, 5);
            for (int i = 0; i < 50; i++) assertThat(a.set("k" + i, "v" + i)).isEqualTo("OK");
            assertThat(a.set("big".getBytes(), big)).isEqualTo("OK");

            // a slow link makes a gap between the old primary's demotion and the new one's promotion visible;
            // slowed once the values are across (a sudden 20x delay would hold the flow control at its minimum)
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() ->
                            assertThat(Admin.get(dc.a.adminPort(), "/status")).contains("\"pendingValues\":0"));
            dc.toB.delay(Duration.ofMillis(100));
            String answer = Admin.post(dc.a.adminPort(), "/switchover?timeoutMs=30000");
            assertThat(answer).contains("\"epoch\":2", "\"handedOverUpTo\":\"1:51\"");
            assertThatThrownBy(() -> a.set("k0", "late")).hasMessageStartingWith("NOTPRIMARY");
            // no moment without a primary: the old one demoted itself only once the new one had taken over
            assertThat(b.info("replication")).contains("kvs_role:primary");
            assertThat(Admin.get(dc.b.adminPort(), "/lost")).contains("\"lostCount\":0", "\"unfinishedCount\":0");
            for (int i = 0; i < 50; i++) assertThat(b.get("k" + i)).isEqualTo("v" + i);
            assertThat(b.get("big".getBytes())).isEqualTo(big);

            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(Admin.get(dc.a.adminPort(), "/failback"))
                            .contains("\"state\":\"done\"", "\"rolledBackCount\":0"));
            assertThat(b.set("after", "switchover")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() ->
                            assertThat(JedisAccess.peek(a, "after".getBytes())).isNotNull());
        }
    }

    @Test
    void switchoverWithoutABackupIsRefusedAndWritesGoOn() throws Exception {
        try (KvsNode alone = KvsNode.start(
                        NodeConfig.builder().port(0).adminPort(0).replPort(0).build());
                Jedis j = new Jedis("127.0.0.1", alone.port())) {
            assertThat(Admin.post(alone.adminPort(), "/switchover")).contains("no backup to hand over to");
            assertThat(Admin.post(alone.adminPort(), "/switchover?timeoutMs=x")).contains("timeoutMs is not a number");
            assertThat(j.set("k", "v")).isEqualTo("OK");
        }
    }

    @Test
    void automaticPromotionOnlyWhenConfiguredAfterTheLinkStaysDown() throws Exception {
        FailoverConfig auto =
                new FailoverConfig(ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO, Duration.ofMillis(300));
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 0, replication(), auto);
                Jedis a = dc.clientA();
                Jedis b = dc.clientB()) {
            assertThat(a.set("k", "v")).isEqualTo("OK");
            assertThat(b.info("replication")).contains("kvs_role:backup");
            // id-first acknowledged the key; the value may still be in flight: let it land, or k is
            // rightly UNFINISHED after the promotion (that case is the loss manifest's, tested above)
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                List<Object> k = JedisAccess.peek(b, "k".getBytes());
                assertThat(k).isNotNull();
                assertThat(new String((byte[]) k.get(0))).isEqualTo("complete");
            });
            dc.toB.cut();
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(b.info("replication")).contains("kvs_role:primary", "kvs_epoch:2"));
            assertThat(b.get("k")).isEqualTo("v");
        }
    }

    @Test
    void aPromotedPrimaryReplicatesToAWipedOldPrimaryRestartedAsABackupWhenTold() throws Exception {
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 0, replication(), FailoverConfig.defaults());
                Jedis a = dc.clientA();
                Jedis b = dc.clientB()) {
            assertThat(a.set("k", "v")).isEqualTo("OK");
            // id-first acknowledged the key packet; wait for the value too, or k is lost with dc-a and
            // never reaches the new backup (that case is the loss manifest's, tested above)
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                List<Object> k = JedisAccess.peek(b, "k".getBytes());
                assertThat(k).isNotNull();
                assertThat(new String((byte[]) k.get(0))).isEqualTo("complete");
            });
            NodeConfig old = dc.a.config();
            dc.a.close(); // the main DC is lost with its data
            dc.toB.cut();
            assertThat(Admin.post(dc.b.adminPort(), "/promote?lost=true")).contains("\"epoch\":2");
            assertThat(b.set("while-alone", "1")).isEqualTo("OK"); // no backup: answered at once
            try (KvsNode fresh = KvsNode.start(old.toBuilder().role(Role.BACKUP).build());
                    Jedis f = new Jedis("127.0.0.1", fresh.port(), 30_000)) {
                assertThat(Admin.post(dc.b.adminPort(), "/replicate")).contains("\"peer\"");
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThat(b.info("replication")).contains("kvs_link_state:streaming"));
                assertThat(b.set("after", "attach")).isEqualTo("OK"); // id-first: the new backup acked it
                for (String key : List.of("k", "while-alone", "after")) {
                    await().atMost(Duration.ofSeconds(20))
                            .untilAsserted(() -> assertThat(JedisAccess.peek(f, key.getBytes()))
                                    .isNotNull());
                }
            }
            assertThat(Admin.post(dc.b.adminPort(), "/replicate")).contains("\"link\"");
        }
    }

    @Test
    void replicateIsRefusedOnABackup() throws Exception {
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 0, replication(), FailoverConfig.defaults())) {
            assertThat(Admin.post(dc.b.adminPort(), "/replicate")).contains("replicate needs the primary");
        }
    }

    @Test
    void anOperatorCanTellADeposedPrimaryItsSuccessorsEpoch() throws Exception {
        try (Pair dc = new Pair(ReplicationMode.ID_FIRST, 0, replication(), FailoverConfig.defaults());
                Jedis a = dc.clientA()) {
            assertThat(Admin.post(dc.a.adminPort(), "/demote?epoch=1")).contains("not newer");
            assertThat(Admin.post(dc.a.adminPort(), "/demote")).contains("demote needs epoch=N");
            assertThat(Admin.post(dc.a.adminPort(), "/demote?epoch=7")).contains("\"role\":\"backup\"", "\"epoch\":7");
            assertThatThrownBy(() -> a.set("k", "v")).hasMessageStartingWith("NOTPRIMARY");
        }
    }
}
