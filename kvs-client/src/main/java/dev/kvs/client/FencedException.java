package dev.kvs.client;

/**
 * {@code -FENCED <epoch>}: the request carried or reached an older epoch than the cluster's (a
 * demoted primary refusing a write). Nothing was written.
 */
public class FencedException extends KvsClientException {
    private final long epoch;

    /**
     * @param message the server's error text
     * @param epoch the epoch the server named, or -1 if it named none
     */
    public FencedException(String message, long epoch) {
        super(message);
        this.epoch = epoch;
    }

    /** The cluster epoch the server named, or -1 if it named none. */
    public long epoch() {
        return epoch;
    }
}
