package dev.kvs.server.internal.resp;

import dev.kvs.server.UserConfig;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ACL WHOAMI | USERS | LIST}, as Redis 6. Who may run which subcommand is declared when
 * registering ({@code USERS} and {@code LIST} are {@link CommandSpec#ADMIN}) and checked by the
 * dispatcher, not here.
 */
final class AclCommand implements Command {
    private final Users users;
    private final boolean open;

    /** @param open true if no login is required: every connection is {@link Users#OPEN} */
    AclCommand(Users users, boolean open) {
        this.users = users;
        this.open = open;
    }

    void register(CommandTable table) {
        table.add("ACL", -2, 0, 0, 0, 0, this);
        table.addSubcommandFlags("ACL", "USERS", CommandSpec.ADMIN);
        table.addSubcommandFlags("ACL", "LIST", CommandSpec.ADMIN);
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
            default:
                return Replies.error(
                        "ERR unknown subcommand '" + Args.text(a[1]) + "'. Try ACL WHOAMI, ACL USERS, ACL LIST.");
        }
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
