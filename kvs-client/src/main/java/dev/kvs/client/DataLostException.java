package dev.kvs.client;

/**
 * {@code -LOST <key> <txid>}: the key's latest write was acknowledged by the old primary, but its
 * value never reached this DC and never will. The key is fenced (reads and writes answer this)
 * until an operator resolves it or the old primary's copy is recovered. Retrying does not help; the
 * loss manifest on the admin port lists every such key.
 */
public class DataLostException extends FencedKeyException {
    /**
     * @param message what happened, usually the server's error text
     * @param key the key, as sent (copied)
     * @param txId the transaction identifier {@code epoch:seq} of the missing write
     */
    public DataLostException(String message, byte[] key, String txId) {
        super(message, key, txId);
    }
}
