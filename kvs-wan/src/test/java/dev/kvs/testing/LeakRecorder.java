package dev.kvs.testing;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Netty's leak detectors, made by this factory so that every {@code LEAK} they find is recorded here
 * (and still logged), every tracked resource names the test it was made in (the hint of its report),
 * and a test that released everything it made can be passed without a collection.
 *
 * <p>Netty finds a leak only when a tracked resource has been garbage-collected unreleased and a
 * later allocation polls the detector's reference queue, which the reference handler fills a little
 * after the collection; {@link #settle} forces both, and tells the leaks of one window from a weak
 * reference of its own to each resource, which the collector clears at once.
 */
final class LeakRecorder extends ResourceLeakDetectorFactory {
    /** How long {@link #settle} waits for the collector, and then for Netty's reports. */
    private static final long REPORT_WAIT_MS = 2000;

    private final List<RecordingDetector<?>> detectors = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<String> reports = new ConcurrentLinkedQueue<>();
    private final AtomicLong windows = new AtomicLong();
    private final AtomicLong collections = new AtomicLong();
    private volatile Window current;

    private LeakRecorder() {
        current = new Window("outside any test");
    }

    /**
     * Makes this the factory of every leak detector Netty creates from now on. Netty creates its
     * detectors in static initialisers ({@code AbstractByteBuf}'s for every buffer): one created
     * before this call goes unrecorded, which {@link #recordsByteBufs()} tells.
     */
    static LeakRecorder install() {
        LeakRecorder r = new LeakRecorder();
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(r);
        return r;
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
            Class<T> resource, int samplingInterval, long maxActive) {
        RecordingDetector<T> d = new RecordingDetector<>(resource, samplingInterval, this);
        detectors.add(d);
        return d;
    }

    /** True if the detector of every {@code ByteBuf} is one of this factory's. */
    boolean recordsByteBufs() throws ClassNotFoundException {
        // its static initialiser creates the detector, through whichever factory is set then
        Class.forName("io.netty.buffer.AbstractByteBuf", true, LeakRecorder.class.getClassLoader());
        return detectors.stream().anyMatch(d -> d.resource.getName().equals("io.netty.buffer.ByteBuf"));
    }

    /** Starts a window: resources tracked from now on are counted in it and named {@code label}. */
    Window open(String label) {
        Window w = new Window("#" + windows.incrementAndGet() + " " + label);
        current = w;
        return w;
    }

    /** The window resources are counted in now. */
    Window current() {
        return current;
    }

    /** Resources tracked from now on are counted in {@code w}. */
    void resume(Window w) {
        current = w;
    }

    /**
     * Collects garbage and returns how many of the resources tracked in {@code w} were collected
     * unreleased: leaks. Waits until Netty has reported them too (its report says where each was made
     * and touched), or {@value #REPORT_WAIT_MS} ms.
     */
    int settle(Window w) throws InterruptedException {
        collections.incrementAndGet();
        ReferenceQueue<Object> cleared = new ReferenceQueue<>();
        WeakReference<Object> sentinel = new WeakReference<>(new Object(), cleared);
        System.gc();
        if (cleared.remove(REPORT_WAIT_MS) == null) {
            throw new IllegalStateException("no reference was cleared within " + REPORT_WAIT_MS
                    + " ms of System.gc(): explicit collections disabled (-XX:+DisableExplicitGC)?");
        }
        Reference.reachabilityFence(sentinel); // a reference enqueues only while itself reachable
        int leaked = w.collectedUnreleased();
        // the collector cleared the references at once; the reference handler queues them soon after
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPORT_WAIT_MS);
        while (true) {
            for (RecordingDetector<?> d : detectors) d.poll();
            if (reports.size() >= leaked || System.nanoTime() >= deadline) return leaked;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** The leaks reported since the last call. */
    List<String> drain() {
        List<String> out = new ArrayList<>();
        for (String r; (r = reports.poll()) != null; ) out.add(r);
        return out;
    }

    /** Collections {@link #settle} has forced so far. */
    long collections() {
        return collections.get();
    }

    /** Resources tracked while one test (or one class's fixtures) ran, until released. */
    static final class Window {
        private final String label;
        private final Set<WindowedTracker<?>> unreleased = ConcurrentHashMap.newKeySet();

        private Window(String label) {
            this.label = label;
        }

        /** True if a resource tracked in this window has not been released (yet). */
        boolean holdsUnreleased() {
            return !unreleased.isEmpty();
        }

        /** Forgets, and counts, the resources of this window collected without being released. */
        private int collectedUnreleased() {
            int n = 0;
            for (WindowedTracker<?> t : unreleased) {
                if (t.refersTo(null) && unreleased.remove(t)) n++;
            }
            return n;
        }
    }

    /** A detector that records its reports, hints each resource with its window and counts it there. */
    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        private final Class<T> resource;
        private final LeakRecorder recorder;

        RecordingDetector(Class<T> resource, int samplingInterval, LeakRecorder recorder) {
            super(resource, samplingInterval);
            this.resource = resource;
            this.recorder = recorder;
        }

        @Override
        public ResourceLeakTracker<T> track(T obj) {
            Window w = recorder.current;
            ResourceLeakTracker<T> leak = super.track(obj);
            if (leak == null) return null;
            WindowedTracker<T> t = new WindowedTracker<>(obj, leak, w);
            w.unreleased.add(t);
            return t;
        }

        /** Reports the leaks collected since the last poll (the allocation itself is released at once). */
        @SuppressWarnings("unchecked")
        void poll() {
            Object probe = new Object();
            super.trackForcibly((T) probe).close((T) probe);
        }

        @Override
        protected boolean needReport() {
            return true; // whatever the logging configuration says
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            super.reportTracedLeak(resourceType, records);
            recorder.reports.add("LEAK: " + resourceType + ".release() was not called before it was"
                    + " garbage-collected." + records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            super.reportUntracedLeak(resourceType);
            recorder.reports.add("LEAK: " + resourceType + ".release() was not called before it was"
                    + " garbage-collected (no record of where: run with -Dio.netty.leakDetection.level=paranoid)");
        }

        @Override
        protected Object getInitialHint(String resourceType) {
            return "tracked during " + recorder.current.label;
        }
    }

    /**
     * Netty's tracker of one resource, and a weak reference to that resource: cleared by the collector
     * while the resource is still in its window's unreleased set, it was leaked.
     */
    private static final class WindowedTracker<T> extends WeakReference<Object> implements ResourceLeakTracker<T> {
        private final ResourceLeakTracker<T> leak;
        private final Window window;

        WindowedTracker(T resource, ResourceLeakTracker<T> leak, Window window) {
            super(resource);
            this.leak = leak;
            this.window = window;
        }

        @Override
        public void record() {
            leak.record();
        }

        @Override
        public void record(Object hint) {
            leak.record(hint);
        }

        @Override
        public boolean close(T trackedObject) {
            boolean closed = leak.close(trackedObject);
            if (closed) window.unreleased.remove(this);
            return closed;
        }
    }
}
