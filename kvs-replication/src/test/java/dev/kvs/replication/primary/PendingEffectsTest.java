package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.TxId;
import dev.kvs.replication.StructureEffect;
import dev.kvs.replication.wire.Frame;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingEffectsTest {
    private static final byte[] KEY = "h".getBytes(StandardCharsets.UTF_8);

    private static StructureEffect effect(long base, int valueBytes) {
        return new StructureEffect(
                TxId.of(1, base), List.of(new byte[] {'f'}), List.of(new byte[valueBytes]), List.of());
    }

    private static void add(PendingEffects fx, long seq, StructureEffect e) {
        fx.add(KEY, TxId.of(1, seq), Frame.Op.HASH, 0, e);
    }

    @Test
    void effectsLinkingFromWhatWasSentShipInOrderAndLeaveTheNewestSent() {
        PendingEffects fx = new PendingEffects();
        fx.sent(KEY, TxId.of(1, 5));
        add(fx, 6, effect(5, 3));
        add(fx, 7, effect(6, 3));

        List<Frame.Effect> taken = fx.take(KEY, TxId.of(1, 7), 0);

        assertThat(taken).extracting(Frame.Effect::txId).containsExactly(TxId.of(1, 6), TxId.of(1, 7));
        assertThat(taken).extracting(Frame.Effect::base).containsExactly(TxId.of(1, 5), TxId.of(1, 6));
        assertThat(fx.bytes()).isZero();
        add(fx, 8, effect(7, 3));
        assertThat(fx.take(KEY, TxId.of(1, 8), 0)).hasSize(1);
    }

    @Test
    void aKeyNeverSentWholeOrBrokenOrNotLinkingShipsItsImage() {
        PendingEffects fx = new PendingEffects();
        add(fx, 6, effect(5, 3)); // never sent: no base known on the backup
        assertThat(fx.take(KEY, TxId.of(1, 6), 0)).isNull();

        fx.sent(KEY, TxId.of(1, 5));
        add(fx, 6, effect(5, 3));
        fx.broken(KEY); // a string write, a nack
        add(fx, 7, effect(6, 3));
        assertThat(fx.take(KEY, TxId.of(1, 7), 0)).isNull();

        fx.sent(KEY, TxId.of(1, 7));
        add(fx, 9, effect(8, 3)); // its base 8 (an SPOP's, shipped as image) was never sent
        assertThat(fx.take(KEY, TxId.of(1, 9), 0)).isNull();
        assertThat(fx.brokenCount()).isEqualTo(1);
        assertThat(fx.bytes()).isZero();
    }

    @Test
    void anEffectPastTheBoundBreaksItsKeysChain() {
        PendingEffects fx = new PendingEffects(1_000);
        fx.sent(KEY, TxId.of(1, 5));
        add(fx, 6, effect(5, 500));
        add(fx, 7, effect(6, 500)); // past 1,000 bytes held

        assertThat(fx.brokenCount()).isEqualTo(1);
        assertThat(fx.bytes()).isZero();
        assertThat(fx.take(KEY, TxId.of(1, 7), 0)).isNull();

        PendingEffects unbounded = new PendingEffects();
        unbounded.sent(KEY, TxId.of(1, 5));
        add(unbounded, 6, effect(5, (int) PendingEffects.MAX_EFFECT_BYTES)); // larger than one effect may be
        assertThat(unbounded.take(KEY, TxId.of(1, 6), 0)).isNull();
    }
}
