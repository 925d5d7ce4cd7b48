package dev.kvs.core;

/**
 * Told what becomes of a {@link ValueStage} as it is written: how much of it another thread may read
 * ({@link ValueStage#readRange}), and whether it became a key's record or was given up. Cut-through
 * replication uses it to ship a large value while its bytes still arrive, and to learn the record's
 * header (or that there is none) once the last byte is in.
 *
 * <p>Called on the thread that writes, commits or closes the stage, in the middle of that call (a
 * commit even under the key's lock): an implementation must not block and must not throw (an
 * exception would reach the writer's call after the stage changed). Hand the event to another thread
 * instead. Stages that cannot be read while written (such as {@link HeapValueStage}) never call it.
 */
public interface StageListener {
    /**
     * A write made more of the stage readable: bytes {@code [0, readable)} may now be read with {@link
     * ValueStage#readRange}. Called at most once per write call, with increasing values; the last is
     * {@link ValueStage#length()}.
     */
    void readable(int readable);

    /**
     * The stage became a key's record with {@code header} (its {@link RecordHeader#txId()}, {@link
     * RecordHeader#checksum()} and {@link RecordHeader#expireAtMillis()}): called by {@link
     * KvStore#putStaged} under the key's lock right after the record was written, before it returns.
     * Called at most once; {@link #abandoned} is never called after it.
     */
    void committed(RecordHeader header);

    /**
     * The stage was closed without being committed (also after {@link KvStore#putStaged} failed or
     * declined, once the caller closes it): its bytes are gone, and {@link ValueStage#readRange} returns
     * false. Called at most once, after the stage's chunks were freed; never after {@link #committed}.
     */
    void abandoned();
}
