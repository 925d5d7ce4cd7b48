package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.tx;
import static dev.kvs.replication.backup.Packets.whole;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.WriteStages;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.backup.BackupApplier.Outcome;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A value thread that looks for ready units while the key thread is announcing a unit's key packets
 * (a value of one of the unit's keys makes it look) must not find that unit: its keys are not
 * awaited yet, so it would look ready with none of its values, be applied empty, and its values
 * would then land one by one as they came (a READONLY reader saw "2 2 1"). The unit's packets are
 * registered only once announced; the test runs the value thread at {@link
 * BackupApplier#beforeAnnounce}, between the two.
 */
class UnitAnnounceRaceTest {
    private final KvStore store =
            HeapKvStore.open(StoreConfig.builder().maxValueBytes(1024).build());
    private final UnfinishedKeys unfinished = new UnfinishedKeys();
    /** One entry per unit applied alone, with what it found in the store. */
    private final List<String> alone = new CopyOnWriteArrayList<>();

    private final BackupApplier applier = new BackupApplier(
            store,
            unfinished,
            new UnfinishedKeys(),
            new BackupCounters(),
            1000,
            WriteStages.OFF,
            BackupApplier.DEFAULT_MAX_UNIT_BYTES,
            step -> {
                step.run();
                alone.add("unit: a=" + stored("a") + " b=" + stored("b"));
            });

    private static final byte[] A1 = bytes("one");
    private static final byte[] A = bytes("two");
    private static final byte[] B = bytes("two!");

    @AfterEach
    void closeStore() {
        store.close();
    }

    private static List<KeyPacket> unit(KeyPacket... packets) {
        Frame.Unit u = new Frame.Unit(packets[0].txId(), packets.length);
        List<KeyPacket> out = new ArrayList<>();
        for (KeyPacket p : packets) out.add(p.inUnit(u));
        return out;
    }

    private Outcome value(ValueAssembler.Whole v) {
        return applier.apply(v, (o, refused) -> {});
    }

    private String stored(String key) {
        StoredValue v = store.get(bytes(key));
        return v == null || v.value() == null ? null : new String(v.value());
    }

    @Test
    void aValueAppliedWhileAUnitsKeysAreAnnouncedDoesNotTakeTheUnitAsReady() {
        applier.onKeyBatch(List.of(putKey(tx(1), "a", A1)));
        // the value of a's older write comes on a value thread while the key thread is between the
        // unit's packets arriving and their keys being awaited; the key thread waits for it there
        AtomicReference<Outcome> olderApplied = new AtomicReference<>();
        AtomicReference<Runnable> once = new AtomicReference<>(() -> {
            CompletableFuture<Outcome> older = CompletableFuture.supplyAsync(
                    () -> value(whole(tx(1), "a", A1)), r -> new Thread(r, "value-thread").start());
            olderApplied.set(older.orTimeout(10, TimeUnit.SECONDS).join());
        });
        applier.beforeAnnounce = () -> {
            Runnable r = once.getAndSet(null);
            if (r != null) r.run();
        };

        applier.onKeyBatch(unit(putKey(tx(2), "a", A), putKey(tx(3), "b", B)));

        assertThat(olderApplied.get())
                .as("a's older value, applied inside the announce")
                .isEqualTo(Outcome.APPLIED);
        assertThat(stored("a")).isEqualTo("one");
        assertThat(alone)
                .as("units applied while the unit's keys were announced")
                .isEmpty();
        assertThat(applier.heldUnits()).as("units held for their values").isEqualTo(1);

        assertThat(value(whole(tx(2), "a", A))).isEqualTo(Outcome.HELD);
        assertThat(stored("a")).as("a, before b's value arrived").isEqualTo("one");

        assertThat(value(whole(tx(3), "b", B))).isEqualTo(Outcome.HELD);
        assertThat(alone).containsExactly("unit: a=two b=two!");
        assertThat(stored("a")).isEqualTo("two");
        assertThat(stored("b")).isEqualTo("two!");
        assertThat(applier.heldUnits()).isZero();
        assertThat(unfinished.isEmpty()).isTrue();
    }
}
