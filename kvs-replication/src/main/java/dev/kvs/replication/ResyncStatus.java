package dev.kvs.replication;

/**
 * What a primary's full resyncs listed and shipped, since it started. A resync lists every key with its
 * TxId, length and checksum; the backup answers with the values it lacks, and only those are shipped:
 * a backup that was away gets what changed meanwhile, an empty one gets everything.
 *
 * @param keysListed keys listed
 * @param valueBytesListed bytes of the values listed: what a resync shipping every value would send
 * @param valuesWanted values the backup asked for
 * @param valueBytesWanted their bytes: what was shipped (a key rewritten meanwhile ships its newer value
 *     instead, as any write does)
 */
public record ResyncStatus(long keysListed, long valueBytesListed, long valuesWanted, long valueBytesWanted) {
    private static final ResyncStatus NONE = new ResyncStatus(0, 0, 0, 0);

    /** No resync yet. */
    public static ResyncStatus none() {
        return NONE;
    }

    /** Value bytes not shipped because the backup held them already. */
    public long valueBytesSaved() {
        return valueBytesListed - valueBytesWanted;
    }
}
