package dev.kvs.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.server.KvsNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The client against one real node: every operation, sync and async, binary values, pipelining. */
class KvsClientTest {
    private static KvsNode node;
    private static KvsClient client;

    @BeforeAll
    static void start() {
        node = KvsNode.start(Nodes.primary("client-test").build());
        client = KvsClient.builder()
                .endpoints(Nodes.endpoint(node))
                .clientName("kvs-client-test")
                .mode(ReplicationMode.ID_FIRST)
                .build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (node != null) node.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void putGetDeleteRoundTrip() {
        assertThat(client.get(b("rt"))).isNull();
        client.put(b("rt"), b("one"));
        assertThat(client.get(b("rt"))).isEqualTo(b("one"));
        assertThat(client.exists(b("rt"))).isTrue();
        client.put(b("rt"), b("two"));
        assertThat(client.get(b("rt"))).isEqualTo(b("two"));
        assertThat(client.delete(b("rt"))).isTrue();
        assertThat(client.delete(b("rt"))).isFalse();
        assertThat(client.get(b("rt"))).isNull();
        assertThat(client.exists(b("rt"))).isFalse();
    }

    @Test
    void putIfAbsentSetsOnlyAMissingKey() {
        assertThat(client.putIfAbsent(b("nx"), b("first"))).isTrue();
        assertThat(client.putIfAbsent(b("nx"), b("second"))).isFalse();
        assertThat(client.get("nx")).isEqualTo("first");
    }

    @Test
    void stringHelpersUseUtf8() {
        client.put("greeting", "héllo wörld ✓");
        assertThat(client.get("greeting")).isEqualTo("héllo wörld ✓");
        assertThat(client.get(b("greeting"))).isEqualTo(b("héllo wörld ✓"));
        assertThat(client.delete("greeting")).isTrue();
        assertThat(client.get("greeting")).isNull();
    }

    @Test
    void getAllAndPutAllKeepOrderAndNulls() {
        client.putAll(List.of(b("m1"), b("m2")), List.of(b("v1"), b("")));
        List<byte[]> values = client.getAll(List.of(b("m1"), b("missing"), b("m2")));
        assertThat(values).hasSize(3);
        assertThat(values.get(0)).isEqualTo(b("v1"));
        assertThat(values.get(1)).isNull();
        assertThat(values.get(2)).isEmpty();

        Map<String, byte[]> map = new LinkedHashMap<>();
        map.put("s1", b("x"));
        map.put("s2", b("y"));
        client.putAll(map);
        assertThat(client.getAll(List.of(b("s2"), b("s1")))).containsExactly(b("y"), b("x"));

        assertThat(client.getAll(List.of())).isEmpty();
        client.putAll(List.of(), List.of());
        assertThatThrownBy(() -> client.putAll(List.of(b("a")), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys.size() != values.size(): 1 != 0");
    }

    @Test
    void binaryValuesComeBackByteIdentical() {
        byte[] empty = new byte[0];
        client.put(b("empty"), empty);
        assertThat(client.get(b("empty"))).isEmpty();

        byte[] allBytes = new byte[256];
        for (int i = 0; i < 256; i++) allBytes[i] = (byte) i;
        byte[] binaryKey = {0, '\r', '\n', (byte) 0xff, ' '};
        client.put(binaryKey, allBytes);
        assertThat(client.get(binaryKey)).isEqualTo(allBytes);

        byte[] big = new byte[5 << 20];
        new Random(7).nextBytes(big);
        client.put(b("big"), big);
        assertThat(client.get(b("big"))).isEqualTo(big);
        assertThat(client.getAll(List.of(b("big"), b("empty")))).containsExactly(big, empty);
    }

    @Test
    void asyncApiCompletesWithResults() throws Exception {
        assertThat(client.putAsync(b("a1"), b("v")).get()).isNull();
        assertThat(client.getAsync(b("a1")).get()).isEqualTo(b("v"));
        assertThat(client.putIfAbsentAsync(b("a1"), b("w")).get()).isFalse();
        assertThat(client.existsAsync(b("a1")).get()).isTrue();
        assertThat(client.putAllAsync(List.of(b("a2"), b("a3")), List.of(b("2"), b("3")))
                        .get())
                .isNull();
        assertThat(client.getAllAsync(List.of(b("a2"), b("a3"))).get()).containsExactly(b("2"), b("3"));
        assertThat(client.deleteAsync(b("a1")).get()).isTrue();
        assertThat(client.pingAsync().get()).isEqualTo("PONG");
        assertThat(client.ping()).isEqualTo("PONG");
    }

    @Test
    void thousandPipelinedPutsThenGetsAreAllCorrect() {
        int n = 1000;
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) puts.add(client.putAsync(b("p" + i), b("value-" + i)));
        CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).join();
        List<CompletableFuture<byte[]>> gets = new ArrayList<>();
        for (int i = 0; i < n; i++) gets.add(client.getAsync(b("p" + i)));
        for (int i = 0; i < n; i++) assertThat(gets.get(i).join()).isEqualTo(b("value-" + i));
    }

    @Test
    void putsAndGetsIssuedTogetherOnOneConnectionRunInOrder() {
        // no waiting between the put and the get of a key: one connection keeps their order
        List<CompletableFuture<byte[]>> gets = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            client.putAsync(b("o" + i), b("v" + i));
            gets.add(client.getAsync(b("o" + i)));
        }
        for (int i = 0; i < 500; i++) assertThat(gets.get(i).join()).isEqualTo(b("v" + i));
    }

