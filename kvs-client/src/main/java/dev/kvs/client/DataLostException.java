package dev.kvs.client;

import dev.kvs.client.internal.Keys;

/**
 * {@code -LOST <key> <txid>}: the key's latest write was acknowledged by the old primary, but its
 * value never reached this DC and never will. The key is fenced (reads and writes answer this)
 * until an operator resolves it or the old primary's copy is recovered. Retrying does not help; the
 * loss manifest on the admin port lists every such key.
 */
public class DataLostException extends KvsClientException {
    private final byte[] key;
    private final String txId;

    /**
     * @param message what happened, usually the server's error text
     * @param key the key, as sent (copied)
     * @param txId the transaction identifier {@code epoch:seq} of the lost write
     */
    public DataLostException(String message, byte[] key, String txId) {
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

    /** The lost write's transaction identifier, {@code "epoch:seq"}, or {@code "?"} if the server named none. */
    public String txId() {
        return txId;
    }
}
