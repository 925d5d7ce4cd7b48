package dev.kvs.client;

/**
 * A key the server fences after a failover, with the TxId of the write it is missing: the base of
 * {@link UnfinishedKeyException} (the value may still arrive) and {@link DataLostException} (it will
 * not). Catch this to handle both alike.
 */
public abstract class FencedKeyException extends KvsClientException {
    private final byte[] key;
    private final String txId;

    /**
     * @param message what happened, usually the server's error text
     * @param key the key, as sent (copied)
     * @param txId the transaction identifier {@code epoch:seq} of the missing write
     */
    protected FencedKeyException(String message, byte[] key, String txId) {
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
