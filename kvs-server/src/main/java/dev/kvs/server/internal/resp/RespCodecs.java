package dev.kvs.server.internal.resp;

import dev.kvs.server.config.NodeConfig;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * The client port's codec on its own, for benchmarks ({@code RespCodecBenchmark} in kvs-bench): the
 * request decoder and the reply encoder the port installs, each on an {@link EmbeddedChannel}, with the
 * node's default limits.
 */
public final class RespCodecs {
    private RespCodecs() {}

    /**
     * A channel whose inbound side decodes requests as an authenticated client connection of a node with
     * the default limits does (bulk strings preallocated from a budget of its own); {@code readInbound()}
     * gives the commands.
     */
    public static EmbeddedChannel decoder() {
        NodeConfig defaults = NodeConfig.builder().build();
        return new EmbeddedChannel(
                RespServer.decoder(defaults, new ClientStats(), new BulkPreallocBudget(defaults.bulkPreallocBytes())));
    }

    /** A channel whose outbound side encodes replies as the client port does; {@code readOutbound()} gives the bytes. */
    public static EmbeddedChannel encoder() {
        return new EmbeddedChannel(new RespReplyEncoder());
    }

    /** The reply of a GET that found {@code value}. */
    public static Object bulkReply(byte[] value) {
        return Replies.bulk(value);
    }
}
