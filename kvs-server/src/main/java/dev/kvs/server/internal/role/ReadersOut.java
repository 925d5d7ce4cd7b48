package dev.kvs.server.internal.role;

import java.util.function.Supplier;

/**
 * Runs a step while no client command of the node runs: on a backup, the replication listener applies
 * the writes of one {@code EXEC} inside it ({@link dev.kvs.replication.BackupNode#alone}), so a {@code
 * READONLY} reader sees all of them or none. The client port's barrier implements it; the node hands it
 * to its {@link RoleMachine} before starting.
 */
public interface ReadersOut {
    /** Nothing to keep out: runs the step at once (a node without a client port, tests). */
    ReadersOut NONE = new ReadersOut() {
        @Override
        public <T> T alone(Supplier<T> fn) {
            return fn.get();
        }
    };

    /** Runs {@code fn} with no command running; commands wait until it returns. */
    <T> T alone(Supplier<T> fn);
}
