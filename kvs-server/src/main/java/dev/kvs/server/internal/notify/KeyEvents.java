package dev.kvs.server.internal.notify;

import java.nio.charset.StandardCharsets;

/**
 * A node's keyspace notifications: which classes are on ({@code notify-keyspace-events}, set at start
 * and by {@code CONFIG SET}) and the publishing of one event, as Redis's {@code notifyKeyspaceEvent}:
 * {@code __keyspace@0__:<key>} with the event's name, then {@code __keyevent@0__:<event>} with the key.
 * kvs has one database, 0.
 *
 * <p>Each site that changes a key calls {@link #emit} once per event, right after its write is done,
 * in Redis's order of events for that command. With notifications off (the default) a call costs one
 * volatile read. Thread-safe: emitted from event loops, the active expiry thread and scripts.
 */
public final class KeyEvents {
    private static final byte[] KEYSPACE = "__keyspace@0__:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEYEVENT = "__keyevent@0__:".getBytes(StandardCharsets.US_ASCII);

    private final EventSink sink;
    private volatile int classes;

    /**
     * @param sink where events are published
     * @param classes the setting's classes at start ({@link EventClasses#parse})
     * @throws IllegalArgumentException if {@code classes} is negative (an unparsable setting)
     */
    public KeyEvents(EventSink sink, int classes) {
        if (sink == null) throw new IllegalArgumentException("sink == null (use EventSink.NONE)");
        if (classes < 0) throw new IllegalArgumentException("classes < 0: " + classes);
        this.sink = sink;
        this.classes = classes;
    }

    /** Notifications off, publishing nowhere: for tests and tools that start no pub/sub. */
    public static KeyEvents off() {
        return new KeyEvents(EventSink.NONE, 0);
    }

    /** The classes on now. */
    public int classes() {
        return classes;
    }

    /** Sets the classes on from now ({@code CONFIG SET notify-keyspace-events}). */
    public void classes(int value) {
        if (value < 0) throw new IllegalArgumentException("classes < 0: " + value);
        classes = value;
    }

    /** True if events of {@code eventClass} are published now: for a site whose event costs work to find. */
    public boolean on(int eventClass) {
        return (classes & eventClass) != 0;
    }

    /**
     * Publishes {@code event} on {@code key} if its class is on.
     *
     * @param eventClass one of {@link EventClasses}' classes
     * @param event Redis's name of the event ({@code set}, {@code del}, {@code expired}, ...)
     */
    public void emit(int eventClass, String event, byte[] key) {
        int on = classes;
        if ((on & eventClass) == 0) return;
        byte[] name = event.getBytes(StandardCharsets.US_ASCII);
        if ((on & EventClasses.KEYSPACE) != 0) sink.publish(concat(KEYSPACE, key), name);
        if ((on & EventClasses.KEYEVENT) != 0) sink.publish(concat(KEYEVENT, name), key);
    }

    private static byte[] concat(byte[] prefix, byte[] rest) {
        byte[] out = new byte[prefix.length + rest.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(rest, 0, out, prefix.length, rest.length);
        return out;
    }
}
