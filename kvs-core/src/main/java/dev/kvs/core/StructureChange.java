package dev.kvs.core;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What a {@link KvStore#updateStructures} function decides to do with one of its keys: keep it, put or
 * remove members of its hash or set (as {@link KvStore#putMembers} and {@link KvStore#removeMembers}
 * do) or both in one write ({@link #edit}), or replace whatever it holds with a structure of exactly the given members (SINTERSTORE and the
 * other {@code *STORE} commands). Each write's {@code txId} is called under the keys' locks, once, only
 * if the key changes. Lists are not copied.
 */
public sealed interface StructureChange {
    /** Leave the key as it is. */
    static StructureChange keep() {
        return Keep.INSTANCE;
    }

    /** Set {@code members} of the {@code type} at the key, as {@link KvStore#putMembers} does. */
    static StructureChange put(ValueType type, List<Member> members, Supplier<TxId> txId) {
        return new Put(type, members, txId);
    }

    /** Remove {@code names} from the {@code type} at the key, as {@link KvStore#removeMembers} does. */
    static StructureChange remove(ValueType type, List<byte[]> names, Supplier<TxId> txId) {
        return new Remove(type, names, txId);
    }

    /**
     * Remove {@code names}, then set {@code members}, in the {@code type} at the key, as one write with
     * one TxId (a list's push or pop, which moves the list's bounds member with its elements); the key
     * keeps its expiry, and is deleted if no member is left.
     */
    static StructureChange edit(ValueType type, List<byte[]> names, List<Member> members, Supplier<TxId> txId) {
        return new Edit(type, names, members, txId);
    }

    /**
     * Make the key, whatever it held (any type, or nothing), a {@code type} of exactly {@code members},
     * without expiry; with no members the key is deleted (a tombstone of its TxId), or left if it held
     * nothing.
     */
    static StructureChange replace(ValueType type, List<Member> members, Supplier<TxId> txId) {
        return new Replace(type, members, txId);
    }

    /** See {@link #keep()}. */
    enum Keep implements StructureChange {
        INSTANCE
    }

    /** See {@link #put}. */
    record Put(ValueType type, List<Member> members, Supplier<TxId> txId) implements StructureChange {
        public Put {
            Objects.requireNonNull(type, "type == null");
            Objects.requireNonNull(members, "members == null");
            Objects.requireNonNull(txId, "txId == null");
        }
    }

    /** See {@link #remove}. */
    record Remove(ValueType type, List<byte[]> names, Supplier<TxId> txId) implements StructureChange {
        public Remove {
            Objects.requireNonNull(type, "type == null");
            Objects.requireNonNull(names, "names == null");
            Objects.requireNonNull(txId, "txId == null");
        }
    }

    /** See {@link #edit}. */
    record Edit(ValueType type, List<byte[]> names, List<Member> members, Supplier<TxId> txId)
            implements StructureChange {
        public Edit {
            Objects.requireNonNull(type, "type == null");
            Objects.requireNonNull(names, "names == null");
            Objects.requireNonNull(members, "members == null");
            Objects.requireNonNull(txId, "txId == null");
        }
    }

    /** See {@link #replace}. */
    record Replace(ValueType type, List<Member> members, Supplier<TxId> txId) implements StructureChange {
        public Replace {
            Objects.requireNonNull(type, "type == null");
            Objects.requireNonNull(members, "members == null");
            Objects.requireNonNull(txId, "txId == null");
        }
    }
}
