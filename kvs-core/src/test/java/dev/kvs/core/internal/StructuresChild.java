package dev.kvs.core.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Run in a child JVM by {@link StructuresKillTest}: writes a hash without end, one field at a time,
 * growing it to 600 fields and shrinking it to 40 again (so its pages split and merge), and appends
 * each write to a file once it returned ({@code +i} added, {@code -i} removed: one write(2) each, so
 * what it wrote before a SIGKILL is in the file), printing how many returned every 100, until killed.
 */
public final class StructuresChild {
    static final byte[] KEY = "hash".getBytes(StandardCharsets.UTF_8);

    private StructuresChild() {}

    static StoreConfig config(Path dir) {
        return StoreConfig.builder()
                .maxEntries(10_000)
                .maxBytes(16L << 20)
                .dataDir(dir)
                .build();
    }

    static byte[] field(int i) {
        return ("field-" + i).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws IOException {
        KvStore store = Stores.open(config(Path.of(args[0])));
        try (FileOutputStream returned = new FileOutputStream(args[1], true)) {
            long seq = 0;
            while (true) {
                for (int i = 0; i < 600; i++) {
                    long tx = ++seq;
                    List<Member> field = List.of(new Member(field(i), value(i)));
                    store.putMembers(KEY, ValueType.HASH, field, false, () -> TxId.of(1, tx));
                    returned(returned, "+" + i, seq);
                }
                for (int i = 0; i < 560; i++) {
                    long tx = ++seq;
                    store.removeMembers(KEY, ValueType.HASH, List.of(field(i)), false, () -> TxId.of(1, tx));
                    returned(returned, "-" + i, seq);
                }
            }
        }
    }

    private static void returned(FileOutputStream out, String write, long count) throws IOException {
        out.write((write + "\n").getBytes(StandardCharsets.UTF_8));
        if (count % 100 == 0) {
            System.out.println(count);
            System.out.flush();
        }
    }
}
