package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.core.UnsafeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link StoredPage}'s index of a page: a read through it answers as a scan of the page does, and reads
 * only the members whose tag is the one asked for. Replay a page with the seed printed.
 */
class StoredPageTest {
    private static byte[] b(String s) {
        return s.getBytes();
    }

    /** Runs {@code test} on {@code page}'s bytes copied into native memory, as a map holds a page. */
    private static void inMemory(byte[] page, java.util.function.LongConsumer test) {
        long address = UnsafeMemory.UNSAFE.allocateMemory(Math.max(1, page.length));
        try {
            for (int i = 0; i < page.length; i++) UnsafeMemory.UNSAFE.putByte(address + i, page[i]);
            test.accept(address);
        } finally {
            UnsafeMemory.UNSAFE.freeMemory(address);
        }
    }

    private static boolean indexed(long address, byte[] page, int[] index, byte[] member, byte[] value) {
        return StoredPage.holds(address, page.length, index, MemberPages.ADDRESS.hashBytes(member), member, value);
    }

    /**
     * Random pages (0 to 160 members of 0 to 300 bytes, values of 0 to 200, so lengths of one and two
     * bytes): every member is found through the index with its value and not with another, absent members
     * are not found, each answer as the scan's; a page over {@link StoredPage#MAX_INDEXED} members has no
     * index and is scanned. With the tag of another hash a member is not found: the index, not a scan,
     * answered.
     */
    @ParameterizedTest(name = "page {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7})
    void aReadThroughTheIndexAnswersAsTheScan(int run) {
        long seed = System.nanoTime() + run;
        System.out.println("aReadThroughTheIndexAnswersAsTheScan seed " + seed);
        Random random = new Random(seed);
        int count = run == 0 ? 0 : run == 1 ? 1 : random.nextInt(161);
        List<byte[]> members = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        byte[] page = MemberPage.EMPTY;
        for (int i = 0; i < count; i++) {
            byte[] member = new byte[random.nextInt(4) == 0 ? random.nextInt(301) : random.nextInt(24)];
            random.nextBytes(member);
            if (MemberPage.find(page, member) >= 0) continue;
            byte[] value = new byte[random.nextBoolean() ? 0 : random.nextInt(201)];
            random.nextBytes(value);
            page = MemberPage.with(page, -1, member, value);
            members.add(member);
            values.add(value);
        }
        byte[] bytes = page;
        inMemory(bytes, address -> {
            int[] index = StoredPage.index(address, bytes.length);
            if (members.size() > StoredPage.MAX_INDEXED) {
                assertThat(index).isSameAs(StoredPage.NO_INDEX);
            } else {
                assertThat(index).hasSize(members.size());
            }
            for (int i = 0; i < members.size(); i++) {
                byte[] member = members.get(i);
                byte[] value = values.get(i);
                assertThat(indexed(address, bytes, index, member, value))
                        .as("member %d", i)
                        .isTrue();
                byte[] other = Arrays.copyOf(value, value.length + 1);
                assertThat(indexed(address, bytes, index, member, other)).isFalse();
                if (index != StoredPage.NO_INDEX) {
                    long hash = MemberPages.ADDRESS.hashBytes(member);
                    assertThat(StoredPage.holds(address, bytes.length, index, hash ^ (1L << 60), member, value))
                            .as("member %d through another tag", i)
                            .isFalse();
                }
            }
            for (int i = 0; i < 50; i++) {
                byte[] absent = new byte[random.nextInt(24)];
                random.nextBytes(absent);
                boolean scanned = StoredPage.holds(address, bytes.length, absent, new byte[0]);
                assertThat(indexed(address, bytes, index, absent, new byte[0])).isEqualTo(scanned);
            }
        });
    }

    /**
     * Bytes that are no page (a reader racing a rewrite reads such): no index, or one whose every entry
     * lies inside the bytes, and reads through it throw nothing. Bytes that are a page's first members
     * whole answer as the scan does.
     */
    @ParameterizedTest(name = "bytes {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void bytesThatAreNoPageGetNoIndexOrOneInsideThem(int run) {
        long seed = System.nanoTime() + run;
        System.out.println("bytesThatAreNoPageGetNoIndexOrOneInsideThem seed " + seed);
        Random random = new Random(seed);
        byte[] page = MemberPage.EMPTY;
        for (int i = 0; i < 20; i++) page = MemberPage.with(page, -1, b("member:" + i), b("v" + i));
        byte[] bytes = page.clone();
        for (int i = 0; i < 1 + random.nextInt(4); i++) bytes[random.nextInt(bytes.length)] = (byte) random.nextInt();
        byte[] torn = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
        inMemory(torn, address -> {
            int[] index = StoredPage.index(address, torn.length);
            for (int e : index) assertThat(e & 0xFFFFFF).isLessThan(torn.length);
            for (int i = 0; i < 20; i++) indexed(address, torn, index, b("member:" + i), b("v" + i));
        });
        byte[] whole = page;
        int members = 1 + random.nextInt(20);
        int end = 0;
        for (int i = 0; i < members; i++) end = MemberPage.entryEnd(whole, end);
        byte[] first = Arrays.copyOf(whole, end);
        inMemory(first, address -> {
            int[] index = StoredPage.index(address, first.length);
            assertThat(index).hasSize(members);
            for (int i = 0; i < 20; i++) {
                assertThat(indexed(address, first, index, b("member:" + i), b("v" + i)))
                        .as("member %d of the first %d", i, members)
                        .isEqualTo(i < members);
            }
        });
    }

    /** A tag is a byte of the hash the page's choice does not use; the same hashed in memory as in an array. */
    @Test
    void aMembersTagIsTheSameHashedInMemoryAsInAnArray() {
        byte[] member = b("element:000000012345");
        inMemory(
                member,
                address -> assertThat(MemberPages.ADDRESS.hashMemory(address, member.length))
                        .isEqualTo(MemberPages.ADDRESS.hashBytes(member)));
        assertThat(StoredPage.tag(0xAB00_0000_0000_00FFL)).isEqualTo(0xAB);
    }
}
