package dev.kvs.server.internal.resp;

import dev.kvs.server.config.NodeConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * Redis's protected mode for the client port: a node with no {@code requirepass} and no {@code
 * users} whose client port
 * listens on a non-loopback address serves only loopback clients, unless {@code protectedMode} is
 * false. Everyone else gets {@link #DENIED} and is closed. Immutable.
 */
final class ProtectedMode {
    /** The refusal, worded after Redis's so that operators recognise it; one line. */
    static final String DENIED = "DENIED kvs is running in protected mode because protected mode is enabled, no"
            + " requirepass or users are set, and the client port listens on a non-loopback address. In this mode"
            + " connections are only accepted from the loopback interface. To connect from other hosts, do one"
            + " of: 1) set requirepass or users (clients then AUTH); 2) bind the client port to a loopback address;"
            + " 3) if the network in front of this port is trusted, turn protected mode off: protectedMode: false"
            + " in the config file, or ./kvs server --protected-mode off. MAKE SURE the port is not reachable"
            + " from the internet if you do so.";

    private final boolean active;

    ProtectedMode(NodeConfig config) {
        this.active = config.protectedMode() && !config.clientAuthRequired() && !isLoopback(config.bind());
    }

    /** True if some clients may be refused: protected mode is on, there is no password, the bind is not loopback. */
    boolean active() {
        return active;
    }

    /** True if a client at {@code remote} must be refused. */
    boolean refuses(SocketAddress remote) {
        if (!active) return false;
        return !(remote instanceof InetSocketAddress inet
                && inet.getAddress() != null
                && inet.getAddress().isLoopbackAddress());
    }

    /** True if {@code host} resolves to a loopback address; an unresolvable one is not. */
    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
