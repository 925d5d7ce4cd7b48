package dev.kvs.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeStatusHeapTest {
    @Test
    void heapAfterTheLastCollectionIsReportedOnceOneRan() {
        // a collection on request: the figure must then exist and fit in the heap
        System.gc();
        long after = NodeStatus.heapAfterLastGc();
        assertThat(after).isPositive().isLessThanOrEqualTo(Runtime.getRuntime().maxMemory());
    }
}
