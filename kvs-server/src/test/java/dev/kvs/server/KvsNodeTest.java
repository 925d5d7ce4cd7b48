package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/** A real node on loopback with ephemeral ports, driven by Jedis and raw sockets. */
class KvsNodeTest {
    private static NodeConfig.Builder config() {
        return NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(100_000)
                        .maxBytes(512L << 20)
                        .build());
    }

    @Test
    void jedisCanUseEveryBasicCommand() {
        try (KvsNode node = KvsNode.start(config().build());
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThat(jedis.ping()).isEqualTo("PONG");
            assertThat(jedis.set("a", "1")).isEqualTo("OK");
            assertThat(jedis.get("a")).isEqualTo("1");
            assertThat(jedis.mset("b", "2", "c", "3")).isEqualTo("OK");
            assertThat(jedis.mget("a", "b", "c", "d")).containsExactly("1", "2", "3", null);
            assertThat(jedis.exists("a", "b", "x")).isEqualTo(2);
            assertThat(jedis.strlen("a")).isEqualTo(1);
            assertThat(jedis.dbSize()).isEqualTo(3);
            assertThat(jedis.del("a", "b")).isEqualTo(2);
            assertThat(jedis.clientSetname("t")).isEqualTo("OK");
            assertThat(jedis.clientGetname()).isEqualTo("t");
            assertThat(jedis.info("replication")).contains("kvs_role:primary");
            assertThatThrownBy(() -> jedis.sendCommand(() -> "NOPE".getBytes(StandardCharsets.US_ASCII)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("unknown command");
        }
    }

    @Test
    void tenMegabyteValueComesBackByteIdentical() {
        byte[] value = new byte[10 << 20];
        new Random(42).nextBytes(value);
        byte[] key = "big".getBytes(StandardCharsets.UTF_8);
        try (KvsNode node = KvsNode.start(config().build());
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThat(jedis.set(key, value)).isEqualTo("OK");
            assertThat(jedis.get(key)).isEqualTo(value);
            assertThat(jedis.strlen(key)).isEqualTo(value.length);
        }
    }

    @Test
    void aClientSendingGarbageDoesNotDisturbOthers() throws Exception {
        try (KvsNode node = KvsNode.start(config().build());
                Jedis good = new Jedis("127.0.0.1", node.port())) {
            good.set("k", "v");
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<String>> bad = new java.util.ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    long seed = i;
                    bad.add(pool.submit(() -> sendGarbage(node.port(), seed)));
                }
                for (int i = 0; i < 200; i++) assertThat(good.get("k")).isEqualTo("v");
                for (Future<String> f : bad) assertThat(f.get()).startsWith("-ERR Protocol error");
            } finally {
                pool.shutdownNow();
            }
            assertThat(good.get("k")).isEqualTo("v");
        }
    }

    private static String sendGarbage(int port, long seed) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write("*1\r\n$abc\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] junk = new byte[4096];
            new Random(seed).nextBytes(junk);
            try {
                out.write(junk);
            } catch (java.io.IOException closedByServer) {
                // the server may close before all the junk is written
            }
            InputStream in = s.getInputStream();
            byte[] reply = in.readAllBytes(); // until the server closes
            return new String(reply, StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void maxClientsIsEnforced() throws Exception {
        try (KvsNode node = KvsNode.start(config().maxClients(1).build());
                Jedis first = new Jedis("127.0.0.1", node.port())) {
            assertThat(first.ping()).isEqualTo("PONG");
            try (Socket second = new Socket("127.0.0.1", node.port())) {
                String reply = new String(second.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(reply).isEqualTo("-ERR max number of clients reached\r\n");
            }
            assertThat(first.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void aNodeRestartedOnItsDataDirHasEveryWriteAndStartsANewEpoch(@TempDir Path dir) {
        NodeConfig c = config().dataDir(dir).build();
        byte[] big = new byte[3 << 20];
        new Random(7).nextBytes(big);
        try (KvsNode node = KvsNode.start(c);
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            for (int i = 0; i < 1000; i++) jedis.set("k" + i, "v" + i);
            jedis.set("big".getBytes(StandardCharsets.UTF_8), big);
            jedis.del("k0");
        }
        try (KvsNode node = KvsNode.start(c);
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThat(jedis.dbSize()).isEqualTo(1000);
            assertThat(jedis.get("k0")).isNull();
            assertThat(jedis.get("k999")).isEqualTo("v999");
            assertThat(Arrays.equals(jedis.get("big".getBytes(StandardCharsets.UTF_8)), big))
                    .isTrue();
            // a restarted primary takes a new epoch: it cannot know the seqs of deletes it made
            assertThat(jedis.info("replication")).contains("kvs_epoch:2", "kvs_last_txid:2:0");
            jedis.set("after", "restart");
            assertThat(jedis.info("replication")).contains("kvs_last_txid:2:1");
        }
    }

    @Test
    void aValueACrashToreIsFencedAsLostWhenThePrimaryStartsAgainUntilTheLossIsResolved(@TempDir Path dir)
            throws Exception {
        NodeConfig c = config().dataDir(dir).build();
        String value = "the value of the key a crash tears, in one place in the files";
        try (KvsNode node = KvsNode.start(c);
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            jedis.set("torn", value);
            jedis.set("kept", "v");
        }
        TornFiles.tear(dir, value.getBytes(StandardCharsets.US_ASCII));
        try (KvsNode node = KvsNode.start(c);
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThatThrownBy(() -> jedis.get("torn"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("LOST torn ");
            assertThatThrownBy(() -> jedis.set("torn", "over"))
                    .as("a write would hide the loss")
                    .hasMessageStartingWith("LOST torn ");
            assertThat(jedis.get("kept")).isEqualTo("v");
            assertThat(jedis.info("replication")).contains("kvs_lost_keys:1");
            HttpClient http = HttpClient.newHttpClient();
            String admin = "http://127.0.0.1:" + node.adminPort();
            assertThat(http.send(
                                    HttpRequest.newBuilder(URI.create(admin + "/lost"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body())
                    .contains("\"torn\"");
            HttpResponse<String> resolved = http.send(
                    HttpRequest.newBuilder(URI.create(admin + "/resolve?key=torn"))
                            .header("X-Kvs-Admin", "1")
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(resolved.statusCode()).as(resolved.body()).isEqualTo(200);
            assertThat(jedis.get("torn")).isNull();
            jedis.set("torn", "over");
            assertThat(jedis.get("torn")).isEqualTo("over");
        }
    }

    @Test
    void aTakenPortIsAClearStartError() {
        try (KvsNode first = KvsNode.start(config().build())) {
            assertThatThrownBy(() -> KvsNode.start(config().port(first.port()).build()))
                    .isInstanceOf(NodeStartException.class)
                    .hasMessage(
                            "cannot listen on 127.0.0.1:" + first.port() + " (client port): address already in use");
        }
    }

    @Test
    void clientConnectionsFillOneEventLoopBeforeTheNext() throws Exception {
        NodeConfig c = config().ioThreads(2).ioPackConnections(2).build();
        try (KvsNode node = KvsNode.start(c);
                Jedis a = new Jedis("127.0.0.1", node.port());
                Jedis b = new Jedis("127.0.0.1", node.port());
                Jedis third = new Jedis("127.0.0.1", node.port())) {
            assertThat(a.ping()).isEqualTo("PONG");
            assertThat(b.ping()).isEqualTo("PONG");
            assertThat(third.info("clients")).contains("connected_clients:3", "kvs_io_thread_clients:2,1");
            HttpResponse<String> metrics = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body())
                    .contains(
                            "kvs_io_thread_connections{thread=\"0\"} 2.0",
                            "kvs_io_thread_connections{thread=\"1\"} 1.0");
            a.close();
            // the first loop has room again, so the next connection goes there
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(third.info("clients")).contains("kvs_io_thread_clients:1,1"));
            try (Jedis fourth = new Jedis("127.0.0.1", node.port())) {
                assertThat(fourth.info("clients")).contains("kvs_io_thread_clients:2,1");
            }
        }
    }
}
