package dev.kvs.server.internal.resp;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.role.RoleChangeException;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Connection and server commands: PING, ECHO, AUTH, QUIT, SELECT, HELLO, CLIENT, CONFIG, COMMAND, ACL,
 * KVS.MODE, KVS.PROMOTE, TIME, ROLE.
 */
final class ServerCommands {
    private final NodeContext node;
    private final CommandTable table;
    private final LongSupplier maxMemory;
    private final Users users;
    private final AclLog aclLog;
    private final ClientWarnings warnings;

    ServerCommands(NodeContext node, CommandTable table, AclLog aclLog, ClientWarnings warnings) {
        this.node = node;
        this.table = table;
        this.aclLog = aclLog;
        this.warnings = warnings;
        this.maxMemory = () -> node.config().store().maxBytes();
        this.users = new Users(node.config());
    }

    void register() {
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
        table.add("CONFIG", -2, 0, 0, 0, 0, this::config);
        table.add("COMMAND", -1, 0, 0, 0, 0, this::command);
        table.add("KVS.MODE", -1, 0, 0, 0, 0, this::mode);
        table.add("TIME", 1, 0, 0, 0, 0, (s, a) -> time());
        table.add("ROLE", 1, 0, 0, 0, 0, (s, a) -> role());
        table.add("KVS.PROMOTE", -1, CommandSpec.ADMIN, 0, 0, 0, this::promote);
        new AclCommand(users, !node.config().clientAuthRequired(), aclLog).register(table);
    }

    private RedisMessage ping(Session s, byte[][] a) {
        if (a.length == 1) return Replies.PONG;
        if (a.length == 2) return Replies.bulk(a[1]);
        return Replies.wrongArity("PING");
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

    private RedisMessage hello(Session s, byte[][] a) {
        int i = 1;
        if (a.length > 1) {
            Long proto = Args.parseLong(a[1]);
            if (proto == null) return Replies.error("ERR Protocol version is not an integer or out of range");
            if (proto != 2) return Replies.error("NOPROTO unsupported protocol version (kvs speaks RESP2)");
            i = 2;
        }
        while (i < a.length) {
            String opt = Args.upper(a[i]);
            if (opt.equals("AUTH") && i + 2 < a.length) {
                RedisMessage r = auth(s, new byte[][] {a[0], a[i + 1], a[i + 2]}); // a[0]: HELLO, in the ACL log
                if (r != Replies.OK) return r;
                i += 3;
            } else if (opt.equals("SETNAME") && i + 1 < a.length) {
                s.name = Args.text(a[i + 1]);
                i += 2;
            } else {
                return Replies.SYNTAX;
            }
        }
        if (!s.authenticated()) return Replies.NOAUTH;
        List<RedisMessage> m = new ArrayList<>();
        m.add(Replies.bulk("server"));
        m.add(Replies.bulk("kvs"));
        m.add(Replies.bulk("version"));
        m.add(Replies.bulk(InfoCommand.REDIS_COMPAT_VERSION));
        m.add(Replies.bulk("proto"));
        m.add(Replies.integer(2));
        m.add(Replies.bulk("id"));
        m.add(Replies.integer(s.id));
        m.add(Replies.bulk("mode"));
        m.add(Replies.bulk("standalone"));
        m.add(Replies.bulk("role"));
        m.add(Replies.bulk(node.role() == dev.kvs.replication.Role.PRIMARY ? "master" : "replica")); // as Redis's HELLO
        m.add(Replies.bulk("modules"));
        m.add(Replies.array(List.of()));
        return Replies.array(m);
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
                String name = Args.text(a[2]);
                if (name.chars().anyMatch(c -> c <= ' ' || c > '~')) {
                    return Replies.error("ERR Client names cannot contain spaces, newlines or special characters.");
                }
                s.name = name.isEmpty() ? null : name;
                return Replies.OK;
            case "SETINFO":
                return a.length == 4 ? Replies.OK : Replies.wrongArity("CLIENT|SETINFO");
            case "INFO":
                return Replies.bulk(clientLine(s) + "\n");
            default:
                return Replies.error("ERR unknown subcommand '" + Args.text(a[1])
                        + "'. Try CLIENT ID, CLIENT GETNAME, CLIENT SETNAME, CLIENT SETINFO, CLIENT INFO.");
        }
    }

