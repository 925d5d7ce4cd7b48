package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.client.DataLostException;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.UnfinishedKeyException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class VerifierTest {
    private static final int SIZE = 100;

    private final Map<String, CompletableFuture<byte[]>> answers = new ConcurrentHashMap<>();
    private final List<AckedWrite> acked = new ArrayList<>();

    private AckedWrite acked(String key) {
        AckedWrite w = AckedWrite.of(key, ValueSource.value(key, 0, SIZE));
        acked.add(w);
        return w;
    }

    private Classification verify() throws InterruptedException {
        Verifier v =
                new Verifier(key -> answers.get(new String(key, StandardCharsets.US_ASCII)), 4, Duration.ofSeconds(5));
        return v.verify(acked);
    }

    @Test
    void theSameValueIsComplete() throws Exception {
        answers.put(acked("a").key(), CompletableFuture.completedFuture(ValueSource.value("a", 0, SIZE)));

        Classification c = verify();

        assertThat(c).isEqualTo(new Classification(1, 1, 0, 0, 0, List.of()));
    }

    @Test
    void unfinishedAndLostKeysAreDetected() throws Exception {
        answers.put(
                acked("u").key(),
                CompletableFuture.failedFuture(new UnfinishedKeyException("UNFINISHED u 1:5", "u".getBytes(), "1:5")));
        answers.put(
                acked("l").key(),
                CompletableFuture.failedFuture(new DataLostException("LOST l 1:6", "l".getBytes(), "1:6")));

        Classification c = verify();

        assertThat(c.errorDetect()).isEqualTo(2);
        assertThat(c.complete() + c.dataLoss() + c.unreadable()).isZero();
    }

    @Test
    void aMissingOrOlderOrShorterValueIsSilentLoss() throws Exception {
        answers.put(acked("missing").key(), CompletableFuture.completedFuture(null));
        answers.put(acked("older").key(), CompletableFuture.completedFuture(ValueSource.value("older", 1, SIZE)));
        byte[] shorter = new byte[SIZE - 1];
        System.arraycopy(ValueSource.value("shorter", 0, SIZE), 0, shorter, 0, shorter.length);
        answers.put(acked("shorter").key(), CompletableFuture.completedFuture(shorter));

        Classification c = verify();

        assertThat(c.dataLoss()).isEqualTo(3);
        assertThat(c.lossExamples()).containsExactlyInAnyOrder("missing", "older", "shorter");
        assertThat(c.complete() + c.errorDetect() + c.unreadable()).isZero();
    }

    @Test
    void aFailedReadIsTriedAgainThenCountedUnreadable() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        acked("flaky");
        acked("down");
        Verifier v = new Verifier(
                key -> {
                    String k = new String(key, StandardCharsets.US_ASCII);
                    if (k.equals("flaky") && reads.getAndIncrement() > 0) {
                        return CompletableFuture.completedFuture(ValueSource.value(k, 0, SIZE));
                    }
                    return CompletableFuture.failedFuture(new KvsClientException("connection refused"));
                },
                2,
                Duration.ofSeconds(5));

        Classification c = v.verify(acked);

        assertThat(c).isEqualTo(new Classification(2, 1, 0, 0, 1, List.of()));
    }

    @Test
    void everyMixIsCountedOnceWithManyReadsInFlight() throws Exception {
        for (int i = 0; i < 300; i++) {
            String k = "k" + i;
            acked(k);
            answers.put(
                    k,
                    switch (i % 3) {
                        case 0 -> CompletableFuture.supplyAsync(() -> ValueSource.value(k, 0, SIZE));
                        case 1 -> CompletableFuture.failedFuture(new DataLostException("LOST", k.getBytes(), "1:" + i));
                        default -> CompletableFuture.completedFuture(null);
                    });
        }

        Classification c = verify();

        assertThat(c).isEqualTo(new Classification(300, 100, 100, 100, 0, c.lossExamples()));
        assertThat(c.lossExamples()).hasSize(5);
    }
}
