package dev.kvs.replication;

/**
 * The bound on a primary's exposure in time ({@link ReplicatorConfig#maxValueLag()}) and what it did. The lag
 * itself, the age of the oldest write whose value the backup has not acknowledged, is {@link
 * ReplicatorStatus#oldestPendingValueMillis()}.
 *
 * @param maxValueLagMillis the bound; 0 if off
 * @param projectedLagMillis how long the values pending now take to reach the backup at the measured
 *     drain rate (a write is held once the values ahead of it and its own would take 2/3 of the bound,
 *     or the lag reaches it); -1 while the rate is unknown
 * @param drainBytesPerSecond the rate the backup acknowledges value bytes at: per second of the last 10 s
 *     during which values were in flight; -1 while unknown (nothing in flight lately)
 * @param waits writes held because of the bound (they waited, then were written or refused with
 *     {@code BUSY})
 * @param waitMillis the time those writes waited, in all
 */
public record ValueLagStatus(
        long maxValueLagMillis, long projectedLagMillis, long drainBytesPerSecond, long waits, long waitMillis) {

    /** The status of a node that does not replicate. */
    public static ValueLagStatus off() {
        return new ValueLagStatus(0, 0, -1, 0, 0);
    }
}
