package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.TxId;
import dev.kvs.replication.Role;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.role.LostKeys;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.script.ScriptEngine;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis's server group, less INFO ({@link InfoCommand}), SHUTDOWN ({@link ShutdownCommand}) and ACL
 * ({@link AclCommand}): DBSIZE, FLUSHDB, FLUSHALL, CONFIG, COMMAND, TIME, ROLE, MEMORY USAGE.
 *
 * <p>FLUSHDB and FLUSHALL (one database: both flush the whole store) are one TxId, replicated as one
 * key packet. A flush takes effect at once, inside a barrier holding every key's lock for as long as it
 * takes to order its TxId and raise the store's flush mark ({@link Writes#flush}); the records it
 * hides are then removed key by key on the {@code kvs-flush-sweep} thread, so no event loop waits for
 * the whole store to be cleared. {@code SYNC} (the default, as in Redis) answers once that sweep is
 * done, {@code ASYNC} as soon as the flush is replicated in the connection's mode.
 */
final class ServerCommands {
    private static final Logger log = LoggerFactory.getLogger(ServerCommands.class);

    /** Removes flushed records, one flush after the other, off the event loops. */
    private static final ExecutorService SWEEPER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "kvs-flush-sweep");
        t.setDaemon(true);
        return t;
    });

    private final CommandContext node;
    private final CommandTable table;
    private final KvStore store;
    /** What CONFIG SET may set: Redis's encoding thresholds, which kvs shows but does not use. */
    private final EncodingSettings encodings = new EncodingSettings();

    /** Its {@code busy-reply-threshold} (alias {@code lua-time-limit}) is shown and set here. */
    private final ScriptEngine scripts;
    /** {@code client-output-buffer-limit}: its {@code pubsub} class may be set. */
    private final ClientOutputBufferLimit outputLimit;

    /**
     * @param table the commands, for COMMAND
     * @param scripts the node's scripting, whose time limit CONFIG shows and sets
     */
    ServerCommands(CommandContext node, CommandTable table, ScriptEngine scripts, ClientOutputBufferLimit outputLimit) {
        this.outputLimit = outputLimit;
        this.node = node;
        this.scripts = scripts;
        this.table = table;
        this.store = node.store();
    }

    void register() {
        // metadata, on any role: the records the store holds (on a backup, keys whose values arrived)
        table.add("DBSIZE", 1, 0, 0, 0, 0, (s, a) -> Replies.integer(store.size()));
        // dangerous, as in Redis's ACL categories: admin users only
        int flush = CommandSpec.DATA | CommandSpec.WRITE | CommandSpec.ADMIN;
        table.add("FLUSHDB", -1, flush, 0, 0, 0, this::flush);
        table.add("FLUSHALL", -1, flush, 0, 0, 0, this::flush);
        table.add("CONFIG", -2, 0, 0, 0, 0, this::config);
        table.add("COMMAND", -1, 0, 0, 0, 0, this::command);
        table.add("TIME", 1, 0, 0, 0, 0, (s, a) -> time());
        table.add("ROLE", 1, 0, 0, 0, 0, (s, a) -> role());
        table.add("MEMORY", -2, 0, 0, 0, 0, this::memory);
        // as Redis's key specs: the container has no keys, MEMORY USAGE has one (its slot is checked)
        table.addSubcommandKey("MEMORY", "USAGE", 2);
    }

    private RedisMessage flush(Session s, byte[][] a) {
        boolean sync = true;
        if (a.length > 2) return Replies.SYNTAX;
        if (a.length == 2) {
            switch (Args.upper(a[1])) {
                case "SYNC" -> sync = true;
                case "ASYNC" -> sync = false;
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        Writes.Done<TxId> d = node.writes().flush(node.mode(s));
        TxId f = d.result();
        liftFences(f);
        CompletableFuture<Long> sweep = CompletableFuture.supplyAsync(() -> store.removeBefore(f), SWEEPER)
                .whenComplete((n, e) -> {
                    if (e != null) log.error("flush at {}: sweeping the store failed", f, e);
                    else log.info("flush at {}: {} records removed", f, n);
                });
        if (!sync) return Replies.whenReplicated(d.replicated(), Replies.OK);
        return new LaterReply(d.replicated().thenCombine(sweep, (v, n) -> Replies.OK));
    }

    /**
     * On a promoted primary, the keys fenced before the flush (values that never arrived, losses) are
     * gone with it: they no longer refuse reads and writes.
     */
    private void liftFences(TxId f) {
        ReadGate gate = node.gate();
        if (!gate.active()) return;
        UnfinishedKeys u = gate.unfinished();
        if (u != null) u.resolveBefore(f);
        LostKeys lost = gate.lost();
        for (LostKeys.Entry e : lost.snapshot()) {
            if (e.txId().compareTo(f) < 0) lost.remove(e.key());
        }
    }

    /**
     * What CONFIG GET shows: the node's settings Redis names, and the encoding thresholds ({@link
     * EncodingSettings}; {@code set-max-intset-entries} is shown, SMEMBERS orders sets of up to 512
     * integers whatever it is set to).
     */
    private List<String[]> configParams() {
        NodeConfig c = node.config();
        List<String[]> params = new ArrayList<>(List.of(
                new String[] {"save", ""},
                new String[] {"appendonly", "no"},
                new String[] {"databases", "1"},
                new String[] {"maxmemory", Long.toString(c.store().maxBytes())},
                new String[] {"maxclients", Integer.toString(c.maxClients())},
                new String[] {"proto-max-bulk-len", Integer.toString(c.maxBulkBytes())},
                new String[] {"port", Integer.toString(c.port())},
                new String[] {"bind", c.bind()}));
        params.addAll(encodings.all());
        params.add(new String[] {"busy-reply-threshold", Long.toString(scripts.busyMillis())});
        params.add(new String[] {"lua-time-limit", Long.toString(scripts.busyMillis())});
        params.add(new String[] {ClientOutputBufferLimit.NAME, outputLimit.value()});
        params.add(new String[] {
            "notify-keyspace-events", EventClasses.render(node.events().classes())
        });
        return params;
    }

    private RedisMessage config(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        List<String[]> params = configParams();
        if (sub.equals("GET")) {
            if (a.length < 3) return Replies.wrongArity("CONFIG|GET");
            List<RedisMessage> out = new ArrayList<>();
            for (int i = 2; i < a.length; i++) {
                Pattern p = glob(Args.text(a[i]).toLowerCase(Locale.ROOT));
                for (String[] kv : params) {
                    if (p.matcher(kv[0]).matches()) {
                        out.add(Replies.bulk(kv[0]));
                        out.add(Replies.bulk(kv[1]));
                    }
                }
            }
            return TypedReplies.map(out);
        }
        if (sub.equals("SET") && a.length >= 4 && a.length % 2 == 0) return configSet(params, a);
        if (sub.equals("SET") || sub.equals("RESETSTAT") || sub.equals("REWRITE")) {
            return Replies.error(
                    "ERR CONFIG " + sub + " is not supported: kvs is configured by its YAML file and flags");
        }
        return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try CONFIG GET.");
    }

    /**
     * {@code CONFIG SET name value [name value ...]}: the encoding thresholds are taken ({@link
     * EncodingSettings}); any other parameter {@code CONFIG GET} shows is accepted only at the value it
     * has (a no-op: what clients and test suites send to restore defaults, e.g. {@code save ""}), since
     * kvs takes it from its YAML file and flags. All or nothing, with Redis's error words.
     */
    private RedisMessage configSet(List<String[]> params, byte[][] a) {
        List<byte[]> owned = new ArrayList<>(List.of(a[0], a[1]));
        Long busyMillis = null;
        String limit = null;
        int notify = -1;
        for (int i = 2; i < a.length; i += 2) {
            String name = Args.text(a[i]).toLowerCase(Locale.ROOT);
            if (name.equals("notify-keyspace-events")) {
                notify = EventClasses.parse(Args.text(a[i + 1]));
                if (notify < 0) {
                    return Replies.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - "
                            + EventClasses.INVALID);
                }
                continue;
            }
            if (name.equals("busy-reply-threshold") || name.equals("lua-time-limit")) {
                busyMillis = Args.parseLong(a[i + 1]);
                if (busyMillis == null || busyMillis < 0) {
                    return Replies.error("ERR CONFIG SET failed (possibly related to argument '" + name
                            + "') - argument couldn't be parsed into an integer");
                }
                continue;
            }
            if (name.equals(ClientOutputBufferLimit.NAME)) {
                limit = Args.text(a[i + 1]);
                continue;
            }
            if (EncodingSettings.owns(new byte[][] {a[0], a[1], a[i], a[i + 1]})) {
                owned.add(a[i]);
                owned.add(a[i + 1]);
                continue;
            }
            String[] shown = null;
            for (String[] kv : params) if (kv[0].equals(name)) shown = kv;
            if (shown == null) {
                return Replies.error(
                        "ERR Unknown option or number of arguments for CONFIG SET - '" + Args.text(a[i]) + "'");
            }
            if (!shown[1].equals(Args.text(a[i + 1]))) {
                return Replies.error("ERR CONFIG SET failed (possibly related to argument '" + name
                        + "') - kvs takes it from its YAML file and flags; only its current value '" + shown[1]
                        + "' is accepted");
            }
        }
        String refused = limit == null ? null : outputLimit.refusal(limit);
        if (refused != null) {
            return Replies.error("ERR CONFIG SET failed (possibly related to argument '" + ClientOutputBufferLimit.NAME
                    + "') - " + refused);
        }
        String error = owned.size() == 2 ? null : encodings.set(owned.toArray(byte[][]::new));
        if (error != null) return Replies.error(error);
        if (limit != null) outputLimit.set(limit);
        if (busyMillis != null) scripts.busyMillis(busyMillis);
        if (notify >= 0) node.events().classes(notify);
        return Replies.OK;
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
                // redis-cli asks for docs to show hints; kvs has none to offer, which it accepts (a map)
                return TypedReplies.map(List.of());
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
                TypedReplies.set(flags), // a set in RESP3, as Redis's flags
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
        if (node.role() == Role.PRIMARY) {
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

    /**
     * Bytes a record costs besides its key and value, roughly: its header (state, TxId, checksum,
     * length: 25 bytes) and Chronicle Map's entry overhead.
     */
    static final int RECORD_OVERHEAD = 48;

    /**
     * MEMORY USAGE key [SAMPLES count]: an estimate of the bytes {@code key} costs (key, value and
     * {@link #RECORD_OVERHEAD}; a hash's or set's value is what its members take in the store, {@link
     * dev.kvs.core.KvStore#memberBytes}), or nil if it is not held; for an unfinished or lost key, the
     * length its value is expected to have. {@code redis-cli --memkeys} uses it.
     */
    private RedisMessage memory(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        if (!sub.equals("USAGE")) {
            return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try MEMORY USAGE.");
        }
        if (a.length != 3 && a.length != 5) {
            return a.length < 3 ? Replies.wrongArity("MEMORY|USAGE") : Replies.SYNTAX;
        }
        if (a.length == 5) {
            if (!Args.upper(a[3]).equals("SAMPLES")) return Replies.SYNTAX;
            if (Args.parseLong(a[4]) == null) return Replies.error("ERR value is not an integer or out of range");
        }
        RecordHeader header = node.reads().header(a[2]); // null if expired
        if (header == null || header.state() == RecordState.TOMBSTONE) return Replies.NIL;
        long value = Records.structure(header)
                ? node.store().memberBytes(a[2], header.type()) // its header's count of its pages' bytes
                : header.valueLength();
        return Replies.integer((long) a[2].length + value + RECORD_OVERHEAD);
    }
}
