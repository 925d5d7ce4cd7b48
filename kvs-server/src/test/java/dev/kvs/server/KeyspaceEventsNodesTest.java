package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * Keyspace notifications on a pair: events are published on the node where a command changes a key. A
 * backup publishes none for the writes replication applies (its subscribers would otherwise hear each
 * write twice across the two datacenters, and a failover would repeat them); once promoted, it publishes
 * the events of the commands it runs.
 */
class KeyspaceEventsNodesTest {
    private static final String MARKER = "marker";

    /** Everything a subscriber of every keyspace and keyevent channel, and of {@link #MARKER}, hears. */
    private static final class Listener extends JedisPubSub {
        final BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        final CountDownLatch psubscribed = new CountDownLatch(1);
        final CountDownLatch subscribed = new CountDownLatch(1);

        @Override
        public void onPMessage(String pattern, String channel, String message) {
            heard.add(channel + " " + message);
        }

        @Override
        public void onMessage(String channel, String message) {
            heard.add(channel + " " + message);
        }

        @Override
        public void onPSubscribe(String pattern, int count) {
            psubscribed.countDown();
        }

        @Override
        public void onSubscribe(String channel, int count) {
            subscribed.countDown();
        }

        /** What was heard before {@code marker}'s message, which must come within 10 s. */
        List<String> until(String marker) throws InterruptedException {
            List<String> before = new ArrayList<>();
            while (true) {
                String m = heard.poll(10, TimeUnit.SECONDS);
                assertThat(m).as("the marker %s, after %s", marker, before).isNotNull();
                if (m.equals(MARKER + " " + marker)) return before;
                before.add(m);
            }
        }
    }

    @Test
    void aBackupPublishesNoEventOfWhatItReplicatesAndPublishesOnceItIsPromoted() throws Exception {
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .primary(c -> c.notifyKeyspaceEvents("KEA"))
                .backup(c -> c.notifyKeyspaceEvents("KEA"))
                .start()) {
            Listener onBackup = new Listener();
            Thread subscriber = new Thread(() -> {
                try (Jedis j = new Jedis(TwoDc.HOST, dc.backup().port())) {
                    j.psubscribe(onBackup, "__key*__:*");
                }
            });
            subscriber.start();
            try (Jedis primary = new Jedis(TwoDc.HOST, dc.primary().port());
                    Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
                assertThat(onBackup.psubscribed.await(10, TimeUnit.SECONDS)).isTrue();
                onBackup.subscribe(MARKER);
                assertThat(onBackup.subscribed.await(10, TimeUnit.SECONDS)).isTrue();
                backup.readonly();

                primary.set("k", "v");
                primary.hset("h", "f", "v");
                primary.del("k");
                primary.set("after", "1");
                await().atMost(Duration.ofSeconds(20)).until(() -> "1".equals(backup.get("after")));
                backup.publish(MARKER, "replicated");
                assertThat(onBackup.until("replicated"))
                        .as("events the backup published for the writes it replicated")
                        .isEmpty();

                dc.stopPrimary();
                System.out.println("KeyspaceEventsNodesTest: " + dc.promoteBackup(""));
                backup.readwrite();
                await().atMost(Duration.ofSeconds(20))
                        .ignoreExceptions()
                        .until(() -> "OK".equals(backup.set("k2", "v2")));
                backup.publish(MARKER, "promoted");
                assertThat(onBackup.until("promoted"))
                        .containsExactly("__keyspace@0__:k2 set", "__keyevent@0__:set k2");
            } finally {
                onBackup.punsubscribe();
                onBackup.unsubscribe();
                subscriber.join(10_000);
            }
        }
    }
}
