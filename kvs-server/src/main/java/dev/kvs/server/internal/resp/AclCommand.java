package dev.kvs.server.internal.resp;

import dev.kvs.server.config.UserConfig;
import io.netty.handler.codec.redis.RedisMessage;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ACL WHOAMI | USERS | LIST | LOG [count | RESET]}, as Redis 7 ({@code LOG}: {@link AclLog}). Who may run which subcommand is declared when
 * registering ({@code USERS} and {@code LIST} are {@link CommandSpec#ADMIN}) and checked by the
 * dispatcher, not here.
 */
final class AclCommand implements Command {
    private final Users users;
    private final boolean open;
    private final AclLog log;

    /**
     * @param open true if no login is required: every connection is {@link Users#OPEN}
     * @param log the refused logins and commands
     */
    AclCommand(Users users, boolean open, AclLog log) {
        this.users = users;
        this.open = open;
        this.log = log;
    }

    void register(CommandTable table) {
        table.add("ACL", -2, 0, 0, 0, 0, this);
        table.addSubcommandFlags("ACL", "USERS", CommandSpec.ADMIN);
        table.addSubcommandFlags("ACL", "LIST", CommandSpec.ADMIN);
        table.addSubcommandFlags("ACL", "LOG", CommandSpec.ADMIN);
    }

    @Override
    public RedisMessage execute(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        switch (sub) {
            case "WHOAMI":
                return a.length == 2 ? Replies.bulk(s.user.name()) : Replies.wrongArity("ACL|WHOAMI");
            case "USERS":
                if (a.length != 2) return Replies.wrongArity("ACL|USERS");
                return open
                        ? Replies.bulkArray(UserConfig.DEFAULT_USER)
                        : Replies.bulkArray(users.names().toArray(String[]::new));
            case "LIST":
                if (a.length != 2) return Replies.wrongArity("ACL|LIST");
                return list();
            case "LOG":
                return a.length <= 3 ? log(s, a) : Replies.wrongArity("ACL|LOG");
            default:
                return Replies.error("ERR unknown subcommand '" + Args.text(a[1])
                        + "'. Try ACL WHOAMI, ACL USERS, ACL LIST, ACL LOG.");
        }
    }

    /** {@code ACL LOG [count | RESET]}: the newest entries (10 by default) as Redis 7.2 shows them. */
    private RedisMessage log(Session s, byte[][] a) {
        long count = 10;
        if (a.length == 3) {
            if (Args.upper(a[2]).equals("RESET")) {
                log.reset();
                return Replies.OK;
            }
            Long n = Args.parseLong(a[2]);
            if (n == null) return Replies.error("ERR value is not an integer or out of range");
            count = Math.max(0, n);
        }
        long now = log.nowMillis();
        List<RedisMessage> out = new ArrayList<>();
        for (AclLog.Entry e : log.newest((int) Math.min(count, AclLog.MAX_ENTRIES))) {
            out.add(TypedReplies.map(List.of(
                    Replies.bulk("count"),
                    Replies.integer(e.count()),
                    Replies.bulk("reason"),
                    Replies.bulk(e.reason()),
                    Replies.bulk("context"),
                    Replies.bulk(e.context()),
                    Replies.bulk("object"),
                    Replies.bulk(e.object()),
                    Replies.bulk("username"),
                    Replies.bulk(e.username()),
                    Replies.bulk("age-seconds"),
                    age(s, now - e.updatedMillis()),
                    Replies.bulk("client-info"),
                    Replies.bulk(e.clientInfo()),
                    Replies.bulk("entry-id"),
                    Replies.integer(e.entryId()),
                    Replies.bulk("timestamp-created"),
                    Replies.integer(e.createdMillis()),
                    Replies.bulk("timestamp-last-updated"),
                    Replies.integer(e.updatedMillis()))));
        }
        return Replies.array(out);
    }

    /**
     * An entry's age: a double in RESP3 (as Redis 7.0.15), in RESP2 the bulk string Redis 7.2 prints
     * ({@link #seconds}).
     */
    private static RedisMessage age(Session s, long millis) {
        return s.protocol == 3
                ? new TypedReplies.DoubleReply(Math.max(0, millis) / 1000.0)
                : Replies.bulk(seconds(millis));
    }

    /** Milliseconds as seconds the way Redis prints a double: {@code 4.096}, {@code 0}. */
    private static String seconds(long millis) {
        return BigDecimal.valueOf(Math.max(0, millis), 3).stripTrailingZeros().toPlainString();
    }

    /** One Redis ACL rule line per user; the role as the Redis categories it amounts to. */
    private RedisMessage list() {
        if (open) return Replies.bulkArray("user default on nopass ~* &* +@all");
        List<String> lines = new ArrayList<>();
        for (UserConfig u : users.all()) {
            lines.add("user " + u.name() + " on #" + u.passwordSha256() + " ~* &* " + rules(u.role()));
        }
        return Replies.bulkArray(lines.toArray(String[]::new));
    }

    private static String rules(UserConfig.Role role) {
        return switch (role) {
            case ADMIN -> "+@all";
            case READWRITE -> "+@all -@admin";
            case READONLY -> "+@all -@write -@admin";
        };
    }
}
