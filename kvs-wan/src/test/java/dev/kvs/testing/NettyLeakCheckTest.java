package dev.kvs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * {@link NettyLeakCheck} on test classes that leak on purpose, run by the JUnit test kit: a dropped
 * buffer fails its test with Netty's report, a released one passes, and a test that leaves no buffer
 * unreleased costs no collection.
 */
class NettyLeakCheckTest {

    private static EngineExecutionResults run(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(testClass))
                .execute();
    }

    private static String failure(Event e) {
        return e.getPayload(TestExecutionResult.class)
                .flatMap(TestExecutionResult::getThrowable)
                .map(Throwable::getMessage)
                .orElse("");
    }

    @Test
    void aTestThatDropsABufferUnreleasedFailsWithNettysReportNamingIt() {
        EngineExecutionResults events = run(DropsABuffer.class);

        events.testEvents().assertStatistics(s -> s.started(2).succeeded(1).failed(1));
        Event failed = events.testEvents().failed().list().get(0);
        assertThat(failed.getTestDescriptor().getDisplayName()).isEqualTo("dropsAPooledDirectBuffer()");
        assertThat(failure(failed))
                .startsWith(
                        "leak during dropsAPooledDirectBuffer(): 1 Netty buffer(s) it made garbage-collected without"
                                + " release(), 1 LEAK report(s)")
                .contains("LEAK: ByteBuf.release() was not called")
                .contains("tracked during #")
                .contains(DropsABuffer.class.getName() + "#dropsAPooledDirectBuffer()")
                .contains("touched by the leaking test");
    }

    @Test
    void aBufferLeakedByAClassFixtureFailsTheClass() {
        EngineExecutionResults events = run(FixtureDropsABuffer.class);

        events.testEvents().assertStatistics(s -> s.started(1).succeeded(1));
        List<Event> failedContainers = events.containerEvents().failed().list();
        assertThat(failedContainers).hasSize(1);
        assertThat(failure(failedContainers.get(0)))
                .contains("LEAK: ByteBuf.release() was not called")
                .contains("the fixtures of " + FixtureDropsABuffer.class.getName());
    }

    @Test
    void aTestThatReleasesEverythingItMadeCostsNoCollection() {
        long before = NettyLeakCheck.RECORDER.collections();

        run(ReleasesEverything.class)
                .testEvents()
                .assertStatistics(s -> s.started(2).succeeded(2));

        assertThat(NettyLeakCheck.RECORDER.collections()).isEqualTo(before);
    }

    /** Run only by the test kit above: one of its tests leaks. */
    @ExtendWith(NettyLeakCheck.class)
    static class DropsABuffer {
        @Test
        void dropsAPooledDirectBuffer() {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
            b.writeLong(42);
            b.touch("touched by the leaking test");
        }

        @Test
        void releasesItsBuffer() {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
            b.writeLong(42);
            b.release();
        }
    }

    /** Run only by the test kit above: its {@code @BeforeAll} leaks. */
    @ExtendWith(NettyLeakCheck.class)
    static class FixtureDropsABuffer {
        private static final List<ByteBuf> held = new ArrayList<>();

        @BeforeAll
        static void holdABuffer() {
            held.add(Unpooled.directBuffer(32).writeInt(7));
        }

        @AfterAll
        static void dropIt() {
            held.clear();
        }

        @Test
        void passes() {
            assertThat(held).hasSize(1);
        }
    }

    /** Run only by the test kit above: nothing leaks. */
    @ExtendWith(NettyLeakCheck.class)
    static class ReleasesEverything {
        @Test
        void allocatesAndReleases() {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(16);
            ByteBuf slice = b.retainedSlice();
            slice.release();
            b.release();
        }

        @Test
        void allocatesNothing() {
            assertThat(1 + 1).isEqualTo(2);
        }
    }
}
