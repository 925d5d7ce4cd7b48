package dev.kvs.replication.backup;

import dev.kvs.core.log.ThrottledLog;
import dev.kvs.replication.BackupStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WARNs of a replication listener about connections it refuses or closes, one {@link ThrottledLog}
 * per kind: a stranger reconnecting in a tight loop gets a few lines a minute written, not one per
 * attempt (it once wrote 963,000 in 35 s); the counts are in {@link BackupStatus}. Thread-safe.
 */
final class RefusalLogs {
    private static final Logger log = LoggerFactory.getLogger(RealReplicationServer.class);

    /** A connection in its handshake closed to make room for a newer one. */
    final ThrottledLog dropped = new ThrottledLog(log);
    /** A connection that did not finish its handshake within the authentication deadline. */
    final ThrottledLog deadline = new ThrottledLog(log);
    /** A connection whose first frame was not {@code Hello}. */
    final ThrottledLog notHello = new ThrottledLog(log);
    /** A peer that proves a cluster secret this node does not have. */
    final ThrottledLog unexpectedSecret = new ThrottledLog(log);
    /** A connection that failed before its handshake was done. */
    final ThrottledLog failed = new ThrottledLog(log);
    /** A {@code Hello} answered {@code Reject}. */
    final ThrottledLog rejected = new ThrottledLog(log);
}
