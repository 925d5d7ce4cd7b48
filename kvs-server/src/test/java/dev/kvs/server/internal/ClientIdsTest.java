package dev.kvs.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ClientIdsTest {
    @Test
    void idsStartAtOneAndFollowTheOrderOfAsking() {
        ClientIds ids = new ClientIds();
        assertThat(ids.next()).isEqualTo(1);
        assertThat(ids.next()).isEqualTo(2);
        assertThat(new ClientIds().next()).as("each node counts its own").isEqualTo(1);
    }

    @Test
    void connectionsAcceptedAtOnceNeverShareAnId() {
        ClientIds ids = new ClientIds();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        IntStream.range(0, 10_000).parallel().forEach(i -> seen.add(ids.next()));
        assertThat(seen).hasSize(10_000).contains(1L, 10_000L);
    }
}
