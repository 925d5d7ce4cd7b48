package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KvStore#image} and {@link KvStore#putImage}, what replication ships a structure with: an image
 * depends on the contents only, and putting it rebuilds exactly those contents over whatever the key
 * held, with the store's room counted. Run on the Chronicle store and on {@link HeapKvStore}.
 */
class MembersImageTest {
    private final List<KvStore> stores = new ArrayList<>();
    private long seq;

    static Stream<String> stores() {
        return Stream.of("chronicle", "heap");
    }

    private KvStore open(String kind, long maxBytes) {
        StoreConfig config =
                StoreConfig.builder().maxBytes(maxBytes).maxEntries(10_000).build();
        KvStore s = kind.equals("heap")
                ? HeapKvStore.open(config)
                : KvStore.builder().config(config).open();
        stores.add(s);
        return s;
    }

    @AfterEach
    void close() {
        stores.forEach(KvStore::close);
    }

    private TxId next() {
        return TxId.of(1, ++seq);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static RecordHeader hash(TxId t, long expireAt) {
        return RecordHeader.structure(RecordState.COMPLETE, t, ValueType.HASH, expireAt);
    }

    @ParameterizedTest
    @MethodSource("stores")
    void anImagePutOverAStringRebuildsTheSameMembersAndImage(String kind) {
        KvStore a = open(kind, 64L << 20);
        KvStore b = open(kind, 64L << 20);
        Random r = new Random(7);
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) ms.add(new Member(b("field-" + i), b("value-" + r.nextInt(1_000_000))));
        a.putMembers(b("h"), ValueType.HASH, ms, false, this::next);
        List<byte[]> gone = new ArrayList<>();
        for (int i = 0; i < 3_000; i += 3) gone.add(b("field-" + i));
        a.removeMembers(b("h"), ValueType.HASH, gone, false, this::next);
        MembersImage image = a.image(b("h"));
        assertThat(image.header().txId()).isEqualTo(a.header(b("h")).txId());

        byte[] large = new byte[200_000];
        b.put(b("h"), StoredValue.complete(next(), large));
        TxId t = next();
        assertThat(b.putImage(b("h"), image.image(), h -> hash(t, 9_000))).isTrue();

        assertThat(b.header(b("h"))).isEqualTo(hash(t, 9_000));
        assertThat(b.memberCount(b("h"), ValueType.HASH)).isEqualTo(2_000);
        assertThat(sorted(b.members(b("h"), ValueType.HASH))).isEqualTo(sorted(a.members(b("h"), ValueType.HASH)));
        assertThat(b.image(b("h")).image()).isEqualTo(image.image());
        assertThat(b.get(b("h")).value()).isEmpty();
        b.delete(b("h"));
        assertThat(b.stats().valueBytes()).isZero();
        assertThat(b.stats().keyBytes()).isZero();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void anImagePutOverAStructureReplacesAllItsMembers(String kind) {
        KvStore s = open(kind, 64L << 20);
        List<Member> old = new ArrayList<>();
        for (int i = 0; i < 500; i++) old.add(new Member(b("old-" + i), b("x")));
        s.putMembers(b("k"), ValueType.SET, old, false, this::next);
        KvStore other = open(kind, 64L << 20);
        other.putMembers(b("k"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, this::next);
        byte[] image = other.image(b("k")).image();

        TxId t = next();
        assertThat(s.putImage(b("k"), image, h -> hash(t, 0))).isTrue();

        assertThat(s.header(b("k")).type()).isEqualTo(ValueType.HASH);
        assertThat(s.getMembers(b("k"), ValueType.HASH, List.of(b("f"), b("old-1"))))
                .containsExactly(b("v"), null);
        assertThat(s.memberCount(b("k"), ValueType.HASH)).isEqualTo(1);
        s.delete(b("k"));
        assertThat(s.stats().valueBytes()).isZero();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aDecisionOfNullOrACorruptImageChangesNothing(String kind) {
        KvStore s = open(kind, 64L << 20);
        s.putMembers(b("k"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, this::next);
        RecordHeader before = s.header(b("k"));
        byte[] image = s.image(b("k")).image();

        assertThat(s.putImage(b("k"), image, h -> null)).isFalse();
        byte[] corrupt = Arrays.copyOf(image, image.length - 1);
        assertThatThrownBy(() -> s.putImage(b("k"), corrupt, h -> hash(next(), 0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.putImage(b("k"), image, h -> new RecordHeader(RecordState.COMPLETE, next(), 0, 0)))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(s.header(b("k"))).isEqualTo(before);
        assertThat(s.getMembers(b("k"), ValueType.HASH, List.of(b("f")))).containsExactly(b("v"));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aStoreWithoutRoomRefusesAnImageAndKeepsWhatItHeld(String kind) {
        KvStore big = open(kind, 64L << 20);
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) ms.add(new Member(b("field-" + i), new byte[100]));
        big.putMembers(b("h"), ValueType.HASH, ms, false, this::next);
        byte[] image = big.image(b("h")).image();
        KvStore small = open(kind, 64 * 1024);
        small.put(b("h"), StoredValue.complete(next(), b("string")));

        assertThatThrownBy(() -> small.putImage(b("h"), image, h -> hash(next(), 0)))
                .isInstanceOf(StoreFullException.class);

        assertThat(small.get(b("h")).value()).isEqualTo(b("string"));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void onlyACompleteStructureHasAnImage(String kind) {
        KvStore s = open(kind, 64L << 20);
        s.put(b("string"), StoredValue.complete(next(), b("v")));
        s.put(b("gone"), StoredValue.tombstone(next()));

        assertThat(s.image(b("string"))).isNull();
        assertThat(s.image(b("gone"))).isNull();
        assertThat(s.image(b("absent"))).isNull();
    }

    private static List<String> sorted(List<Member> ms) {
        List<String> out = new ArrayList<>();
        for (Member m : ms) {
            out.add(new String(m.name(), StandardCharsets.UTF_8) + "=" + new String(m.value(), StandardCharsets.UTF_8));
        }
        out.sort(null);
        return out;
    }
}
