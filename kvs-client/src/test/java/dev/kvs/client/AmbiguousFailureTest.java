package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * What is resent after a failure and what is not: reads are, writes that may have been applied are
 * never (they fail loudly instead).
 */
class AmbiguousFailureTest {

    @Test
    void writeOnADroppedConnectionFailsAsMaybeAppliedAndIsNotResent() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> FakeRespServer.CLOSE);
                KvsClient client =
                        KvsClient.builder().endpoints(server.endpoint()).build()) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOf(ConnectionLostException.class)
                    .hasMessageContaining("lost with SET k in flight: it may or may not have been applied");
            assertThat(server.count("SET")).isEqualTo(1);
        }
    }

    @Test
    void readOnADroppedConnectionIsResent() {
        try (FakeRespServer server =
                        FakeRespServer.start((cmd, conn) -> conn == 1 ? FakeRespServer.CLOSE : "$5\r\nvalue\r\n");
                KvsClient client =
                        KvsClient.builder().endpoints(server.endpoint()).build()) {
            assertThat(client.get("k")).isEqualTo("value");
            assertThat(server.count("GET")).isEqualTo(2);
            assertThat(server.connections()).isEqualTo(2);
        }
    }

    @Test
    void readDroppedOnEveryConnectionFailsInsteadOfLooping() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> FakeRespServer.CLOSE);
                KvsClient client =
                        KvsClient.builder().endpoints(server.endpoint()).build()) {
            assertThatThrownBy(() -> client.get("k"))
                    .isInstanceOf(NoPrimaryException.class)
                    .hasMessageContaining("connection lost twice");
            assertThat(server.count("GET")).isEqualTo(2);
        }
    }

    @Test
    void writeWithoutReplyTimesOutAsMaybeApplied() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> FakeRespServer.NO_REPLY);
                KvsClient client = KvsClient.builder()
                        .endpoints(server.endpoint())
                        .requestTimeout(Duration.ofMillis(200))
                        .build()) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOf(KvsTimeoutException.class)
                    .hasMessageContaining("within 200 ms")
                    .hasMessageContaining("it may or may not have been applied");
            assertThat(server.count("SET")).isEqualTo(1);
        }
    }

    @Test
    void readOnASilentConnectionIsResentOnANewOne() {
        try (FakeRespServer server =
                        FakeRespServer.start((cmd, conn) -> conn == 1 ? FakeRespServer.NO_REPLY : "$2\r\nok\r\n");
                KvsClient client = KvsClient.builder()
                        .endpoints(server.endpoint())
                        .requestTimeout(Duration.ofMillis(200))
                        .build()) {
            assertThat(client.get("k")).isEqualTo("ok");
            assertThat(server.connections()).isEqualTo(2);
        }
    }

    @Test
    void requestsBeyondMaxPendingFailAtOnce() throws Exception {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> FakeRespServer.NO_REPLY);
                KvsClient client = KvsClient.builder()
                        .endpoints(server.endpoint())
                        .maxPending(2)
                        .requestTimeout(Duration.ofSeconds(30))
                        .build()) {
            CompletableFuture<byte[]> first = client.getAsync(new byte[] {1});
            CompletableFuture<byte[]> second = client.getAsync(new byte[] {2});
            CompletableFuture<byte[]> third = client.getAsync(new byte[] {3});
            assertThatThrownBy(third::get)
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TooManyPendingRequestsException.class)
                    .hasMessageContaining("2 requests already in flight");
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();
        }
    }

    @Test
    void closeFailsWritesInFlightAsMaybeApplied() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> FakeRespServer.NO_REPLY)) {
            KvsClient client = KvsClient.builder()
                    .endpoints(server.endpoint())
                    .requestTimeout(Duration.ofSeconds(30))
                    .build();
            CompletableFuture<Void> put = client.putAsync("k".getBytes(), "v".getBytes());
            CompletableFuture<byte[]> get = client.getAsync("k".getBytes());
            org.awaitility.Awaitility.await().until(() -> server.received().size() == 2);
            client.close();
            assertThatThrownBy(put::join).cause().isInstanceOf(ConnectionLostException.class);
            assertThatThrownBy(get::join).cause().isExactlyInstanceOf(KvsClientException.class);
        }
    }

    @Test
    void handshakeSendsAuthNameAndModeInOrder() {
        try (FakeRespServer server =
                        FakeRespServer.start((cmd, conn) -> cmd.get(0).equals("GET") ? "$-1\r\n" : "+OK\r\n");
                KvsClient client = KvsClient.builder()
                        .endpoints(server.endpoint())
                        .credentials("app", "pw")
                        .clientName("billing")
                        .mode("sync")
                        .build()) {
            assertThat(client.get("k")).isNull();
            assertThat(server.received())
                    .containsExactly(
                            List.of("AUTH", "app", "pw"),
                            List.of("CLIENT", "SETNAME", "billing"),
                            List.of("KVS.MODE", "sync"),
                            List.of("GET", "k"));
        }
    }
}
