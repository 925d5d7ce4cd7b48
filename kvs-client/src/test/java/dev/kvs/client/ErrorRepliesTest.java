package dev.kvs.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Replication error replies a real node cannot produce yet, from a scripted server. */
class ErrorRepliesTest {

    private static KvsClient client(FakeRespServer server, Duration unfinishedDeadline) {
        return KvsClient.builder()
                .endpoints(server.endpoint())
                .unfinishedRetryDeadline(unfinishedDeadline)
                .build();
    }

    @Test
    void unfinishedKeyIsRetriedUntilItsValueArrives() {
        AtomicInteger gets = new AtomicInteger();
        try (FakeRespServer server = FakeRespServer.start(
                        (cmd, conn) -> gets.incrementAndGet() <= 2 ? "-UNFINISHED k 1:5\r\n" : "$1\r\nv\r\n");
                KvsClient client = client(server, Duration.ofSeconds(10))) {
            assertThat(client.get("k")).isEqualTo("v");
            assertThat(server.count("GET")).isEqualTo(3);
            assertThat(server.connections()).isEqualTo(1);
        }
    }

    @Test
    void unfinishedKeyFailsAfterTheDeadlineWithKeyAndTxId() {
        Duration deadline = Duration.ofMillis(300);
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> "-UNFINISHED k 1:5\r\n");
                KvsClient client = client(server, deadline)) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.get("k"))
                    .isInstanceOfSatisfying(UnfinishedKeyException.class, e -> {
                        assertThat(e.key()).isEqualTo("k".getBytes(UTF_8));
                        assertThat(e.printableKey()).isEqualTo("k");
                        assertThat(e.txId()).isEqualTo("1:5");
                    })
                    .hasMessageStartingWith("UNFINISHED k 1:5 (still unfinished after ")
                    .hasMessageEndingWith(" retries over PT0.3S)");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(deadline);
            // backoff 10, 20, 40, 80, 160 ms (capped at the deadline): a handful of retries, not a spin
            assertThat(server.count("GET")).isBetween(2L, 8L);
        }
    }

    @Test
    void zeroDeadlineMeansNoRetry() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> "-UNFINISHED k 2:9\r\n");
                KvsClient client = client(server, Duration.ZERO)) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOf(UnfinishedKeyException.class)
                    .hasMessage("UNFINISHED k 2:9");
            assertThat(server.count("SET")).isEqualTo(1);
        }
    }

    @Test
    void lostKeyFailsAtOnceWithKeyAndTxId() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> "-LOST user:42 3:1000\r\n");
                KvsClient client = client(server, Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> client.get("user:42"))
                    .isInstanceOfSatisfying(DataLostException.class, e -> {
                        assertThat(e.key()).isEqualTo("user:42".getBytes(UTF_8));
                        assertThat(e.txId()).isEqualTo("3:1000");
                    })
                    .hasMessage("LOST user:42 3:1000");
            assertThat(server.count("GET")).isEqualTo(1);
        }
    }

    @Test
    void multiGetNamesTheKeyThatIsLost() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> "-LOST b 3:1\r\n");
                KvsClient client = client(server, Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> client.getAll(List.of("a".getBytes(UTF_8), "b".getBytes(UTF_8))))
                    .isInstanceOfSatisfying(
                            DataLostException.class,
                            e -> assertThat(e.printableKey()).isEqualTo("b"));
        }
    }

    @Test
    void everyOtherErrorMapsToItsTypeWithoutRetry() {
        String[][] cases = {
            {"-BUSY value bound full for 5000 ms; nothing written\r\n", BusyException.class.getName()},
            {"-NOREPLICA not acknowledged by the backup in 5000 ms\r\n", NotReplicatedException.class.getName()},
            {"-OOM store is full\r\n", StoreFullException.class.getName()},
            {"-NOAUTH Authentication required.\r\n", AuthenticationException.class.getName()},
            {"-ERR something else\r\n", KvsClientException.class.getName()},
        };
        for (String[] c : cases) {
            try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> c[0]);
                    KvsClient client = client(server, Duration.ofSeconds(10))) {
                assertThatThrownBy(() -> client.put("k", "v"))
                        .as(c[0])
                        .hasMessage(c[0].substring(1, c[0].length() - 2))
                        .satisfies(e -> assertThat(e.getClass().getName()).isEqualTo(c[1]));
                assertThat(server.count("SET")).as(c[0]).isEqualTo(1);
            }
        }
    }

    @Test
    void fencedCarriesTheEpochOnceTheDeadlinePassed() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> "-FENCED 4\r\n");
                KvsClient client = client(server, Duration.ZERO)) {
            assertThatThrownBy(() -> client.delete("k"))
                    .isInstanceOfSatisfying(
                            FencedException.class, e -> assertThat(e.epoch()).isEqualTo(4));
            assertThat(server.count("DEL")).isEqualTo(1);
        }
    }

    @Test
    void aWriteFencedDuringASwitchoverIsRetriedUntilItIsTaken() {
        AtomicInteger sets = new AtomicInteger();
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) ->
                        sets.incrementAndGet() <= 2 ? "-FENCED 1 switchover in progress\r\n" : "+OK\r\n");
                KvsClient client = client(server, Duration.ofSeconds(10))) {
            client.put("k", "v");
            assertThat(server.count("SET")).isEqualTo(3);
        }
    }

    @Test
    void aWriteStillFencedAtTheDeadlineFailsWithTheRetriesCounted() {
        try (FakeRespServer server = FakeRespServer.start((cmd, conn) -> "-FENCED 4\r\n");
                KvsClient client = client(server, Duration.ofMillis(100))) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOf(FencedException.class)
                    .hasMessageContaining("still fenced after");
            assertThat(server.count("SET")).isGreaterThan(1);
        }
    }
}
