package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.WriteStages;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CommitWakeupTest {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    /** What was woken, in order: "keys" or "values". */
    private final List<String> woken = Collections.synchronizedList(new ArrayList<>());

    private final CommitWakeup wakeup = new CommitWakeup(
            values -> {
                woken.add("keys");
                if (values) woken.add("values");
            },
            WriteStages.OFF);

    @AfterEach
    void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void fromAPlainThreadEveryCommitWakesAtOnceTheKeysFirst() {
        wakeup.committed(true);
        assertThat(woken).containsExactly("keys", "values");
        wakeup.committed(false); // nothing queued to ship (a FLUSH, or a key already queued)
        wakeup.committed(true);
        assertThat(woken).containsExactly("keys", "values", "keys", "keys", "values");
    }

    @Test
    void fromAnEventLoopTheCommitsOfOneTurnWakeOnceAfterIt() throws Exception {
        EventLoop loop = group.next();
        List<String> duringTheTurn = loop.submit(() -> {
                    for (int i = 0; i < 50; i++) wakeup.committed(i % 2 == 0);
                    return List.copyOf(woken);
                })
                .get(5, TimeUnit.SECONDS);
        // a task submitted after the turn runs after the wake-up the turn scheduled (tasks run in order)
        List<String> afterIt = loop.submit(() -> List.copyOf(woken)).get(5, TimeUnit.SECONDS);

        assertThat(duringTheTurn).isEmpty();
        assertThat(afterIt).containsExactly("keys", "values");
    }

    @Test
    void aTurnThatQueuedNoValueWakesOnlyTheKeyChannel() throws Exception {
        EventLoop loop = group.next();
        loop.submit(() -> {
                    wakeup.committed(false);
                    wakeup.committed(false);
                })
                .get(5, TimeUnit.SECONDS);
        assertThat(loop.submit(() -> List.copyOf(woken)).get(5, TimeUnit.SECONDS))
                .containsExactly("keys");
    }

    @Test
    void twoLoopsCommittingAtOnceLeaveNoQueuedValueWithoutAShipperWakeUpAfterIt() throws Exception {
        // each commit first queues its value (counted), as Replicator does; each shipper wake-up notes how
        // many values were queued when it ran: every value must be followed by one
        AtomicLong queued = new AtomicLong();
        AtomicLong covered = new AtomicLong();
        CommitWakeup counted = new CommitWakeup(
                values -> {
                    if (values) covered.accumulateAndGet(queued.get(), Math::max);
                },
                WriteStages.OFF);
        EventLoop a = group.next();
        EventLoop b = group.next();
        for (int turn = 0; turn < 500; turn++) {
            Runnable commit = () -> {
                queued.incrementAndGet();
                counted.committed(true);
            };
            var fa = a.submit(commit);
            var fb = b.submit(commit);
            fa.get(5, TimeUnit.SECONDS);
            fb.get(5, TimeUnit.SECONDS);
            // the wake-ups the two tasks scheduled have run once a task queued after each has
            a.submit(() -> {}).get(5, TimeUnit.SECONDS);
            b.submit(() -> {}).get(5, TimeUnit.SECONDS);
            assertThat(covered.get()).as("turn %d", turn).isEqualTo(queued.get());
        }
    }
}
