package dev.kvs.server.internal.resp;

import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

/**
 * Redis's FUNCTION command as far as a node without a function engine answers it truthfully: {@code
 * FUNCTION FLUSH [ASYNC|SYNC]} is {@code OK} (there is no library to delete) and {@code FUNCTION LIST}
 * an empty list, with Redis 7.0.15's replies and error words for bad arguments. Clients and test
 * harnesses that clean up with {@code FUNCTION FLUSH} (Redis's own test suite does before every unit)
 * then work; the subcommands that would need an engine ({@code LOAD}, {@code RESTORE}...) say that kvs
 * has none rather than pretend.
 */
final class FunctionCommands {
    private static final RedisMessage EMPTY = ArrayRedisMessage.EMPTY_INSTANCE;

    void register(CommandTable t) {
        t.add("FUNCTION", -2, 0, 0, 0, 0, this::function);
    }

    private RedisMessage function(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        return switch (sub) {
            case "FLUSH" -> flush(a);
            case "LIST" -> list(a);
            case "LOAD", "DELETE", "DUMP", "RESTORE", "KILL", "STATS" ->
                Replies.error(
                        "ERR FUNCTION " + sub + " is not supported: kvs has no function engine (FUNCTION FLUSH and"
                                + " LIST answer, with no libraries)");
            default -> Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try FUNCTION HELP.");
        };
    }

    private static RedisMessage flush(byte[][] a) {
        if (a.length > 3) {
            return Replies.error("ERR unknown subcommand or wrong number of arguments for '" + Args.text(a[1])
                    + "'. Try FUNCTION HELP.");
        }
        if (a.length == 3) {
            String mode = Args.upper(a[2]);
            if (!mode.equals("SYNC") && !mode.equals("ASYNC")) {
                return Replies.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
            }
        }
        return Replies.OK;
    }

    /** {@code FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]}: checked as Redis does, then no library. */
    private static RedisMessage list(byte[][] a) {
        boolean withCode = false;
        boolean named = false;
        for (int i = 2; i < a.length; i++) {
            String arg = Args.upper(a[i]);
            if (arg.equals("WITHCODE") && !withCode) {
                withCode = true;
            } else if (arg.equals("LIBRARYNAME") && !named) {
                if (i + 1 >= a.length) return Replies.error("ERR library name argument was not given");
                named = true;
                i++;
            } else {
                return Replies.error("ERR Unknown argument " + Args.text(a[i]));
            }
        }
        return EMPTY;
    }
}
