package dev.kvs.client;

/**
 * {@code -UNFINISHED <key> <txid>}: after a failover, the key's latest write is known to the new
 * primary (its identifier arrived) but its value has not arrived yet. The client already retried
 * with backoff for {@link KvsClient.Builder#unfinishedRetryDeadline(java.time.Duration)
 * unfinishedRetryDeadline}; the value may still arrive (if the old primary is only cut off), or the
 * key may later become {@link DataLostException lost}. Nothing was read or written.
 */
public class UnfinishedKeyException extends FencedKeyException {
    /**
     * @param message what happened, usually the server's error text
     * @param key the key, as sent (copied)
     * @param txId the transaction identifier {@code epoch:seq} of the missing write
     */
    public UnfinishedKeyException(String message, byte[] key, String txId) {
        super(message, key, txId);
    }
}
