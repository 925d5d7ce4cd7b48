package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StructureChange;
import dev.kvs.core.StructureView;
import dev.kvs.core.ValueType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * {@link dev.kvs.core.KvStore#updateStructures} in the Chronicle store: the function's view of the
 * keys' records, and its changes made through {@link Structures}, every stripe held by the caller.
 */
final class StructureBatch {
    private StructureBatch() {}

    /**
     * Runs {@code fn} on a view of {@code olds} (the records of {@code keys}, {@code null} where absent
     * or hidden) and makes the changes it returns, in order.
     */
    static List<MemberWrite> run(
            Structures structures,
            RecordWriter writer,
            List<byte[]> keys,
            List<Record> olds,
            Function<StructureView, List<StructureChange>> fn) {
        List<StructureChange> changes = fn.apply(new View(structures, keys, olds));
        check(keys, changes);
        List<MemberWrite> out = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            Record old = olds.get(i);
            StructureChange c = changes.get(i);
            if (c instanceof StructureChange.Put p) {
                out.add(structures.put(key, old, p.type(), p.members(), false, p.txId()));
            } else if (c instanceof StructureChange.Remove r) {
                out.add(structures.remove(key, old, r.type(), r.names(), false, r.txId()));
            } else if (c instanceof StructureChange.Edit e) {
                out.add(structures.edit(key, old, e.type(), e.names(), e.members(), e.txId()));
            } else if (c instanceof StructureChange.Replace r) {
                out.add(structures.replace(key, old, r.type(), r.members(), r.txId(), writer));
            } else {
                out.add(new MemberWrite(old == null ? null : old.header(), false, 0, List.of()));
            }
        }
        return out;
    }

    /**
     * Checks what an {@code updateStructures} function returned: one change per key, and at most one
     * that is not a keep per distinct key.
     *
     * @throws IllegalArgumentException if not
     */
    static void check(List<byte[]> keys, List<StructureChange> changes) {
        Objects.requireNonNull(changes, "update function returned null");
        if (changes.size() != keys.size()) {
            throw new IllegalArgumentException(
                    "update function returned " + changes.size() + " changes for " + keys.size() + " keys");
        }
        Set<ByteKey> changed = new HashSet<>();
        for (int i = 0; i < changes.size(); i++) {
            StructureChange c = changes.get(i);
            if (c == null) throw new NullPointerException("update function returned a null change at " + i);
            if (c != StructureChange.keep() && !changed.add(new ByteKey(keys.get(i)))) {
                throw new IllegalArgumentException("more than one change for key " + i + ": " + c);
            }
        }
    }

    private record View(Structures structures, List<byte[]> keys, List<Record> olds) implements StructureView {
        @Override
        public RecordHeader header(int i) {
            Record r = olds.get(i);
            return r == null ? null : r.header();
        }

        @Override
        public List<Member> members(int i, ValueType type) {
            return structures.all(keys.get(i), olds.get(i), type);
        }

        @Override
        public List<byte[]> getMembers(int i, ValueType type, List<byte[]> names) {
            return structures.get(keys.get(i), olds.get(i), type, names);
        }

        @Override
        public long memberCount(int i, ValueType type) {
            return structures.count(olds.get(i), type);
        }
    }
}
