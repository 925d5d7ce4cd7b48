package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.impl.ByteArrayDataAccess;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyBytesAccessTest {

    private static byte[] randomKey(Random random, int length) {
        byte[] key = new byte[length];
        random.nextBytes(key);
        return key;
    }

    private static long seed(String test) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed);
        return seed;
    }

    /** The same hash as Chronicle's own access: a map's file written with either reads with the other. */
    @Test
    void hashesAsChronicleOwnByteArrayAccessDoes() {
        Random random = new Random(seed("hashesAsChronicleOwnByteArrayAccessDoes"));
        LongHashFunction[] functions = {
            LongHashFunction.xx_r39(), LongHashFunction.xx_r39(random.nextLong()), LongHashFunction.city_1_1()
        };
        KeyBytesAccess ours = new KeyBytesAccess();
        ByteArrayDataAccess chronicles = new ByteArrayDataAccess();
        for (int length = 0; length <= 300; length++) {
            byte[] key = randomKey(random, length);
            for (LongHashFunction f : functions) {
                assertThat(ours.getData(key).hash(f))
                        .as("%d-byte key", length)
                        .isEqualTo(chronicles.getData(key).hash(f));
            }
        }
    }

    @Test
    void equivalentComparesEveryByteAtAnyOffset() {
        Random random = new Random(seed("equivalentComparesEveryByteAtAnyOffset"));
        KeyBytesAccess access = new KeyBytesAccess();
        BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(512);
        try {
            for (int length = 0; length <= 40; length++) {
                byte[] key = randomKey(random, length);
                for (int offset = 0; offset < 9; offset++) {
                    memory.write(offset, key, 0, length);
                    Data<byte[]> data = access.getData(key);
                    assertThat(data.equivalent(memory, offset)).isTrue();
                    for (int i = 0; i < length; i++) {
                        byte[] other = key.clone();
                        other[i] ^= (byte) (1 + random.nextInt(255));
                        assertThat(access.getData(other).equivalent(memory, offset))
                                .as("%d-byte key at offset %d differing at byte %d", length, offset, i)
                                .isFalse();
                    }
                }
            }
        } finally {
            memory.releaseLast();
        }
    }

    @Test
    void writesTheKeyBytesAtTheOffsetAndNothingElse() {
        byte[] key = "key:000000012345".getBytes(StandardCharsets.US_ASCII);
        BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(64);
        try {
            for (int i = 0; i < 64; i++) memory.writeByte(i, (byte) 0x7f);
            new KeyBytesAccess().getData(key).writeTo(memory, 5);
            byte[] back = new byte[key.length];
            memory.read(5, back, 0, back.length);
            assertThat(back).isEqualTo(key);
            assertThat(memory.readByte(4)).isEqualTo((byte) 0x7f);
            assertThat(memory.readByte(5 + key.length)).isEqualTo((byte) 0x7f);
        } finally {
            memory.releaseLast();
        }
    }

    @Test
    void bytesAndGetUsingSeeTheKey() {
        byte[] key = {1, 2, 3, 4, 5};
        Data<byte[]> data = new KeyBytesAccess().getData(key);
        assertThat(data.size()).isEqualTo(5);
        assertThat(data.bytes().readByte(data.offset() + 4)).isEqualTo((byte) 5);
        byte[] reused = new byte[5];
        assertThat(data.getUsing(reused)).isSameAs(reused).isEqualTo(key);
        assertThat(data.getUsing(new byte[3])).isEqualTo(key).isNotSameAs(key);
        assertThat(data.get()).isSameAs(key);
    }

    /** A file written with Chronicle's access opens with ours and the other way round, every key found. */
    @Test
    void filesOpenWithEitherAccess(@TempDir Path dir) throws Exception {
        Random random = new Random(seed("filesOpenWithEitherAccess"));
        byte[][] keys = new byte[2_000][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = randomKey(random, 4 + random.nextInt(57));
            keys[i][0] = (byte) i; // distinct keys: the first four bytes are the index
            keys[i][1] = (byte) (i >> 8);
            keys[i][2] = (byte) 0xff; // and never ASCII text like the absent key below
            keys[i][3] = (byte) 0xfe;
        }
        for (boolean oursFirst : new boolean[] {true, false}) {
            File file = dir.resolve("keys-" + oursFirst + ".dat").toFile();
            try (ChronicleMap<byte[], Long> map = builder(oursFirst).createPersistedTo(file)) {
                for (int i = 0; i < keys.length; i++) map.put(keys[i], (long) i);
            }
            try (ChronicleMap<byte[], Long> map = builder(!oursFirst).createPersistedTo(file)) {
                for (int i = 0; i < keys.length; i++) {
                    assertThat(map.get(keys[i])).as("key %d", i).isEqualTo(i);
                }
                byte[] absent = "not one of the random keys: longer than 60 bytes ................".getBytes();
                assertThat(map.containsKey(absent)).isFalse();
            }
        }
    }

    private static boolean contains(byte[][] keys, byte[] key) {
        for (byte[] k : keys) if (java.util.Arrays.equals(k, key)) return true;
        return false;
    }

    private static ChronicleMapBuilder<byte[], Long> builder(boolean ours) {
        ChronicleMapBuilder<byte[], Long> b = ChronicleMap.of(byte[].class, Long.class)
                .name("keys")
                .entries(4_000)
                .averageKeySize(32);
        return ours ? b.keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new KeyBytesAccess()) : b;
    }

    @Test
    void aMapWithIt_findsUpdatesAndRemovesKeysOfEveryLength() {
        Random random = new Random(seed("aMapWithIt_findsUpdatesAndRemovesKeysOfEveryLength"));
        try (ChronicleMap<byte[], Long> map = builder(true).create()) {
            byte[][] keys = new byte[300][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = randomKey(random, i % 100);
                if (contains(java.util.Arrays.copyOf(keys, i), keys[i])) keys[i] = ("k" + i).getBytes();
                map.put(keys[i], (long) i);
            }
            for (int i = 0; i < keys.length; i += 2) map.put(keys[i], -1L);
            for (int i = 0; i < keys.length; i += 3) map.remove(keys[i]);
            for (int i = 0; i < keys.length; i++) {
                Long expected = i % 3 == 0 ? null : i % 2 == 0 ? -1L : (long) i;
                assertThat(map.get(keys[i])).as("key %d", i).isEqualTo(expected);
            }
        }
    }
}
