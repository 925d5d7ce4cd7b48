package dev.kvs.client;

import dev.kvs.client.internal.Keys;

/**
 * {@code -UNFINISHED <key> <txid>}: after a failover, the key's latest write is known to the new
 * primary (its identifier arrived) but its value has not arrived yet. The client already retried
 * with backoff for {@link KvsClient.Builder#unfinishedRetryDeadline(java.time.Duration)
 * unfinishedRetryDeadline}; the value may still arrive (if the old primary is only cut off), or the
 * key may later become {@link DataLostException lost}. Nothing was read or written.
 */
public class UnfinishedKeyException extends KvsClientException {
    private final byte[] key;
    private final String txId;

    /**
     * @param message what happened, usually the server's error text
     * @param key the key, as sent (copied)
     * @param txId the transaction identifier {@code epoch:seq} of the write whose value is missing
     */
    public UnfinishedKeyException(String message, byte[] key, String txId) {
        super(message);
        this.key = key.clone();
        this.txId = txId;
    }

    /** The key, a copy of the bytes sent. */
    public byte[] key() {
        return key.clone();
    }

    /** The key as text: UTF-8 if it is printable, else with {@code \xNN} escapes; long keys shortened. */
    public String printableKey() {
        return Keys.printable(key);
    }

    /** The missing write's transaction identifier, {@code "epoch:seq"}, or {@code "?"} if the server named none. */
    public String txId() {
        return txId;
    }
}
