package dev.kvs.bench.drill;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Quiets the logs of the drill's own clients and WAN link while a drill runs: a dead or cut-off
 * primary is the point of a drill, and its "connection refused" lines would bury the progress line.
 * A sharded drill's embedded ZooKeeper and its Curator clients log every session at INFO: quieted too.
 * Restores the levels on close. Does nothing if logging is not Logback.
 */
final class QuietLogs implements AutoCloseable {
    private static final String[] NAMES = {"dev.kvs.client", "dev.kvs.wan", "org.apache.zookeeper", "org.apache.curator"
    };

    private final Map<Logger, Level> saved = new LinkedHashMap<>();

    QuietLogs() {
        for (String name : NAMES) {
            if (LoggerFactory.getLogger(name) instanceof Logger l) {
                saved.put(l, l.getLevel());
                l.setLevel(Level.ERROR);
            }
        }
    }

    @Override
    public void close() {
        saved.forEach(Logger::setLevel);
    }
}
