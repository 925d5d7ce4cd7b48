package dev.kvs.client.internal;

import dev.kvs.client.Keys;
import dev.kvs.client.ReplicationMode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One command to send: its arguments, the keys it names (for error messages), whether it may be
 * resent after an ambiguous failure, and how its reply is decoded. Immutable; the argument arrays are
 * the caller's and are not copied.
 */
final class Command<T> {
    private static final byte[] GET = ascii("GET");
    private static final byte[] SET = ascii("SET");
    private static final byte[] NX = ascii("NX");
    private static final byte[] DEL = ascii("DEL");
    private static final byte[] EXISTS = ascii("EXISTS");
    private static final byte[] MGET = ascii("MGET");
    private static final byte[] MSET = ascii("MSET");
    private static final byte[] PING = ascii("PING");

    final String name;
    private final byte[][] args;
    final List<byte[]> keys;
    /** True if executing it twice is harmless: it may be resent after a connection loss. */
    final boolean readOnly;

    final ReplyDecoder<T> decoder;

    private Command(String name, byte[][] args, List<byte[]> keys, boolean readOnly, ReplyDecoder<T> decoder) {
        this.name = name;
        this.args = args;
        this.keys = keys;
        this.readOnly = readOnly;
        this.decoder = decoder;
    }

    static Command<byte[]> get(byte[] key) {
        return new Command<>("GET", new byte[][] {GET, key}, List.of(key), true, Replies.BULK);
    }

    static Command<Void> set(byte[] key, byte[] value) {
        return new Command<>("SET", new byte[][] {SET, key, value}, List.of(key), false, Replies.OK);
    }

    static Command<Boolean> setIfAbsent(byte[] key, byte[] value) {
        return new Command<>("SET", new byte[][] {SET, key, value, NX}, List.of(key), false, Replies.OK_OR_NIL);
    }

    static Command<Boolean> delete(byte[] key) {
        return new Command<>("DEL", new byte[][] {DEL, key}, List.of(key), false, Replies.POSITIVE);
    }

    static Command<Boolean> exists(byte[] key) {
        return new Command<>("EXISTS", new byte[][] {EXISTS, key}, List.of(key), true, Replies.POSITIVE);
    }

    static Command<List<byte[]>> getAll(List<byte[]> keys) {
        keys = List.copyOf(keys);
        byte[][] args = new byte[keys.size() + 1][];
        args[0] = MGET;
        for (int i = 0; i < keys.size(); i++) args[i + 1] = keys.get(i);
        return new Command<>("MGET", args, keys, true, Replies.BULK_ARRAY);
    }

    static Command<Void> putAll(List<byte[]> keys, List<byte[]> values) {
        keys = List.copyOf(keys);
        byte[][] args = new byte[keys.size() * 2 + 1][];
        args[0] = MSET;
        for (int i = 0; i < keys.size(); i++) {
            args[2 * i + 1] = keys.get(i);
            args[2 * i + 2] = values.get(i);
        }
        return new Command<>("MSET", args, keys, false, Replies.OK);
    }

    /** {@code PEXPIRE key millis}: true if the key exists. */
    static Command<Boolean> expire(byte[] key, long millis) {
        return new Command<>(
                "PEXPIRE",
                new byte[][] {ascii("PEXPIRE"), key, ascii(Long.toString(millis))},
                List.of(key),
                false,
                Replies.POSITIVE);
    }

    /**
     * A command on one key's hash or set: {@code name key args...}, decoded by {@code decoder}; {@code
     * readOnly} if it may be resent after an ambiguous failure.
     */
    static <T> Command<T> onKey(String name, byte[] key, List<byte[]> args, boolean readOnly, ReplyDecoder<T> decoder) {
        byte[][] all = new byte[args.size() + 2][];
        all[0] = ascii(name);
        all[1] = key;
        for (int i = 0; i < args.size(); i++) all[i + 2] = args.get(i);
        return new Command<>(name, all, List.of(key), readOnly, decoder);
    }

    static Command<String> ping() {
        return new Command<>("PING", new byte[][] {PING}, List.of(), true, Replies.SIMPLE);
    }

    /** {@code CLUSTER SHARDS}, decoded as the {@link Topology} a TLS client ({@code tls}) or a plain one sees. */
    static Command<Topology> clusterShards(boolean tls) {
        return new Command<>(
                "CLUSTER SHARDS",
                new byte[][] {ascii("CLUSTER"), ascii("SHARDS")},
                List.of(),
                true,
                Topology.decoder(tls));
    }

    static Command<Void> auth(String user, String password) {
        byte[][] args = user == null
                ? new byte[][] {ascii("AUTH"), utf8(password)}
                : new byte[][] {ascii("AUTH"), utf8(user), utf8(password)};
        return new Command<>("AUTH", args, List.of(), true, Replies.OK);
    }

    static Command<Void> clientSetName(String name) {
        return new Command<>(
                "CLIENT SETNAME",
                new byte[][] {ascii("CLIENT"), ascii("SETNAME"), utf8(name)},
                List.of(),
                true,
                Replies.OK);
    }

    static Command<Void> mode(ReplicationMode mode) {
        return new Command<>(
                "KVS.MODE", new byte[][] {ascii("KVS.MODE"), ascii(mode.label())}, List.of(), true, Replies.OK);
    }

    /** This command as sent inside {@code MULTI}: the same arguments, answered {@code +QUEUED}. */
    Command<Void> queued() {
        return new Command<>(name, args, keys, readOnly, Replies.QUEUED);
    }

    /** A command without a key: {@code MULTI}, {@code EXEC}'s kin, {@code UNWATCH}, {@code DISCARD}. */
    static Command<Void> control(String name) {
        return new Command<>(name, new byte[][] {ascii(name)}, List.of(), false, Replies.OK);
    }

    /** {@code WATCH keys...}. */
    static Command<Void> watch(List<byte[]> keys) {
        keys = List.copyOf(keys);
        byte[][] args = new byte[keys.size() + 1][];
        args[0] = ascii("WATCH");
        for (int i = 0; i < keys.size(); i++) args[i + 1] = keys.get(i);
        return new Command<>("WATCH", args, keys, true, Replies.OK);
    }

    /**
     * {@code EXEC} of {@code queued}: empty if a watched key changed (nothing was applied), else each
     * command's result in order, or the {@link dev.kvs.client.KvsClientException} its error reply means.
     */
    static Command<java.util.Optional<List<Object>>> exec(List<Command<?>> queued) {
        return new Command<>("EXEC", new byte[][] {ascii("EXEC")}, List.of(), false, Replies.exec(queued));
    }

    /** A new message for the encoder, which releases it once written. */
    ArrayRedisMessage toMessage() {
        List<RedisMessage> children = new ArrayList<>(args.length);
        for (byte[] a : args) {
            children.add(
                    a.length == 0
                            ? FullBulkStringRedisMessage.EMPTY_INSTANCE
                            : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(a)));
        }
        return new ArrayRedisMessage(children);
    }

    /** The command and its first key, for messages: {@code GET user:42}. */
    String describe() {
        return keys.isEmpty() ? name : name + " " + Keys.printable(keys.get(0)) + (keys.size() > 1 ? " ..." : "");
    }

    @Override
    public String toString() {
        return describe();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
