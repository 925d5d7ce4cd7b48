package dev.kvs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.client.KvsClientException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class SlotGroupsTest {

    @Test
    void groupsKeysBySlotInTheOrderOfEachSlotsFirstKey() {
        // {a} and {b} are two slots; "x{a}y" shares {a}'s
        List<byte[]> keys = List.of(bytes("{b}1"), bytes("{a}1"), bytes("x{a}y"), bytes("{b}2"));
        assertThat(SlotGroups.of(keys)).containsExactly(new int[] {0, 3}, new int[] {1, 2});
        assertThat(SlotGroups.pick(List.of("p", "q", "r", "s"), new int[] {3, 0}))
                .containsExactly("s", "p");
    }

    @Test
    void aFailedPartFailsTheWholeWithTheFirstFailureInKeyOrderOnceAllFinished() {
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Void> second = new CompletableFuture<>();
        CompletableFuture<Void> third = new CompletableFuture<>();
        CompletableFuture<Void> all = SlotGroups.all(List.of(first, second, third));
        third.completeExceptionally(new KvsClientException("third"));
        second.completeExceptionally(new KvsClientException("second"));
        assertThat(all).isNotDone(); // the first part is still in flight
        first.complete(null);
        assertThatThrownBy(all::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("second");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