    @Test
    void serverErrorIsAKvsClientExceptionWithItsMessage() {
        byte[] tooLongKey = new byte[64 * 1024 + 1];
        Arrays.fill(tooLongKey, (byte) 'k');
        assertThatThrownBy(() -> client.put(tooLongKey, b("v")))
                .isInstanceOf(KvsClientException.class)
                .hasMessageStartingWith("ERR");
        assertThat(client.ping()).isEqualTo("PONG"); // the connection is still usable
    }

    @Test
    void asyncFailureIsTheTypedExceptionAndSyncThrowsItUnwrapped() throws Exception {
        try (Nodes.DeadEndpoint dead = Nodes.deadEndpoint();
                KvsClient noServer =
                        KvsClient.builder().endpoints(dead.endpoint()).build()) {
            assertThatThrownBy(() -> noServer.getAsync(b("k")).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(NoPrimaryException.class);
            assertThatThrownBy(() -> noServer.get(b("k"))).isInstanceOf(NoPrimaryException.class);
        }
    }

    @Test
    void blockingCallFromACallbackIsRefusedInsteadOfDeadlocking() {
        // the reply comes late, so the callback surely runs on the client's I/O thread
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> FakeRespServer.after(200, "$1\r\nv\r\n"));
                KvsClient slow =
                        KvsClient.builder().endpoints(server.endpoint()).build()) {
            CompletableFuture<byte[]> nested = slow.getAsync(b("k")).thenApply(v -> slow.get(b("k")));
            assertThatThrownBy(nested::join)
                    .isInstanceOf(CompletionException.class)
                    .cause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("thenApplyAsync");
            assertThat(slow.getAsync(b("k")).thenApplyAsync(v -> slow.get("k")).join())
                    .isEqualTo("v");
        }
    }

    @Test
    void closedClientFailsEveryCall() {
        KvsClient c = KvsClient.builder().endpoints(Nodes.endpoint(node)).build();
        c.put("before-close", "v");
        c.close();
        c.close(); // idempotent
        assertThatThrownBy(() -> c.get("before-close"))
                .isExactlyInstanceOf(KvsClientException.class)
                .hasMessage("client is closed");
        assertThat(c.putAsync(b("k"), b("v"))).isCompletedExceptionally();
    }

    @Test
    void severalConnectionsPerEndpointShareTheLoad() {
        try (KvsClient pooled = KvsClient.builder()
                .endpoints(Nodes.endpoint(node))
                .connectionsPerEndpoint(4)
                .eventLoopThreads(2)
                .requestTimeout(Duration.ofSeconds(30))
                .build()) {
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 400; i++) puts.add(pooled.putAsync(b("c" + i), b("v" + i)));
            CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).join();
            for (int i = 0; i < 400; i++) assertThat(pooled.get("c" + i)).isEqualTo("v" + i);
        }
    }
}
