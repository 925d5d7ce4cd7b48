package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordDataAccessTest {
    private static final RecordMarshaller M = RecordMarshaller.INSTANCE;

    private static long seed(String test) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed);
        return seed;
    }

    /** Every shape of record: inline in every state, with and without expiry, chunked, empty. */
    private static List<Record> records() {
        List<Record> out = new ArrayList<>();
        for (StoredValue v : new StoredValue[] {
            StoredValue.complete(TxId.of(Long.MAX_VALUE, 2), "hello".getBytes()),
            StoredValue.complete(TxId.of(0, 0), new byte[0]),
            StoredValue.complete(TxId.of(7, 8), "expires".getBytes(), 1_700_000_000_123L),
            StoredValue.unfinished(TxId.of(3, 4), -5, 600),
            StoredValue.lost(TxId.of(5, 6), 7, Integer.MAX_VALUE),
            StoredValue.tombstone(TxId.of(8, 9))
        }) {
            out.add(Record.inline(v));
        }
        out.add(Record.chunked(
                StoredValue.complete(TxId.of(1, 2), new byte[100_000]).header(), 77));
        out.add(Record.chunked(
                StoredValue.complete(TxId.of(1, 3), new byte[100_000], 42).header(), 78));
        return out;
    }

    private static byte[] marshalled(Record r) {
        Bytes<?> b = Bytes.allocateElasticOnHeap(64);
        M.write(b, M.size(r), r);
        byte[] out = new byte[(int) b.readRemaining()];
        b.read(out);
        return out;
    }

    private static void assertSameRecord(Record actual, Record expected, String what) {
        assertThat(actual.header()).as(what).isEqualTo(expected.header());
        assertThat(actual.blobId).as(what).isEqualTo(expected.blobId);
        assertThat(actual.isChunked() ? null : actual.toStoredValue())
                .as(what)
                .isEqualTo(expected.isChunked() ? null : expected.toStoredValue());
    }

    @Test
    void writesTheMarshallersBytesAtTheOffsetAndNothingElse() {
        BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(256);
        try {
            for (Record r : records()) {
                for (int i = 0; i < 256; i++) memory.writeByte(i, (byte) 0x7f);
                Data<Record> data = new RecordDataAccess().getData(r);
                byte[] expected = marshalled(r);
                assertThat(data.size()).isEqualTo(expected.length);
                data.writeTo(memory, 5);
                byte[] back = new byte[expected.length];
                memory.read(5, back, 0, back.length);
                assertThat(back).as("%s", r.header()).isEqualTo(expected);
                assertThat(memory.readByte(4)).isEqualTo((byte) 0x7f);
                assertThat(memory.readByte(5 + expected.length)).isEqualTo((byte) 0x7f);
            }
        } finally {
            memory.releaseLast();
        }
    }

    @Test
    void recordsReadInPlaceAtAnyOffsetWithOrWithoutTheirValue() {
        BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(256);
        try {
            for (Record r : records()) {
                for (int offset = 0; offset < 9; offset++) {
                    byte[] bytes = marshalled(r);
                    memory.write(offset, bytes, 0, bytes.length);
                    Record whole = RecordMarshaller.read(memory, offset, bytes.length, true);
                    assertSameRecord(whole, r, r.header() + " at " + offset);
                    Record header = RecordMarshaller.read(memory, offset, bytes.length, false);
                    assertThat(header.header()).isEqualTo(r.header());
                    assertThat(header.value).isNull();
                }
            }
        } finally {
            memory.releaseLast();
        }
    }

    @Test
    void bytesAndGetSeeTheRecord() {
        Record r = Record.inline(StoredValue.complete(TxId.of(1, 2), "hello".getBytes(), 99));
        Data<Record> data = new RecordDataAccess().getData(r);
        byte[] expected = marshalled(r);
        byte[] back = new byte[expected.length];
        data.bytes().read(data.offset(), back, 0, back.length);
        assertThat(back).isEqualTo(expected);
        assertThat(data.get()).isSameAs(r);
        assertThat(data.getUsing(null)).isSameAs(r);
    }

    /** A file written with Chronicle's own value access opens with ours and the other way round. */
    @Test
    void filesOpenWithEitherAccess(@TempDir Path dir) throws Exception {
        Random random = new Random(seed("filesOpenWithEitherAccess"));
        Record[] values = new Record[2_000];
        for (int i = 0; i < values.length; i++) values[i] = randomRecord(random);
        for (boolean oursFirst : new boolean[] {true, false}) {
            File file = dir.resolve("records-" + oursFirst + ".dat").toFile();
            try (ChronicleMap<byte[], Record> map = builder(oursFirst).createPersistedTo(file)) {
                for (int i = 0; i < values.length; i++) map.put(key(i), values[i]);
            }
            try (ChronicleMap<byte[], Record> map = builder(!oursFirst).createPersistedTo(file)) {
                for (int i = 0; i < values.length; i++) assertSameRecord(map.get(key(i)), values[i], "key " + i);
            }
        }
    }

    /** Overwrites that grow, shrink and keep a record's size, then removals: every record reads back. */
    @Test
    void aMapWithIt_keepsEveryRecordThroughOverwritesOfEverySize() {
        Random random = new Random(seed("aMapWithIt_keepsEveryRecordThroughOverwritesOfEverySize"));
        try (ChronicleMap<byte[], Record> map = builder(true).create()) {
            Record[] latest = new Record[500];
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < latest.length; i++) {
                    latest[i] = randomRecord(random);
                    map.put(key(i), latest[i]);
                }
            }
            for (int i = 0; i < latest.length; i += 3) map.remove(key(i));
            for (int i = 0; i < latest.length; i++) {
                if (i % 3 == 0) assertThat(map.get(key(i))).as("key %d", i).isNull();
                else assertSameRecord(map.get(key(i)), latest[i], "key " + i);
            }
        }
    }

    private static byte[] key(int i) {
        return ("key:" + i).getBytes();
    }

    private static Record randomRecord(Random random) {
        TxId t = TxId.of(random.nextInt(5), random.nextInt(1_000_000));
        long expireAt = random.nextBoolean() ? 0 : 1_700_000_000_000L + random.nextInt(1_000_000);
        return switch (random.nextInt(4)) {
            case 0 ->
                Record.chunked(StoredValue.complete(t, new byte[8192], expireAt).header(), random.nextInt(1000));
            case 1 -> Record.inline(StoredValue.tombstone(t));
            default -> {
                byte[] v = new byte[random.nextInt(300)];
                random.nextBytes(v);
                yield Record.inline(StoredValue.complete(t, v, expireAt));
            }
        };
    }

    private static ChronicleMapBuilder<byte[], Record> builder(boolean ours) {
        ChronicleMapBuilder<byte[], Record> b = ChronicleMap.of(byte[].class, Record.class)
                .name("records")
                .entries(4_000)
                .averageKeySize(12)
                .averageValueSize(RecordMarshaller.HEADER_BYTES + 64)
                .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new KeyBytesAccess());
        return ours ? b.valueReaderAndDataAccess(M, new RecordDataAccess()) : b.valueMarshallers(M, M);
    }
}
