package dev.kvs.server.internal.resp;

import dev.kvs.replication.Role;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.internal.pubsub.Subscriptions;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's connection group: PING, ECHO, AUTH, QUIT, SELECT, HELLO, CLIENT. (READONLY and READWRITE,
 * Redis's cluster group, open reads on a backup: {@link BackupReadCommands}.)
 */
final class ConnectionCommands {
    private final CommandContext node;
    private final Users users;
    private final AclLog aclLog;
    private final ClientWarnings warnings;

    /**
     * @param users who may log in (shared with {@link AclCommand})
     * @param aclLog where failed logins are recorded
     */
    ConnectionCommands(CommandContext node, Users users, AclLog aclLog, ClientWarnings warnings) {
        this.node = node;
        this.users = users;
        this.aclLog = aclLog;
        this.warnings = warnings;
    }

    void register(CommandTable table) {
        int any = CommandSpec.NOAUTH;
        table.add("PING", -1, 0, 0, 0, 0, this::ping);
        table.add("ECHO", 2, 0, 0, 0, 0, (s, a) -> Replies.bulk(a[1]));
        table.add("AUTH", -2, any, 0, 0, 0, this::auth);
        table.add("QUIT", -1, any, 0, 0, 0, (s, a) -> {
            s.closeAfterReply = true;
            return Replies.OK;
        });
        table.add("SELECT", 2, 0, 0, 0, 0, this::select);
        table.add("HELLO", -1, any, 0, 0, 0, this::hello);
        table.add("CLIENT", -2, 0, 0, 0, 0, this::client);
        table.add("RESET", 1, any, 0, 0, 0, this::reset);
    }

    private RedisMessage ping(Session s, byte[][] a) {
        if (s.inSubscribeMode() && a.length <= 2) return PubSubCommands.pong(a.length == 2 ? a[1] : new byte[0]);
        if (a.length == 1) return Replies.PONG;
        if (a.length == 2) return Replies.bulk(a[1]);
        return Replies.wrongArity("PING");
    }

    /**
     * {@code RESET}, as Redis 7.0.15's: the connection is as if new. Its transaction and watches are
     * dropped, its subscriptions left, its name, {@code READONLY} and {@code KVS.MODE} cleared; it speaks
     * RESP2 from the reply on ({@link TypedReplies.ResetReply}) and, if logins are required, must log in
     * again.
     */
    private RedisMessage reset(Session s, byte[][] a) {
        s.transaction = null;
        s.watched = null;
        if (s.subscriptions != null) s.subscriptions.clear();
        s.protocol = 2;
        s.name = null;
        s.readonly = false;
        s.mode = null;
        s.replyOff = false;
        s.replySkipNext = false;
        s.user = node.config().clientAuthRequired() ? null : Users.OPEN;
        return TypedReplies.ResetReply.INSTANCE;
    }

    /**
     * {@code AUTH password} logs in as the default user, {@code AUTH username password} as that user.
     * A failed login leaves the connection as it was (logged in or not), as in Redis.
     */
    private RedisMessage auth(Session s, byte[][] a) {
        if (a.length > 3) return Replies.SYNTAX;
        if (!node.config().clientAuthRequired()) {
            if (a.length == 3) {
                // as Redis's passwordless default user: it takes any password, and no other user exists
                if (Users.name(a[1]).equals(UserConfig.DEFAULT_USER)) return Replies.OK;
                return failedLogin(s, a[0], Users.name(a[1]));
            }
            return Replies.error("ERR AUTH <password> called without any password configured for the default user."
                    + " Are you sure your configuration is correct?");
        }
        String name = a.length == 2 ? UserConfig.DEFAULT_USER : Users.name(a[1]);
        UserConfig user = users.authenticate(name, a[a.length - 1]);
        if (user == null) return failedLogin(s, a[0], name);
        s.user = user;
        return Replies.OK;
    }

    /** A refused login: in the ACL log and a rate-limited WARN; the client learns only WRONGPASS. */
    private RedisMessage failedLogin(Session s, byte[] command, String username) {
        aclLog.failedLogin(Args.text(command), username, clientLine(s));
        warnings.failedLogins.warn(
                "failed login from client {} as user '{}': unknown user or wrong password",
                s.remoteAddress,
                printable(username));
        return Replies.WRONGPASS;
    }

