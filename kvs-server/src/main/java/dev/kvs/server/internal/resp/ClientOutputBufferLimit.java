package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.pubsub.OutputLimit;
import dev.kvs.server.internal.pubsub.PubSub;
import java.util.Locale;

/**
 * {@code CONFIG GET|SET client-output-buffer-limit}, as Redis 7.0.15 shows and takes it: {@code normal
 * <hard> <soft> <seconds> slave ... pubsub ...}. The {@code pubsub} class is kvs's own (a subscriber that
 * does not read its messages is cut off, {@link ConnectionSubscriber}) and may be changed; the {@code
 * normal} class is the settings file's {@code clientOutputBufferLimit} (a hard limit only) and kvs has
 * no Redis replicas, so those two are shown and accepted only at the values they have. Thread-safe.
 */
final class ClientOutputBufferLimit {
    static final String NAME = "client-output-buffer-limit";

    /** Redis's default for its replicas' class: kvs has none, so it only shows it. */
    private static final String REPLICA = "268435456 67108864 60";

    private final long normalHardBytes;
    private final PubSub pubSub;

    /** @param normalHardBytes the settings file's {@code clientOutputBufferLimit} */
    ClientOutputBufferLimit(long normalHardBytes, PubSub pubSub) {
        this.normalHardBytes = normalHardBytes;
        this.pubSub = pubSub;
    }

    /** The value {@code CONFIG GET} shows. */
    String value() {
        return "normal " + normal() + " slave " + REPLICA + " pubsub "
                + pubSub.limit().text();
    }

    private String normal() {
        return normalHardBytes + " 0 0";
    }

    /**
     * Why {@code value} (any of the classes, in Redis's form) cannot be set, in Redis's words where Redis
     * has them; null if it can: the {@code pubsub} limit may change, the others must be as they are.
     */
    String refusal(String value) {
        Object parsed = parse(value);
        return parsed instanceof String reason ? reason : null;
    }

    /** Sets {@code value}, which {@link #refusal} took. */
    void set(String value) {
        if (parse(value) instanceof OutputLimit pubsub) pubSub.limit(pubsub);
    }

    /** The {@code pubsub} class's new limit, or null if {@code value} leaves it as it is, or the refusal. */
    private Object parse(String value) {
        String[] words = value.trim().isEmpty() ? new String[0] : value.trim().split("\\s+");
        if (words.length % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
        OutputLimit pubsub = null;
        for (int i = 0; i < words.length; i += 4) {
            String kind = words[i].toLowerCase(Locale.ROOT);
            if (!kind.equals("normal") && !kind.equals("slave") && !kind.equals("replica") && !kind.equals("pubsub")) {
                return "Invalid client class specified in buffer limit configuration.";
            }
            OutputLimit limit;
            try {
                limit = OutputLimit.parse(words[i + 1], words[i + 2], words[i + 3]);
            } catch (IllegalArgumentException e) {
                return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
            }
            switch (kind) {
                case "pubsub" -> pubsub = limit;
                case "normal" -> {
                    if (!limit.text().equals(normal())) {
                        return "kvs takes the normal class's limit from clientOutputBufferLimit in its settings"
                                + " file; only 'normal " + normal() + "' is accepted";
                    }
                }
                default -> {
                    if (!limit.text().equals(REPLICA)) {
                        return "kvs has no Redis replicas; only 'slave " + REPLICA + "' is accepted";
                    }
                }
            }
        }
        return pubsub;
    }
}
