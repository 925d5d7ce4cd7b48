package dev.kvs.server;

import dev.kvs.core.KvsException;
import java.io.IOException;
import java.net.BindException;
import java.util.Locale;

/** A node could not start: a port is taken, an address cannot be bound, or it was interrupted. */
public final class NodeStartException extends KvsException {
    public NodeStartException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * One line naming the address and which port could not be bound, e.g. {@code cannot listen on
     * 127.0.0.1:6380 (client port): address already in use}.
     *
     * @param which the port's job: {@code client port}, {@code replication port}, {@code admin port}
     */
    public static NodeStartException cannotListen(String host, int port, String which, Throwable cause) {
        return new NodeStartException(
                "cannot listen on " + host + ":" + port + " (" + which + "): " + reason(cause), cause);
    }

    /**
     * True if {@code t} or one of its causes is a failure to bind a socket ({@link BindException}, or
     * Netty's native {@code bind(..) failed} error).
     */
    public static boolean isBindFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof BindException) return true;
            if (c instanceof IOException
                    && c.getMessage() != null
                    && c.getMessage().contains("bind(")) return true;
        }
        return false;
    }

    /** The operating system's words, without wrappers: {@code address already in use}. */
    static String reason(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        int colon = m.lastIndexOf(": ");
        if (colon >= 0) m = m.substring(colon + 2); // "bind(..) failed: Address already in use"
        m = m.strip();
        return m.isEmpty()
                ? root.getClass().getSimpleName()
                : m.substring(0, 1).toLowerCase(Locale.ROOT) + m.substring(1);
    }
}
