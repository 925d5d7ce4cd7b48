package dev.kvs.server.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Optional;

/**
 * The replication part of {@link NodeStatus}, as {@code /status} and {@code INFO} show it.
 *
 * <p>Replication issues add their fields here (link state, key-ack watermark, unfinished keys,
 * value lag...) and build it in {@link NodeStatus#of(NodeContext)}.
 *
 * @param state link state: {@code none} while no replication runs
 * @param peer the other DC's replication address, {@code null} if none is configured
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ReplicationStatus(String state, String peer) {
    public static final String NONE = "none";

    /** No replication running, with the configured peer if any. */
    public static ReplicationStatus none(Optional<String> peer) {
        return new ReplicationStatus(NONE, peer.orElse(null));
    }
}
