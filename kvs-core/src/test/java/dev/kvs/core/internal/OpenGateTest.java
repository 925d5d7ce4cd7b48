package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StorageException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OpenGateTest {
    private final OpenGate gate = new OpenGate();

    @Test
    void enterAndExitWhileOpen() {
        int slot = gate.enter();
        gate.exit(slot);
        assertThat(gate.isClosed()).isFalse();
    }

    @Test
    void closeWaitsForOperationsInFlight() throws Exception {
        int slot = gate.enter();
        CompletableFuture<Boolean> closing = CompletableFuture.supplyAsync(gate::close);
        await().atMost(10, TimeUnit.SECONDS).until(gate::isClosed);
        assertThat(closing).isNotDone();
        assertThatThrownBy(gate::enter).isInstanceOf(StorageException.class).hasMessage("store is closed");
        gate.exit(slot);
        assertThat(closing.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void closingTwiceReturnsFalseTheSecondTime() {
        assertThat(gate.close()).isTrue();
        assertThat(gate.close()).isFalse();
        assertThatThrownBy(gate::enter).isInstanceOf(StorageException.class);
    }
}