    /** {@code s} as {@code CLIENT INFO} shows it (also an ACL log entry's {@code client-info}). */
    static String clientLine(Session s) {
        return "id=" + s.id + " addr=" + s.remoteAddress + " name=" + (s.name == null ? "" : s.name) + " age="
                + (System.currentTimeMillis() - s.createdAtMillis) / 1000 + " db=0 user="
                + (s.user == null ? "" : s.user.name());
    }

    private RedisMessage config(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        if (sub.equals("GET")) {
            if (a.length < 3) return Replies.wrongArity("CONFIG|GET");
            List<RedisMessage> out = new ArrayList<>();
            NodeConfig c = node.config();
            String[][] params = {
                {"save", ""},
                {"appendonly", "no"},
                {"databases", "1"},
                {"maxmemory", Long.toString(maxMemory.getAsLong())},
                {"maxclients", Integer.toString(c.maxClients())},
                {"proto-max-bulk-len", Integer.toString(c.maxBulkBytes())},
                {"port", Integer.toString(c.port())},
                {"bind", c.bind()},
            };
            for (int i = 2; i < a.length; i++) {
                Pattern p = glob(Args.text(a[i]).toLowerCase(Locale.ROOT));
                for (String[] kv : params) {
                    if (p.matcher(kv[0]).matches()) {
                        out.add(Replies.bulk(kv[0]));
                        out.add(Replies.bulk(kv[1]));
                    }
                }
            }
            return Replies.array(out);
        }
        if (sub.equals("SET") || sub.equals("RESETSTAT") || sub.equals("REWRITE")) {
            return Replies.error(
                    "ERR CONFIG " + sub + " is not supported: kvs is configured by its YAML file and flags");
        }
        return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try CONFIG GET.");
    }

