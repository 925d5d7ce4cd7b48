package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueRead;
import dev.kvs.core.Write;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Seeded multi-threaded checks of a store, run by {@link KvStoreContractTest}. Each prints its seed;
 * replay one with {@code -Dkvs.test.seed=<seed>}.
 */
final class KvStoreConcurrencyContract {
    private final KvStore store;
    private final long seed = Long.getLong("kvs.test.seed", System.nanoTime());

    KvStoreConcurrencyContract(KvStore store) {
        this.store = store;
    }

    /**
     * Writers replace all keys in one updateAll with values of one TxId (one of them sometimes
     * chunked); readers' getAll must always see a single TxId across the keys, and whole values.
     */
    void updateAllIsAtomicForGetAll() throws Exception {
        System.out.println("updateAllIsAtomicForGetAll seed " + seed);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 6; i++) keys.add(("atomic-" + i).getBytes(StandardCharsets.UTF_8));
        keys.add(new byte[300]); // in the long-key map
        AtomicLong seq = new AtomicLong();
        Random init = new Random(seed);
        store.updateAll(keys, h -> writesFor(keys, seq.incrementAndGet(), init));
        AtomicBoolean writersDone = new AtomicBoolean();
        AtomicLong consistentReads = new AtomicLong();
        List<Callable<Void>> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            Random r = new Random(seed + w + 1);
            writers.add(() -> {
                for (int n = 0; n < 300; n++) {
                    List<byte[]> order = new ArrayList<>(keys);
                    Collections.shuffle(order, r);
                    order.add(order.get(0)); // a repeated key: its last write wins
                    store.updateAll(order, headers -> {
                        assertSingleTxId(headers);
                        return writesFor(order, seq.incrementAndGet(), r);
                    });
                }
                return null;
            });
        }
        List<Callable<Void>> readers = new ArrayList<>();
        for (int rd = 0; rd < 2; rd++) {
            Random r = new Random(seed - rd - 1);
            readers.add(() -> {
                do {
                    List<byte[]> order = new ArrayList<>(keys);
                    Collections.shuffle(order, r);
                    List<StoredValue> values = store.getAll(order);
                    assertSingleTxId(values.stream().map(StoredValue::header).toList());
                    values.forEach(KvStoreConcurrencyContract::assertWhole);
                    consistentReads.incrementAndGet();
                } while (!writersDone.get());
                return null;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Void>> readerFutures = new ArrayList<>();
            for (Callable<Void> reader : readers) readerFutures.add(pool.submit(reader));
            List<Future<Void>> writerFutures = new ArrayList<>();
            for (Callable<Void> writer : writers) writerFutures.add(pool.submit(writer));
            try {
                for (Future<Void> f : writerFutures) f.get(60, TimeUnit.SECONDS);
            } finally {
                writersDone.set(true);
            }
            for (Future<Void> f : readerFutures) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(consistentReads.get()).isPositive();
        List<StoredValue> last = store.getAll(keys);
        assertSingleTxId(last.stream().map(StoredValue::header).toList());
        assertThat(last.get(0).txId().seq()).isEqualTo(seq.get());
        assertThat(store.size()).isEqualTo(keys.size());
    }

    /**
     * Two writers replace one key's value (chunked, of varying length) while a reader copies it into
     * direct buffers with readValue, and another reads it and an inline key with readAll: every read
     * must be one whole value matching the header read with it.
     */
    void readValueSeesWholeValues() throws Exception {
        System.out.println("readValueSeesWholeValues seed " + seed);
        byte[] key = "read-into".getBytes(StandardCharsets.UTF_8);
        byte[] small = "read-into-small".getBytes(StandardCharsets.UTF_8);
        AtomicLong seq = new AtomicLong();
        store.put(
                key, StoredValue.complete(TxId.of(1, seq.incrementAndGet()), valueOf(1, 3 * ValueChunks.CHUNK_BYTES)));
        store.put(small, StoredValue.complete(TxId.of(1, seq.incrementAndGet()), valueOf(2, 100)));
        AtomicBoolean writersDone = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        List<Callable<Void>> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            Random r = new Random(seed + w + 1);
            writers.add(() -> {
                for (int n = 0; n < 200; n++) {
                    long s = seq.incrementAndGet();
                    int length = RecordMaps.INLINE_MAX + 1 + r.nextInt(3 * ValueChunks.CHUNK_BYTES);
                    store.put(key, StoredValue.complete(TxId.of(1, s), valueOf(s, length)));
                    if (n % 10 == 0)
                        store.put(small, StoredValue.complete(TxId.of(1, s), valueOf(s, 8 + r.nextInt(64))));
                }
                return null;
            });
        }
        Callable<Void> readOne = () -> {
            do {
                List<ByteBuffer> given = new ArrayList<>();
                ValueRead read = store.readValue(key, length -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(length);
                    given.add(b);
                    return b;
                });
                assertThat(read.inBuffer()).isTrue();
                assertThat(read.buffer()).isSameAs(given.get(given.size() - 1));
                assertWhole(read.header(), read.buffer().flip());
                ValueRead inline = store.readValue(small, ByteBuffer::allocateDirect); // copied as its record is read
                assertThat(inline.inBuffer()).isTrue();
                assertWhole(inline.header(), inline.buffer().flip());
                reads.incrementAndGet();
            } while (!writersDone.get());
            return null;
        };
        Callable<Void> readAll = () -> {
            do {
                List<ValueRead> all = store.readAll(List.of(small, key), ByteBuffer::allocateDirect);
                for (ValueRead read : all)
                    assertWhole(read.header(), read.buffer().flip());
                reads.incrementAndGet();
            } while (!writersDone.get());
            return null;
        };
        Random rangeRandom = new Random(seed - 1);
        Callable<Void> readRange = () -> {
            ByteBuffer b = ByteBuffer.allocateDirect(2 * ValueChunks.CHUNK_BYTES);
            do {
                // bytes from 8 on are (byte) (seq + i): a range names the write it came from
                int offset = 8 + rangeRandom.nextInt(2 * ValueChunks.CHUNK_BYTES);
                int n = rangeRandom.nextInt(2 * ValueChunks.CHUNK_BYTES);
                b.clear();
                RecordHeader h = store.readRange(key, offset, n, b);
                assertThat(h.state()).isEqualTo(RecordState.COMPLETE);
                if (offset + n > h.valueLength()) {
                    assertThat(b.position()).isZero();
                } else {
                    assertThat(b.position()).isEqualTo(n);
                    for (int i = 0; i < n; i++) {
                        if (b.get(i) != (byte) (h.txId().seq() + offset + i)) {
                            throw new AssertionError("byte " + (offset + i) + " of a range read as " + h.txId()
                                    + " is not that write's (seed " + seed + ")");
                        }
                    }
                }
                reads.incrementAndGet();
            } while (!writersDone.get());
            return null;
        };
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            List<Future<Void>> readers = List.of(pool.submit(readOne), pool.submit(readAll), pool.submit(readRange));
            List<Future<Void>> writerFutures = new ArrayList<>();
            for (Callable<Void> writer : writers) writerFutures.add(pool.submit(writer));
            try {
                for (Future<Void> f : writerFutures) f.get(60, TimeUnit.SECONDS);
            } finally {
                writersDone.set(true);
            }
            for (Future<Void> f : readers) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(reads.get()).isGreaterThanOrEqualTo(3);
    }

    private static void assertWhole(RecordHeader h, ByteBuffer value) {
        assertThat(h.state()).isEqualTo(RecordState.COMPLETE);
        byte[] bytes = new byte[value.remaining()];
        value.get(bytes);
        assertThat(bytes).hasSize(h.valueLength());
        assertThat(Checksums.crc32c(bytes)).isEqualTo(h.checksum());
        assertThat(ByteBuffer.wrap(bytes).getLong()).isEqualTo(h.txId().seq());
    }

    private static List<Write> writesFor(List<byte[]> keys, long seq, Random r) {
        List<Write> writes = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            int length = i == 0 && r.nextInt(5) == 0
                    ? RecordMaps.INLINE_MAX + 1 + r.nextInt(ValueChunks.CHUNK_BYTES)
                    : 8 + r.nextInt(64);
            writes.add(Write.put(StoredValue.complete(TxId.of(1, seq), valueOf(seq, length))));
        }
        return writes;
    }

    private static byte[] valueOf(long seq, int length) {
        byte[] value = new byte[length];
        ByteBuffer.wrap(value).putLong(seq);
        for (int i = 8; i < length; i++) value[i] = (byte) (seq + i);
        return value;
    }

    private static void assertSingleTxId(List<RecordHeader> headers) {
        assertThat(headers).doesNotContainNull();
        assertThat(headers.stream().map(RecordHeader::txId).distinct()).hasSize(1);
    }

    private static void assertWhole(StoredValue v) {
        if (v.state() == RecordState.COMPLETE) {
            assertThat(v.value()).hasSize(v.header().valueLength());
            assertThat(Checksums.crc32c(v.value())).isEqualTo(v.header().checksum());
        } else {
            assertThat(v.value()).isEmpty();
        }
    }

    /**
     * Threads run random puts, deletes, updates and batches, often hitting the store's limits; then
     * the counters must equal a recount of what the store holds, and every record must be whole.
     */
    void randomOperationsKeepCountersExact() throws Exception {
        System.out.println("randomOperationsKeepCountersExact seed " + seed);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 60; i++) keys.add(("random-" + i).getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 6; i++) keys.add(bytesOfLength(300 + i * 100, i));
        AtomicLong seq = new AtomicLong();
        AtomicLong full = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Random r = new Random(seed * 31 + t);
                futures.add(pool.submit(() -> {
                    for (int n = 0; n < 1500; n++) {
                        try {
                            randomOperation(r, keys, seq);
                        } catch (StoreFullException e) {
                            full.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) f.get(120, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        long[] recount = new long[4];
        store.forEach((k, v) -> {
            assertWhole(v);
            recount[0]++;
            if (v.state() != RecordState.TOMBSTONE) recount[1]++;
            recount[2] += k.length;
            recount[3] += v.value().length;
        });
        StoreStats stats = store.stats();
        assertThat(new long[] {stats.entries(), stats.liveEntries(), stats.keyBytes(), stats.valueBytes()})
                .as("counters vs recount (seed %d, %d full)", seed, full.get())
                .containsExactly(recount);
        assertThat(store.size()).isEqualTo(recount[1]);
        assertThat(stats.liveEntries()).isLessThanOrEqualTo(stats.maxEntries());
        assertThat(stats.entries())
                .isLessThanOrEqualTo(stats.maxEntries() + store.config().tombstoneReserve());
        assertThat(stats.keyBytes() + stats.valueBytes()).isLessThanOrEqualTo(stats.maxBytes());
    }

    private void randomOperation(Random r, List<byte[]> keys, AtomicLong seq) {
        byte[] key = keys.get(r.nextInt(keys.size()));
        switch (r.nextInt(10)) {
            case 0, 1, 2, 3 -> store.put(key, randomRecord(r, seq.incrementAndGet()));
            case 4 -> store.delete(key);
            case 5 ->
                store.update(
                        key,
                        h -> h == null || h.state() == RecordState.TOMBSTONE
                                ? Write.put(randomRecord(r, seq.incrementAndGet()))
                                : r.nextBoolean() ? Write.remove() : Write.keep());
            case 6, 7 -> {
                List<byte[]> batch = new ArrayList<>();
                for (int i = 1 + r.nextInt(5); i > 0; i--) batch.add(keys.get(r.nextInt(keys.size())));
                store.updateAll(batch, headers -> {
                    List<Write> writes = new ArrayList<>();
                    for (int i = 0; i < headers.size(); i++) {
                        int choice = r.nextInt(4);
                        writes.add(
                                choice == 0
                                        ? Write.remove()
                                        : choice == 1
                                                ? Write.keep()
                                                : Write.put(randomRecord(r, seq.incrementAndGet())));
                    }
                    return writes;
                });
            }
            default -> {
                StoredValue v = store.get(key);
                if (v != null) assertWhole(v);
                store.getAll(List.of(key, keys.get(r.nextInt(keys.size())))).stream()
                        .filter(x -> x != null)
                        .forEach(KvStoreConcurrencyContract::assertWhole);
            }
        }
    }

    private static StoredValue randomRecord(Random r, long seq) {
        TxId txId = TxId.of(1, seq);
        int kind = r.nextInt(20);
        if (kind == 0) return StoredValue.tombstone(txId);
        if (kind == 1) return StoredValue.unfinished(txId, r.nextInt(), r.nextInt(1 << 20));
        int length = kind < 14
                ? r.nextInt(200)
                : kind < 18 ? RecordMaps.INLINE_MAX - 10 + r.nextInt(20) : r.nextInt(3 * ValueChunks.CHUNK_BYTES);
        return StoredValue.complete(txId, valueOf(seq, Math.max(8, length)));
    }

    private static byte[] bytesOfLength(int length, int fill) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) fill);
        return b;
    }
}
