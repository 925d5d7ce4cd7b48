package dev.kvs.replication.backup;

import dev.kvs.replication.BackupStatus;
import java.util.concurrent.atomic.LongAdder;

/** Event counts of one backup, written by the event loops and read by {@link BackupStatus}. */
final class BackupCounters {
    final LongAdder keyPackets = new LongAdder();
    final LongAdder duplicateKeyPackets = new LongAdder();
    final LongAdder resendsRequested = new LongAdder();
    final LongAdder valuesApplied = new LongAdder();
    final LongAdder valuesSuperseded = new LongAdder();
    final LongAdder valuesNacked = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder resyncs = new LongAdder();
    final LongAdder keysRemovedByResync = new LongAdder();
    final LongAdder refusedConnections = new LongAdder();
    final LongAdder droppedConnections = new LongAdder();
    final LongAdder flushes = new LongAdder();
    final LongAdder keysRemovedByFlush = new LongAdder();
    final LongAdder renamesFromCopy = new LongAdder();
    final LongAdder tombstonesCollected = new LongAdder();
    final LongAdder tombstoneSweeps = new LongAdder();
    final LongAdder valuesNotAwaited = new LongAdder();
    final LongAdder deletesHeld = new LongAdder();
    final LongAdder unitsApplied = new LongAdder();
    final LongAdder unitsBroken = new LongAdder();
    final LongAdder resyncKeysListed = new LongAdder();
    final LongAdder resyncValuesWanted = new LongAdder();
}
