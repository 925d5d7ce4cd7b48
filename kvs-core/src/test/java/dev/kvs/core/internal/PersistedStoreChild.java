package dev.kvs.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * Run in a child JVM by {@link ChronicleKvStorePersistedTest}: writes {@code n} records to a persisted
 * store, prints {@code READY} and waits, never closing the store, to be killed with SIGKILL.
 */
public final class PersistedStoreChild {
    private PersistedStoreChild() {}

    static StoreConfig config(Path dir) {
        return StoreConfig.builder()
                .maxEntries(10_000)
                .maxBytes(64L << 20)
                .dataDir(dir)
                .build();
    }

    static byte[] key(int i) {
        return ("child-" + i).getBytes(UTF_8);
    }

    /** Every 25th value is chunked; the rest are small. */
    static StoredValue value(int i) {
        byte[] value = new byte[i % 25 == 0 ? ValueChunks.CHUNK_BYTES + 1000 + i : 10 + i % 100];
        Arrays.fill(value, (byte) i);
        return StoredValue.complete(TxId.of(7, i), value);
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        KvStore store = Stores.open(config(dir));
        for (int i = 0; i < n; i++) store.put(key(i), value(i));
        // overwrite some, so the dead process leaves freed and replaced chunks behind too
        for (int i = 0; i < n; i += 50) store.put(key(i), value(i + 1));
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
