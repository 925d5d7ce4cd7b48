package dev.kvs.replication.primary;

import dev.kvs.core.KvStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;

/**
 * A store whose reads of the kind the value shipper makes ({@code get}, {@code header}, {@code readRange}) throw
 * when a test's {@link Fault} says so; every other call goes straight to the store it wraps.
 */
final class FaultyStore {
    /** The reads a fault may hit. */
    static final Set<String> READS = Set.of("get", "header", "readRange");

    /** Decides, at each read, whether it fails. */
    interface Fault {
        /** What the read {@code read} of {@code key} throws, or null to let it read. */
        Throwable at(String read, byte[] key);
    }

    /** An exception a test threw, not a real failure of the store. */
    static final class InjectedException extends RuntimeException {
        InjectedException(String read) {
            super("injected: " + read + " failed");
        }
    }

    /** An error a test threw (as an {@link OutOfMemoryError} of direct memory would be), not a real one. */
    static final class InjectedError extends Error {
        InjectedError(String read) {
            super("injected error: " + read + " failed");
        }
    }

    private FaultyStore() {}

    /** {@code store}, with {@code fault} asked before each of its {@link #READS}. */
    static KvStore wrap(KvStore store, Fault fault) {
        return (KvStore) Proxy.newProxyInstance(
                KvStore.class.getClassLoader(), new Class<?>[] {KvStore.class}, (proxy, method, args) -> {
                    if (READS.contains(method.getName()) && args[0] instanceof byte[] key) {
                        Throwable t = fault.at(method.getName(), key);
                        if (t != null) throw t;
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
