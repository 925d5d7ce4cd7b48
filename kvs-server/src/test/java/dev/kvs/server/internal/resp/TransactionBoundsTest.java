package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A transaction's queue is bounded: past its bound in commands or bytes it is refused (EXECABORT). */
class TransactionBoundsTest {
    private static final CommandSpec SPEC = spec();

    private static CommandSpec spec() {
        CommandTable t = new CommandTable();
        t.add("SET", -3, CommandSpec.DATA, 1, 1, 1, (s, a) -> null);
        return t.lookup("SET".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void oneCommandPastTheCountRefusesTheTransactionAndFreesItsQueue() {
        Transaction tx = new Transaction(3, 1 << 20);
        for (int i = 0; i < 3; i++) assertThat(tx.queue(SPEC, args(10))).isTrue();
        assertThat(tx.queue(SPEC, args(10))).isFalse();
        assertThat(tx.refused()).isTrue();
        assertThat(tx.queued()).isEmpty();
        assertThat(tx.queue(SPEC, args(10))).as("nothing more once refused").isTrue();
        assertThat(tx.queued()).isEmpty();
    }

    @Test
    void argumentsPastTheBytesRefuseTheTransaction() {
        Transaction tx = new Transaction(1000, 100);
        assertThat(tx.queue(SPEC, args(60))).isTrue();
        assertThat(tx.queue(SPEC, args(40))).isTrue(); // exactly at the bound
        assertThat(tx.queue(SPEC, args(1))).isFalse();
        assertThat(tx.refused()).isTrue();
    }

    @Test
    void theDefaultBoundsAreTheDocumentedOnes() {
        assertThat(Transaction.MAX_COMMANDS).isEqualTo(100_000);
        assertThat(Transaction.MAX_BYTES).isEqualTo(64L << 20);
        assertThat(((io.netty.handler.codec.redis.ErrorRedisMessage) TransactionCommands.TOO_LONG).content())
                .contains("100000 commands and 64 MiB");
    }

    private static byte[][] args(int bytes) {
        return new byte[][] {new byte[bytes]};
    }
}
