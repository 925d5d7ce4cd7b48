package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.pubsub.PubSub;
import dev.kvs.server.internal.pubsub.Subscriptions;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Redis's pub/sub group, node-local as in Redis, with Redis 7.0.15's replies: {@code SUBSCRIBE}, {@code
 * UNSUBSCRIBE}, {@code PSUBSCRIBE}, {@code PUNSUBSCRIBE}, {@code SSUBSCRIBE}, {@code SUNSUBSCRIBE},
 * {@code PUBLISH}, {@code SPUBLISH}, {@code PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|SHARDNUMSUB|HELP}.
 * A subscribe answers one confirmation per channel (a push in RESP3); the connection's messages come
 * through its {@link ConnectionSubscriber}. While a RESP2 connection is subscribed, {@link CommandDispatch}
 * lets only the commands of {@link #allowedInSubscribeMode} run. {@code PUBLISH} is neither a data
 * command nor a write: it runs on a backup, in {@code MULTI} and from scripts.
 */
final class PubSubCommands {
    /** Redis 7.0.15's commands a RESP2 connection may run while subscribed. */
    private static final Set<String> IN_SUBSCRIBE_MODE = Set.of(
            "SUBSCRIBE",
            "UNSUBSCRIBE",
            "PSUBSCRIBE",
            "PUNSUBSCRIBE",
            "SSUBSCRIBE",
            "SUNSUBSCRIBE",
            "PING",
            "QUIT",
            "RESET");

    private static final byte[] PONG_WORD = "pong".getBytes(StandardCharsets.US_ASCII);

    private final PubSub pubSub;

    PubSubCommands(PubSub pubSub) {
        this.pubSub = pubSub;
    }

    void register(CommandTable table) {
        table.add("SUBSCRIBE", -2, 0, 0, 0, 0, (s, a) -> subscribe(s, a, Kind.CHANNEL));
        table.add("UNSUBSCRIBE", -1, 0, 0, 0, 0, (s, a) -> unsubscribe(s, a, Kind.CHANNEL));
        table.add("PSUBSCRIBE", -2, 0, 0, 0, 0, (s, a) -> subscribe(s, a, Kind.PATTERN));
        table.add("PUNSUBSCRIBE", -1, 0, 0, 0, 0, (s, a) -> unsubscribe(s, a, Kind.PATTERN));
        table.add("SSUBSCRIBE", -2, 0, 1, -1, 1, (s, a) -> subscribe(s, a, Kind.SHARD));
        table.add("SUNSUBSCRIBE", -1, 0, 1, -1, 1, (s, a) -> unsubscribe(s, a, Kind.SHARD));
        table.add("PUBLISH", 3, 0, 0, 0, 0, (s, a) -> Replies.integer(pubSub.publish(a[1], a[2])));
        table.add("SPUBLISH", 3, 0, 1, 1, 1, (s, a) -> Replies.integer(pubSub.publishToShard(a[1], a[2])));
        table.add("PUBSUB", -2, 0, 0, 0, 0, this::pubsub);
    }

    /** True if a RESP2 connection may run {@code spec} while subscribed. */
    static boolean allowedInSubscribeMode(CommandSpec spec) {
        return IN_SUBSCRIBE_MODE.contains(spec.name());
    }

    /** What any other command gets in subscribe mode, as Redis 7.0.15 words it. */
    static RedisMessage notInSubscribeMode(CommandSpec spec) {
        return Replies.error("ERR Can't execute '" + spec.name().toLowerCase(Locale.ROOT)
                + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
    }

    /** {@code PING [message]} in RESP2's subscribe mode: {@code pong} and the message (empty if none). */
    static RedisMessage pong(byte[] message) {
        return new ArrayRedisMessage(List.of(Replies.bulk(PONG_WORD), Replies.bulk(message)));
    }

    /** What a subscribe command subscribes to. */
    private enum Kind {
        CHANNEL("subscribe", "unsubscribe"),
        PATTERN("psubscribe", "punsubscribe"),
        SHARD("ssubscribe", "sunsubscribe");

        final byte[] subscribed;
        final byte[] unsubscribed;

        Kind(String subscribed, String unsubscribed) {
            this.subscribed = subscribed.getBytes(StandardCharsets.US_ASCII);
            this.unsubscribed = unsubscribed.getBytes(StandardCharsets.US_ASCII);
        }
    }

    private Subscriptions subscriptions(Session s) {
        if (s.subscriptions == null) s.subscriptions = pubSub.subscriptions(s.subscriber);
        return s.subscriptions;
    }

    private RedisMessage subscribe(Session s, byte[][] a, Kind kind) {
        Subscriptions subs = subscriptions(s);
        List<RedisMessage> replies = new ArrayList<>(a.length - 1);
        for (int i = 1; i < a.length; i++) {
            switch (kind) {
                case CHANNEL -> subs.subscribe(a[i]);
                case PATTERN -> subs.psubscribe(a[i]);
                case SHARD -> subs.ssubscribe(a[i]);
            }
            replies.add(confirmation(kind.subscribed, Replies.bulk(a[i]), count(subs, kind)));
        }
        return several(replies);
    }

    /** Unsubscribes from the names given, or from every one of the kind if none is. */
    private RedisMessage unsubscribe(Session s, byte[][] a, Kind kind) {
        Subscriptions subs = subscriptions(s);
        List<byte[]> names = new ArrayList<>();
        if (a.length > 1) {
            for (int i = 1; i < a.length; i++) names.add(a[i]);
        } else {
            names = switch (kind) {
                case CHANNEL -> subs.channels();
                case PATTERN -> subs.patterns();
                case SHARD -> subs.shardChannels();
            };
            if (names.isEmpty()) {
                return confirmation(kind.unsubscribed, FullBulkStringRedisMessage.NULL_INSTANCE, count(subs, kind));
            }
        }
        List<RedisMessage> replies = new ArrayList<>(names.size());
        for (byte[] name : names) {
            switch (kind) {
                case CHANNEL -> subs.unsubscribe(name);
                case PATTERN -> subs.punsubscribe(name);
                case SHARD -> subs.sunsubscribe(name);
            }
            replies.add(confirmation(kind.unsubscribed, Replies.bulk(name), count(subs, kind)));
        }
        return several(replies);
    }

    private static int count(Subscriptions subs, Kind kind) {
        return kind == Kind.SHARD ? subs.shardCount() : subs.count();
    }

    private static RedisMessage confirmation(byte[] what, RedisMessage name, int count) {
        return new TypedReplies.PushReply(List.of(Replies.bulk(what), name, Replies.integer(count)));
    }

    private static RedisMessage several(List<RedisMessage> replies) {
        return replies.size() == 1 ? replies.get(0) : new TypedReplies.SeveralReplies(replies);
    }

    private RedisMessage pubsub(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        switch (sub) {
            case "CHANNELS", "SHARDCHANNELS" -> {
                if (a.length > 3) return subcommandSyntax(a[1]);
                Predicate<byte[]> match = a.length == 3 ? new GlobPattern(a[2])::matches : n -> true;
                List<byte[]> names = sub.equals("CHANNELS") ? pubSub.channels(match) : pubSub.shardChannels(match);
                List<RedisMessage> out = new ArrayList<>(names.size());
                for (byte[] n : names) out.add(Replies.bulk(n));
                return Replies.array(out);
            }
            case "NUMSUB", "SHARDNUMSUB" -> {
                List<RedisMessage> out = new ArrayList<>(2 * (a.length - 2));
                for (int i = 2; i < a.length; i++) {
                    out.add(Replies.bulk(a[i]));
                    out.add(Replies.integer(
                            sub.equals("NUMSUB") ? pubSub.subscribers(a[i]) : pubSub.shardSubscribers(a[i])));
                }
                return Replies.array(out);
            }
            case "NUMPAT" -> {
                if (a.length != 2) return Replies.wrongArity("pubsub|numpat");
                return Replies.integer(pubSub.patternCount());
            }
            case "HELP" -> {
                if (a.length != 2) return Replies.wrongArity("pubsub|help");
                List<RedisMessage> out = new ArrayList<>(HELP.length);
                for (String line : HELP) out.add(new SimpleStringRedisMessage(line));
                return Replies.array(out);
            }
            default -> {
                return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try PUBSUB HELP.");
            }
        }
    }

    private static RedisMessage subcommandSyntax(byte[] sub) {
        return Replies.error(
                "ERR unknown subcommand or wrong number of arguments for '" + Args.text(sub) + "'. Try PUBSUB HELP.");
    }

    private static final String[] HELP = {
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help.",
    };
}
