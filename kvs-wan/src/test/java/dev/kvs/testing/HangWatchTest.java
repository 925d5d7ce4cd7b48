package dev.kvs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HangWatchTest {
    @TempDir
    Path dir;

    /**
     * A stall past the watchdog's bound leaves a dump naming where the tests were, the stuck thread with
     * every frame and what it waits for, and the deadlock; a second dump only after progress.
     */
    @Test
    void aStallLeavesEveryThreadsStackAndTheDeadlock() throws Exception {
        HangWatch.Watchdog watchdog = new HangWatch.Watchdog(Duration.ofMillis(200), dir);
        ReentrantLock a = new ReentrantLock();
        ReentrantLock b = new ReentrantLock();
        CountDownLatch bothHeld = new CountDownLatch(2);
        Thread first = deadlocking("hang-watch-first", a, b, bothHeld);
        Thread second = deadlocking("hang-watch-second", b, a, bothHeld);
        watchdog.progress("SomeTest#teardown");

        await().atMost(Duration.ofSeconds(20)).until(() -> dumps().size() == 1);
        String dump = Files.readString(dumps().get(0));
        assertThat(dump).startsWith("No test progress for ").contains("in SomeTest#teardown");
        assertThat(dump)
                .contains("Deadlocked (monitors or ownable synchronizers):")
                .contains("\"hang-watch-first\"", "\"hang-watch-second\"");
        assertThat(dump)
                .contains("\"hang-watch-first\" WAITING on java.util.concurrent.locks.ReentrantLock")
                .contains("owned by \"hang-watch-second\"")
                .contains(HangWatchTest.class.getName() + ".lambda$deadlocking$");

        watchdog.progress("SomeTest#next");
        await().atMost(Duration.ofSeconds(20)).until(() -> dumps().size() == 2);
        first.interrupt();
        second.interrupt();
    }

    private List<Path> dumps() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("hang-"))
                    .sorted()
                    .toList();
        }
    }

    /** A daemon thread that takes {@code one}, then waits for {@code other} once both threads hold theirs. */
    private static Thread deadlocking(String name, ReentrantLock one, ReentrantLock other, CountDownLatch bothHeld) {
        Thread t = new Thread(
                () -> {
                    one.lock();
                    bothHeld.countDown();
                    try {
                        bothHeld.await();
                        other.lockInterruptibly();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