    /** A user name as typed, safe for a log line: control characters replaced, at most 64 characters. */
    private static String printable(String name) {
        String cut = name.length() > 64 ? name.substring(0, 64) + "..." : name;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    private RedisMessage select(Session s, byte[][] a) {
        Long db = Args.parseLong(a[1]);
        if (db == null) return Replies.error("ERR value is not an integer or out of range");
        return db == 0 ? Replies.OK : Replies.error("ERR DB index is out of range (kvs has only db 0)");
    }

    /**
     * {@code HELLO [protover [AUTH username password] [SETNAME clientname]]}, as Redis 7.0.15: logs in
     * and names the connection, switches it to RESP3 ({@code 3}) or back to RESP2 ({@code 2}), and
     * answers the server's map in the protocol chosen. Only a logged-in connection may switch.
     */
    private RedisMessage hello(Session s, byte[][] a) {
        int i = 1;
        int protocol = 0;
        if (a.length > 1) {
            Long proto = Args.parseLong(a[1]);
            if (proto == null) return Replies.error("ERR Protocol version is not an integer or out of range");
            if (proto < 2 || proto > 3) return Replies.error("NOPROTO unsupported protocol version");
            protocol = proto.intValue();
            i = 2;
        }
        while (i < a.length) {
            String opt = Args.upper(a[i]);
            if (opt.equals("AUTH") && i + 2 < a.length) {
                RedisMessage r = auth(s, new byte[][] {a[0], a[i + 1], a[i + 2]}); // a[0]: HELLO, in the ACL log
                if (r != Replies.OK) return r;
                i += 3;
            } else if (opt.equals("SETNAME") && i + 1 < a.length) {
                RedisMessage r = setName(s, a[i + 1]);
                if (r != Replies.OK) return r;
                i += 2;
            } else {
                return Replies.error("ERR Syntax error in HELLO option '" + Args.text(a[i]) + "'");
            }
        }
        if (!s.authenticated()) return HELLO_NOAUTH;
        if (protocol != 0) s.protocol = protocol;
        List<RedisMessage> m = new ArrayList<>(14);
        m.add(Replies.bulk("server"));
        m.add(Replies.bulk("kvs"));
        m.add(Replies.bulk("version"));
        m.add(Replies.bulk(InfoCommand.REDIS_COMPAT_VERSION));
        m.add(Replies.bulk("proto"));
        m.add(Replies.integer(s.protocol));
        m.add(Replies.bulk("id"));
        m.add(Replies.integer(s.id));
        m.add(Replies.bulk("mode"));
        m.add(Replies.bulk(node.cluster().enabled() ? "cluster" : "standalone"));
        m.add(Replies.bulk("role"));
        m.add(Replies.bulk(node.role() == Role.PRIMARY ? "master" : "replica")); // as Redis's HELLO
        m.add(Replies.bulk("modules"));
        m.add(Replies.array(List.of()));
        return new TypedReplies.Hello(protocol, m);
    }

    private static final RedisMessage HELLO_NOAUTH = Replies.error(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user>"
                    + " <pass> option can be used to authenticate the client and select the RESP protocol version"
                    + " at the same time");

    private static RedisMessage setName(Session s, byte[] given) {
        String name = Args.text(given);
        if (name.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            return Replies.error("ERR Client names cannot contain spaces, newlines or special characters.");
        }
        s.name = name.isEmpty() ? null : name;
        return Replies.OK;
    }

    private RedisMessage client(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        switch (sub) {
            case "ID":
                return a.length == 2 ? Replies.integer(s.id) : Replies.wrongArity("CLIENT|ID");
            case "GETNAME":
                return s.name == null ? Replies.NIL : Replies.bulk(s.name);
            case "SETNAME":
                if (a.length != 3) return Replies.wrongArity("CLIENT|SETNAME");
                return setName(s, a[2]);
            case "SETINFO":
                return a.length == 4 ? Replies.OK : Replies.wrongArity("CLIENT|SETINFO");
            case "INFO":
                return new TypedReplies.VerbatimReply(clientLine(s) + "\n");
            case "REPLY":
                return a.length == 3 ? reply(s, Args.upper(a[2])) : Replies.wrongArity("CLIENT|REPLY");
            default:
                return Replies.error("ERR unknown subcommand '" + Args.text(a[1])
                        + "'. Try CLIENT ID, CLIENT GETNAME, CLIENT SETNAME, CLIENT SETINFO, CLIENT INFO.");
        }
    }

    /**
     * {@code CLIENT REPLY ON|OFF|SKIP}, as Redis's: {@code OFF} silences every reply but pub/sub's pushes
     * until {@code ON}, {@code SKIP} the next command's ({@link Session#silenced()}); only {@code ON} is
     * answered.
     */
    private static RedisMessage reply(Session s, String mode) {
        switch (mode) {
            case "ON" -> {
                s.replyOff = false;
                s.replySkip = false;
                return Replies.OK;
            }
            case "OFF" -> s.replyOff = true;
            case "SKIP" -> {
                if (!s.replyOff) s.replySkipNext = true;
            }
            default -> {
                return Replies.SYNTAX;
            }
        }
        return Replies.OK; // silenced: OFF is on, or SKIP's next flag
    }

    /**
     * {@code s} as {@code CLIENT INFO} shows it (also an ACL log entry's {@code client-info}): Redis's
     * fields kvs has, {@code user} last (Redis ends with {@code user redir resp}).
     */
    /** {@code CLIENT INFO}'s subscription counts, as Redis shows them after {@code db}. */
    private static String subscriptions(Session s) {
        Subscriptions subs = s.subscriptions;
        if (subs == null) return " sub=0 psub=0 ssub=0";
        return " sub=" + subs.channelCount() + " psub=" + subs.patternCount() + " ssub=" + subs.shardCount();
    }

    static String clientLine(Session s) {
        return "id=" + s.id + " addr=" + s.remoteAddress + " name=" + (s.name == null ? "" : s.name) + " age="
                + (System.currentTimeMillis() - s.createdAtMillis) / 1000 + " db=0" + subscriptions(s) + " resp="
                + s.protocol + " user="
                + (s.user == null ? "" : s.user.name());
    }
}
