package dev.kvs.server.internal.admin;

/**
 * A route refuses a request: bad input (400), a state that forbids it (409)... The admin server
 * answers it as a JSON error with {@link #status()} and the message, and logs nothing above debug: it
 * is the client's mistake, not the node's.
 */
public final class AdminException extends RuntimeException {
    private final int status;

    /**
     * @param status a 4xx HTTP status
     * @param message what was wrong and, where it helps, what to send instead
     */
    public AdminException(int status, String message) {
        super(message, null, false, false);
        if (status < 400 || status > 499) throw new IllegalArgumentException("status is not in 400..499: " + status);
        this.status = status;
    }

    /** A 400: the request itself is wrong (a parameter missing, malformed or out of range). */
    public static AdminException badRequest(String message) {
        return new AdminException(400, message);
    }

    /** A 409: the request is well formed but the node's state forbids it now. */
    public static AdminException conflict(String message) {
        return new AdminException(409, message);
    }

    /** The HTTP status to answer. */
    public int status() {
        return status;
    }
}
