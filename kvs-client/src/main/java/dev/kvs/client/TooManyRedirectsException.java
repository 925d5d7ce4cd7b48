package dev.kvs.client;

/**
 * In cluster mode, a request was answered {@code -MOVED} more often than {@code
 * KvsClient.Builder#maxRedirects} allows (the slots are moving faster than the client follows, or two
 * nodes each name the other). Nothing was executed: every {@code -MOVED} reply means the node did
 * not run the command. Retrying later is safe.
 */
public class TooManyRedirectsException extends KvsClientException {
    /** An exception with a message naming the request and the last {@code -MOVED} reply. */
    public TooManyRedirectsException(String message) {
        super(message);
    }
}
