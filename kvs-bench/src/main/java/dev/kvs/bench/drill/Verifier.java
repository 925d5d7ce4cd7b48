package dev.kvs.bench.drill;

import dev.kvs.client.FencedKeyException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Reads every acknowledged write back from the new primary and classifies it: complete (the value
 * matches), error-detect (the store fences the key: {@link FencedKeyException}, i.e. {@code
 * -UNFINISHED} or {@code -LOST}), data loss (no value or another value). Reads run in parallel, at
 * most {@code window} at once; a read that fails otherwise is tried once more, then counted
 * unreadable.
 */
final class Verifier {
    /** Reads a key's current value: {@code null} if it has none; fails with the client's exception. */
    @FunctionalInterface
    interface KeyReader {
        CompletableFuture<byte[]> read(byte[] key);
    }

    private static final int MAX_EXAMPLES = 5;

    private final KeyReader reader;
    private final int window;
    private final Duration readTimeout;

    Verifier(KeyReader reader, int window, Duration readTimeout) {
        if (window < 1) throw new IllegalArgumentException("window < 1: " + window);
        this.reader = reader;
        this.window = window;
        this.readTimeout = readTimeout;
    }

    /** The outcome of reading back {@code write}: the value read, or the failure of the read. */
    static Classification.Outcome classify(AckedWrite write, byte[] value, Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof FencedKeyException) return Classification.Outcome.ERROR_DETECT;
        if (cause != null) return Classification.Outcome.UNREADABLE;
        return write.matches(value) ? Classification.Outcome.COMPLETE : Classification.Outcome.DATA_LOSS;
    }

    /** Classifies every write. */
    Classification verify(List<AckedWrite> writes) throws InterruptedException {
        AtomicLongArray counts = new AtomicLongArray(Classification.Outcome.values().length);
        List<String> examples = Collections.synchronizedList(new ArrayList<>());
        List<AckedWrite> retry = Collections.synchronizedList(new ArrayList<>());
        Semaphore permits = new Semaphore(window);
        for (AckedWrite w : writes) {
            permits.acquire();
            CompletableFuture<byte[]> read;
            try {
                read = reader.read(w.key().getBytes(StandardCharsets.US_ASCII));
            } catch (RuntimeException e) {
                read = CompletableFuture.failedFuture(e);
            }
            read.orTimeout(readTimeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((value, failure) -> {
                try {
                    Classification.Outcome o = classify(w, value, failure);
                    if (o == Classification.Outcome.UNREADABLE) retry.add(w);
                    else count(counts, examples, w, o);
                } finally {
                    permits.release();
                }
            });
        }
        if (!permits.tryAcquire(window, readTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("reads still unanswered after " + readTimeout);
        }
        for (AckedWrite w : retry) {
            Classification.Outcome o;
            try {
                byte[] value = reader.read(w.key().getBytes(StandardCharsets.US_ASCII))
                        .get(readTimeout.toMillis(), TimeUnit.MILLISECONDS);
                o = classify(w, value, null);
            } catch (ExecutionException e) {
                o = classify(w, null, e.getCause());
            } catch (TimeoutException | RuntimeException e) {
                o = Classification.Outcome.UNREADABLE;
            }
            count(counts, examples, w, o);
        }
        return new Classification(
                writes.size(),
                counts.get(Classification.Outcome.COMPLETE.ordinal()),
                counts.get(Classification.Outcome.ERROR_DETECT.ordinal()),
                counts.get(Classification.Outcome.DATA_LOSS.ordinal()),
                counts.get(Classification.Outcome.UNREADABLE.ordinal()),
                examples);
    }

    private static void count(AtomicLongArray counts, List<String> examples, AckedWrite w, Classification.Outcome o) {
        counts.incrementAndGet(o.ordinal());
        if (o == Classification.Outcome.DATA_LOSS) {
            synchronized (examples) {
                if (examples.size() < MAX_EXAMPLES) examples.add(w.key());
            }
        }
    }
}
