package dev.kvs.replication;

import dev.kvs.core.TxId;
import java.util.List;

/**
 * What one write did to a hash or set, for {@link WriteOrder#putStructure(byte[], dev.kvs.core.ValueType, long,
 * StructureEffect)}: the members it set ({@code names[i]} to {@code values[i]}; a set's members have empty values)
 * and the members it removed, on the key's structure at {@code base} (its TxId before the write). The primary may
 * ship this instead of the structure's whole image, so a small change to a large structure crosses the link as
 * the change; a backup applies it only on exactly that base, and otherwise the image ships.
 */
public record StructureEffect(TxId base, List<byte[]> names, List<byte[]> values, List<byte[]> removed) {
    public StructureEffect {
        if (base == null) throw new IllegalArgumentException("an effect needs its base");
        names = List.copyOf(names);
        values = List.copyOf(values);
        removed = List.copyOf(removed);
        if (names.size() != values.size()) throw new IllegalArgumentException("a value per name");
    }

    /** The bytes the effect holds: what it costs to keep it until it ships. */
    public long bytes() {
        long n = 64;
        for (byte[] b : names) n += b.length + 16;
        for (byte[] b : values) n += b.length + 16;
        for (byte[] b : removed) n += b.length + 16;
        return n;
    }
}
