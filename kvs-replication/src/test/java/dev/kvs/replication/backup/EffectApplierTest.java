package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MembersImage;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.internal.Stores;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.Op;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A backup applies a structure write's effect ({@link Frame.Effect}) only on its exact base: the
 * structure complete, of the effect's type, at the effect's base TxId; otherwise it writes nothing and
 * wants the whole value (a base not there, late or reordered, a string written between, another type),
 * or has the effect's TxId or a newer one already.
 */
class EffectApplierTest {
    private static final byte[] KEY = b("h");
    private final StoreConfig config = StoreConfig.builder().maxEntries(1000).build();
    private final KvStore primary = Stores.open(config);
    private final KvStore store = Stores.open(config);
    private final BackupApplier applier = new BackupApplier(store, new UnfinishedKeys(), new BackupCounters(), 1000);

    @AfterEach
    void close() {
        primary.close();
        store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static TxId tx(long seq) {
        return TxId.of(1, seq);
    }

    /** HSETs {@code name value} on the primary at {@code seq}. */
    private void hset(long seq, String name, String value) {
        primary.putMembers(KEY, ValueType.HASH, List.of(new Member(b(name), b(value))), false, () -> tx(seq));
    }

    /** Ships the primary's hash whole, as today, to the backup. */
    private void shipWhole() {
        MembersImage m = primary.image(KEY);
        applier.apply(new ValueAssembler.Whole(
                m.header().txId(),
                Op.HASH,
                KEY,
                m.image(),
                m.checksum(),
                m.header().expireAtMillis()));
    }

    private static Frame.Effect hsetEffect(long seq, long base, String name, String value) {
        return new Frame.Effect(
                0, tx(seq), tx(base), Op.HASH, KEY, 0, List.of(new Frame.EffectMember(b(name), b(value))), List.of());
    }

    @Test
    void anEffectOnItsBaseLeavesTheBackupAsThePrimary() {
        hset(1, "a", "1");
        hset(2, "b", "2");
        shipWhole();
        hset(3, "c", "3");
        primary.removeMembers(KEY, ValueType.HASH, List.of(b("a")), false, () -> tx(4));

        assertThat(applier.apply(hsetEffect(3, 2, "c", "3"))).isEqualTo(BackupApplier.Outcome.APPLIED);
        Frame.Effect hdel = new Frame.Effect(0, tx(4), tx(3), Op.HASH, KEY, 0, List.of(), List.of(b("a"), b("absent")));
        assertThat(applier.apply(hdel)).isEqualTo(BackupApplier.Outcome.APPLIED);

        assertThat(store.image(KEY).header()).isEqualTo(primary.image(KEY).header());
        assertThat(store.image(KEY).image()).isEqualTo(primary.image(KEY).image());
        assertThat(applier.apply(hdel)).as("again").isEqualTo(BackupApplier.Outcome.SUPERSEDED);
    }

    @Test
    void anEffectWhoseBaseHasNotArrivedWantsTheWholeValueAndWritesNothing() {
        hset(1, "a", "1");
        shipWhole();
        byte[] before = store.image(KEY).image();
        // the effect of TxId 3 arrives before the value of TxId 2 (another stream, or conflated away)
        assertThat(applier.apply(hsetEffect(3, 2, "c", "3"))).isEqualTo(BackupApplier.Outcome.WANTS_WHOLE);
        assertThat(store.image(KEY).header().txId()).isEqualTo(tx(1));
        assertThat(store.image(KEY).image()).isEqualTo(before);
    }

    @Test
    void anEffectOnAKeyThatIsNotThereWantsTheWholeValue() {
        assertThat(applier.apply(hsetEffect(3, 2, "c", "3"))).isEqualTo(BackupApplier.Outcome.WANTS_WHOLE);
        assertThat(store.header(KEY)).isNull();
    }

    @Test
    void anEffectOverAStringWrittenSinceItsBaseWantsTheWholeValue() {
        hset(1, "a", "1");
        shipWhole();
        // SET h x at TxId 2 reached the backup; the effect names the hash of TxId 1 as its base
        store.put(KEY, StoredValue.complete(tx(2), b("x")));
        assertThat(applier.apply(hsetEffect(3, 1, "c", "3"))).isEqualTo(BackupApplier.Outcome.WANTS_WHOLE);
        assertThat(store.get(KEY).value()).isEqualTo(b("x"));
    }

    @Test
    void anEffectOnAStructureOfAnotherTypeWantsTheWholeValue() {
        primary.putMembers(KEY, ValueType.SET, List.of(Member.of(b("m"))), false, () -> tx(1));
        MembersImage m = primary.image(KEY);
        applier.apply(new ValueAssembler.Whole(tx(1), Op.SET, KEY, m.image(), m.checksum(), 0));
        assertThat(applier.apply(hsetEffect(2, 1, "c", "3"))).isEqualTo(BackupApplier.Outcome.WANTS_WHOLE);
        assertThat(store.image(KEY).header().type()).isEqualTo(ValueType.SET);
    }

    @Test
    void anEffectOlderThanWhatTheBackupHoldsIsSuperseded() {
        hset(1, "a", "1");
        hset(2, "b", "2");
        hset(3, "c", "3");
        shipWhole(); // conflated: the image of TxId 3
        assertThat(applier.apply(hsetEffect(2, 1, "b", "2"))).isEqualTo(BackupApplier.Outcome.SUPERSEDED);
        assertThat(store.image(KEY).image()).isEqualTo(primary.image(KEY).image());
    }
}
