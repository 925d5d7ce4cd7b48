package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.DefaultEventExecutor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteTimeoutsTest {
    private final DefaultEventExecutor executor = new DefaultEventExecutor();
    private WriteTimeouts timeouts;

    @AfterEach
    void close() {
        if (timeouts != null) timeouts.close();
        executor.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aWriteNotConfirmedInTimeFailsWithATimeoutNotBeforeItsDeadline() {
        timeouts = new WriteTimeouts(50, executor);
        long watched = System.nanoTime();
        AtomicLong failedAt = new AtomicLong();
        CompletableFuture<Void> write = new CompletableFuture<>();
        write.whenComplete((v, e) -> failedAt.set(System.nanoTime()));

        assertThat(timeouts.watch(write)).isSameAs(write);

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(write::isDone);
        assertThat(write)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class);
        assertThat(failedAt.get() - watched).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(timeouts::size, n -> n == 0);
    }

    @Test
    void confirmedWritesAreDroppedAndPendingOnesWaitForTheirDeadline() {
        timeouts = new WriteTimeouts(TimeUnit.MINUTES.toMillis(10), executor);
        CompletableFuture<Void> first = timeouts.watch(new CompletableFuture<>());
        CompletableFuture<Void> second = timeouts.watch(new CompletableFuture<>());
        CompletableFuture<Void> third = timeouts.watch(new CompletableFuture<>());

        first.complete(null);
        third.complete(null);
        timeouts.sweep();

        // the first is gone; the second is pending and not due, so the sweep stops there
        assertThat(timeouts.size()).isEqualTo(2);
        assertThat(second).isNotDone();
        assertThat(first).isCompleted();
        assertThat(third).isCompleted();

        second.complete(null);
        timeouts.sweep();
        assertThat(timeouts.size()).isZero();
    }
}
