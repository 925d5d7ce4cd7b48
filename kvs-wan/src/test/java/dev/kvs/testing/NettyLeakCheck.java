package dev.kvs.testing;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test during which Netty reports a leak: a buffer (or any resource Netty tracks) garbage-collected
 * without {@code release()}. The tests run with {@code -Dio.netty.leakDetection.level=paranoid}, which
 * records where every buffer was made and touched; without this extension its reports would only be
 * logged, and pass.
 *
 * <p>Registered for every test of the modules that have this module's test jar on their test class path,
 * by {@code META-INF/services} and {@code junit.jupiter.extensions.autodetection.enabled} (set for
 * Surefire in the parent pom). After each test, and after each class for what its fixtures made, it
 * forces a collection and has Netty's detectors report what it collected unreleased; it skips that
 * collection when everything tracked in the test was released (a test that touched no buffer costs
 * nothing). A leak found later than its test (a buffer that stayed reachable a while) fails the test
 * that finds it, and its report names the test it was made in.
 */
public final class NettyLeakCheck
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    /** Installed before any test class is initialised: the extension is loaded when the engine starts. */
    static final LeakRecorder RECORDER = LeakRecorder.install();

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NettyLeakCheck.class);

    @Override
    public void beforeAll(ExtensionContext context) throws ClassNotFoundException {
        if (!RECORDER.recordsByteBufs()) {
            throw new ExtensionConfigurationException("Netty's ByteBuf leak detector was created before "
                    + NettyLeakCheck.class.getSimpleName() + " could install its factory, so leaks would pass"
                    + " unseen: something initialised io.netty.buffer before the test engine started");
        }
        open(context, "the fixtures of " + context.getRequiredTestClass().getName());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        open(context, context.getRequiredTestClass().getName() + "#" + context.getDisplayName());
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        check(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        check(context);
    }

    /** Counts what is tracked from now on in a window of its own; {@link #check} returns to the enclosing one. */
    private static void open(ExtensionContext context, String label) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        LeakRecorder.Window enclosing = RECORDER.current();
        store.put(Windows.class, new Windows(enclosing, RECORDER.open(label)));
    }

    private static void check(ExtensionContext context) throws InterruptedException {
        Windows w = context.getStore(NAMESPACE).remove(Windows.class, Windows.class);
        if (w == null) return;
        RECORDER.resume(w.enclosing());
        int collected = w.own().holdsUnreleased() ? RECORDER.settle(w.own()) : 0;
        List<String> leaks = RECORDER.drain();
        if (collected > 0 || !leaks.isEmpty()) {
            throw new AssertionError(String.format(
                    "leak during %s: %d Netty buffer(s) it made garbage-collected without release(), %d LEAK"
                            + " report(s) from Netty (each names the test that made the buffer):%n%s",
                    context.getDisplayName(), collected, leaks.size(), String.join("\n\n", leaks)));
        }
    }

    private record Windows(LeakRecorder.Window enclosing, LeakRecorder.Window own) {}
}
