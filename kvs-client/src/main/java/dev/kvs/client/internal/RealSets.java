package dev.kvs.client.internal;

import static dev.kvs.client.internal.RealHashes.text;
import static dev.kvs.client.internal.RealHashes.utf8;

import dev.kvs.client.KvsSets;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** {@link KvsSets} over a {@link RealKvsClient}'s dispatcher: each call one command on one key. */
final class RealSets implements KvsSets {
    private final RealKvsClient client;

    RealSets(RealKvsClient client) {
        this.client = client;
    }

    @Override
    public boolean add(byte[] key, byte[] member) {
        return client.await(addAsync(key, member));
    }

    @Override
    public boolean add(String key, String member) {
        return add(utf8(key), utf8(member));
    }

    @Override
    public CompletableFuture<Boolean> addAsync(byte[] key, byte[] member) {
        return client.submit(Command.onKey("SADD", key(key), List.of(member(member)), false, Replies.POSITIVE));
    }

    @Override
    public long addAll(byte[] key, List<byte[]> members) {
        return client.await(client.submit(Command.onKey("SADD", key(key), nonEmpty(members), false, Replies.INTEGER)));
    }

    @Override
    public boolean remove(byte[] key, byte[] member) {
        return client.await(
                client.submit(Command.onKey("SREM", key(key), List.of(member(member)), false, Replies.POSITIVE)));
    }

    @Override
    public boolean remove(String key, String member) {
        return remove(utf8(key), utf8(member));
    }

    @Override
    public long removeAll(byte[] key, List<byte[]> members) {
        return client.await(client.submit(Command.onKey("SREM", key(key), nonEmpty(members), false, Replies.INTEGER)));
    }

    @Override
    public boolean contains(byte[] key, byte[] member) {
        return client.await(containsAsync(key, member));
    }

    @Override
    public boolean contains(String key, String member) {
        return contains(utf8(key), utf8(member));
    }

    @Override
    public CompletableFuture<Boolean> containsAsync(byte[] key, byte[] member) {
        return client.submit(Command.onKey("SISMEMBER", key(key), List.of(member(member)), true, Replies.POSITIVE));
    }

    @Override
    public List<byte[]> members(byte[] key) {
        return client.await(client.submit(Command.onKey("SMEMBERS", key(key), List.of(), true, Replies.BULK_ARRAY)));
    }

    @Override
    public Set<String> members(String key) {
        Set<String> out = new LinkedHashSet<>();
        for (byte[] m : members(utf8(key))) out.add(text(m));
        return Collections.unmodifiableSet(out);
    }

    @Override
    public long size(byte[] key) {
        return client.await(client.submit(Command.onKey("SCARD", key(key), List.of(), true, Replies.INTEGER)));
    }

    @Override
    public byte[] pop(byte[] key) {
        return client.await(client.submit(Command.onKey("SPOP", key(key), List.of(), false, Replies.BULK)));
    }

    private static byte[] key(byte[] key) {
        return Objects.requireNonNull(key, "key");
    }

    private static byte[] member(byte[] m) {
        return Objects.requireNonNull(m, "member");
    }

    private static List<byte[]> nonEmpty(List<byte[]> members) {
        List<byte[]> m = RealKvsClient.noNulls(members, "members");
        if (m.isEmpty()) throw new IllegalArgumentException("members is empty: at least one is needed");
        return m;
    }
}
