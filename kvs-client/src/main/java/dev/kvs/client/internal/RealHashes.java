package dev.kvs.client.internal;

import dev.kvs.client.KvsHashes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** {@link KvsHashes} over a {@link RealKvsClient}'s dispatcher: each call one command on one key. */
final class RealHashes implements KvsHashes {
    private final RealKvsClient client;

    RealHashes(RealKvsClient client) {
        this.client = client;
    }

    @Override
    public byte[] get(byte[] key, byte[] field) {
        return client.await(getAsync(key, field));
    }

    @Override
    public String get(String key, String field) {
        return text(get(utf8(key), utf8(field)));
    }

    @Override
    public CompletableFuture<byte[]> getAsync(byte[] key, byte[] field) {
        return client.submit(Command.onKey("HGET", key(key), List.of(arg(field, "field")), true, Replies.BULK));
    }

    @Override
    public List<byte[]> get(byte[] key, List<byte[]> fields) {
        List<byte[]> f = RealKvsClient.noNulls(fields, "fields");
        if (f.isEmpty()) return List.of();
        return client.await(client.submit(Command.onKey("HMGET", key(key), f, true, Replies.BULK_ARRAY)));
    }

    @Override
    public Map<String, byte[]> getAll(byte[] key) {
        return client.await(getAllAsync(key));
    }

    @Override
    public Map<String, String> getAll(String key) {
        Map<String, String> out = new LinkedHashMap<>();
        getAll(utf8(key)).forEach((f, v) -> out.put(f, text(v)));
        return Collections.unmodifiableMap(out);
    }

    @Override
    public CompletableFuture<Map<String, byte[]>> getAllAsync(byte[] key) {
        return client.submit(Command.onKey("HGETALL", key(key), List.of(), true, Replies.FIELD_MAP));
    }

    @Override
    public boolean put(byte[] key, byte[] field, byte[] value) {
        return client.await(putAsync(key, field, value));
    }

    @Override
    public boolean put(String key, String field, String value) {
        return put(utf8(key), utf8(field), utf8(value));
    }

    @Override
    public CompletableFuture<Boolean> putAsync(byte[] key, byte[] field, byte[] value) {
        return client.submit(Command.onKey(
                "HSET", key(key), List.of(arg(field, "field"), arg(value, "value")), false, Replies.POSITIVE));
    }

    @Override
    public long putAll(byte[] key, Map<String, byte[]> fields) {
        return client.await(putAllAsync(key, fields));
    }

    @Override
    public long putAll(String key, Map<String, String> fields) {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        Objects.requireNonNull(fields, "fields").forEach((f, v) -> bytes.put(f, utf8(v)));
        return putAll(utf8(key), bytes);
    }

    @Override
    public CompletableFuture<Long> putAllAsync(byte[] key, Map<String, byte[]> fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.isEmpty()) throw new IllegalArgumentException("fields is empty: HSET needs at least one");
        List<byte[]> args = new ArrayList<>(fields.size() * 2);
        fields.forEach((f, v) -> {
            args.add(utf8(f));
            args.add(arg(v, "value of " + f));
        });
        return client.submit(Command.onKey("HSET", key(key), args, false, Replies.INTEGER));
    }

    @Override
    public boolean putIfAbsent(byte[] key, byte[] field, byte[] value) {
        return client.await(client.submit(Command.onKey(
                "HSETNX", key(key), List.of(arg(field, "field"), arg(value, "value")), false, Replies.POSITIVE)));
    }

    @Override
    public long delete(byte[] key, List<byte[]> fields) {
        List<byte[]> f = RealKvsClient.noNulls(fields, "fields");
        if (f.isEmpty()) throw new IllegalArgumentException("fields is empty: HDEL needs at least one");
        return client.await(client.submit(Command.onKey("HDEL", key(key), f, false, Replies.INTEGER)));
    }

    @Override
    public boolean delete(String key, String field) {
        return delete(utf8(key), List.of(utf8(field))) > 0;
    }

    @Override
    public boolean contains(byte[] key, byte[] field) {
        return client.await(client.submit(
                Command.onKey("HEXISTS", key(key), List.of(arg(field, "field")), true, Replies.POSITIVE)));
    }

    @Override
    public long size(byte[] key) {
        return client.await(client.submit(Command.onKey("HLEN", key(key), List.of(), true, Replies.INTEGER)));
    }

    @Override
    public long increment(byte[] key, byte[] field, long by) {
        byte[] amount = Long.toString(by).getBytes(StandardCharsets.US_ASCII);
        return client.await(client.submit(
                Command.onKey("HINCRBY", key(key), List.of(arg(field, "field"), amount), false, Replies.INTEGER)));
    }

    @Override
    public long increment(String key, String field, long by) {
        return increment(utf8(key), utf8(field), by);
    }

    private static byte[] key(byte[] key) {
        return Objects.requireNonNull(key, "key");
    }

    private static byte[] arg(byte[] a, String name) {
        return Objects.requireNonNull(a, name);
    }

    static byte[] utf8(String s) {
        return Objects.requireNonNull(s, "argument").getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