    private static Pattern glob(String glob) {
        StringBuilder re = new StringBuilder();
        for (char ch : glob.toCharArray()) {
            switch (ch) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> re.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return Pattern.compile(re.toString());
    }

    private RedisMessage command(Session s, byte[][] a) {
        if (a.length == 1) {
            List<RedisMessage> out = new ArrayList<>();
            for (CommandSpec spec : table.all()) out.add(info(spec));
            return Replies.array(out);
        }
        String sub = Args.upper(a[1]);
        switch (sub) {
            case "COUNT":
                return Replies.integer(table.all().size());
            case "INFO": {
                List<RedisMessage> out = new ArrayList<>();
                for (int i = 2; i < a.length; i++) {
                    CommandSpec spec = table.lookup(a[i]);
                    out.add(spec == null ? ArrayRedisMessage.NULL_INSTANCE : info(spec));
                }
                return Replies.array(out);
            }
            case "DOCS":
                // redis-cli asks for docs to show hints; kvs has none to offer, which it accepts
                return Replies.array(List.of());
            case "LIST": {
                List<RedisMessage> out = new ArrayList<>();
                for (CommandSpec spec : table.all())
                    out.add(Replies.bulk(spec.name().toLowerCase(Locale.ROOT)));
                return Replies.array(out);
            }
            default:
                return Replies.error("ERR unknown subcommand '" + Args.text(a[1])
                        + "'. Try COMMAND COUNT, COMMAND INFO, COMMAND DOCS, COMMAND LIST.");
        }
    }

    private static RedisMessage info(CommandSpec spec) {
        List<RedisMessage> flags = new ArrayList<>();
        flags.add(new SimpleStringRedisMessage(spec.has(CommandSpec.WRITE) ? "write" : "readonly"));
        if (spec.has(CommandSpec.NOAUTH)) flags.add(new SimpleStringRedisMessage("no_auth"));
        if (spec.has(CommandSpec.ADMIN)) flags.add(new SimpleStringRedisMessage("admin"));
        return Replies.array(List.of(
                Replies.bulk(spec.name().toLowerCase(Locale.ROOT)),
                new IntegerRedisMessage(spec.arity()),
                Replies.array(flags),
                new IntegerRedisMessage(spec.firstKey()),
                new IntegerRedisMessage(spec.lastKey()),
                new IntegerRedisMessage(spec.keyStep())));
    }

    /** TIME: the node's clock as [seconds, microseconds], two bulk strings, as in Redis. */
    private static RedisMessage time() {
        java.time.Instant now = java.time.Instant.now();
        return Replies.bulkArray(Long.toString(now.getEpochSecond()), Long.toString(now.getNano() / 1000));
    }

    /**
     * ROLE in Redis's shape. Offsets are TxId sequence numbers within the node's epoch ({@code INFO}'s
     * {@code kvs_epoch}): on a primary its last TxId's and, per streaming backup, the last one it acked
     * (with the backup's replication address); on a backup the highest contiguous TxId it received.
     */
    private RedisMessage role() {
        var current = node.roles().current();
        if (node.role() == dev.kvs.replication.Role.PRIMARY) {
            var r = current.replicationStatus();
            List<RedisMessage> backups = new ArrayList<>();
            var peer = node.config().peer();
            if (r.streaming() && peer.isPresent()) {
                String[] hp = hostPort(peer.get());
                backups.add(Replies.bulkArray(
                        hp[0], hp[1], Long.toString(r.ackedTxId().seq())));
            }
            return Replies.array(List.of(
                    Replies.bulk("master"),
                    new IntegerRedisMessage(current.lastTxId().seq()),
                    Replies.array(backups)));
        }
        // Redis names the primary's client address: the one it advertised, else the peer setting
        String primary = BackupReadCommands.primaryAddress(current);
        String[] hp = hostPort(primary.equals("-") ? node.config().peer().orElse("?:-1") : primary);
        var listener = current.listener();
        boolean connected = listener != null && listener.status().keyChannelConnected();
        return Replies.array(List.of(
                Replies.bulk("slave"),
                Replies.bulk(hp[0]),
                new IntegerRedisMessage(Long.parseLong(hp[1])),
                Replies.bulk(connected ? "connected" : "connect"),
                new IntegerRedisMessage(current.lastTxId().seq())));
    }

    private static String[] hostPort(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new String[] {hostPort.substring(0, colon), hostPort.substring(colon + 1)};
    }

    /** KVS.PROMOTE [LOST]: for operators with only redis-cli; same as POST /promote. */
    private RedisMessage promote(Session s, byte[][] a) {
        if (!node.config().admin().respCommands()) {
            return Replies.error("NOPERM KVS.PROMOTE is disabled: use POST /promote on the admin port, or set"
                    + " admin.respCommands: true");
        }
        if (a.length > 2 || (a.length == 2 && !Args.upper(a[1]).equals("LOST"))) return Replies.SYNTAX;
        try {
            long epoch = node.failover().promote(a.length == 2);
            return new SimpleStringRedisMessage("OK promoted to primary in epoch " + epoch);
        } catch (RoleChangeException e) {
            return Replies.error("ERR " + e.getMessage());
        }
    }

    private RedisMessage mode(Session s, byte[][] a) {
        if (a.length == 1) return Replies.bulk((s.mode != null ? s.mode : node.mode()).label());
        if (a.length != 2) return Replies.wrongArity("KVS.MODE");
        String m = Args.text(a[1]);
        if (m.equalsIgnoreCase("default")) {
            s.mode = null;
            return Replies.OK;
        }
        try {
            s.mode = ReplicationMode.parse(m);
            return Replies.OK;
        } catch (IllegalArgumentException e) {
            return Replies.error("ERR " + e.getMessage());
        }
    }
}
