package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.io.IORuntimeException;
import org.junit.jupiter.api.Test;

class ValueSliceMarshallerTest {
    private static final ValueSliceMarshaller M = ValueSliceMarshaller.INSTANCE;

    @Test
    void writesASliceAndReadsItIntoAnotherArraysSlice() {
        byte[] source = {0, 1, 2, 3, 4, 5};
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(16);
        ValueSlice slice = new ValueSlice(source, 2, 3);
        M.write(bytes, M.size(slice), slice);
        byte[] target = new byte[5];
        ValueSlice into = new ValueSlice(target, 1, 3);
        assertThat(M.read(bytes, 3, into)).isSameAs(into);
        assertThat(target).containsExactly(0, 2, 3, 4, 0);
    }

    @Test
    void readsWithoutATargetIntoANewArray() {
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(16);
        bytes.write(new byte[] {7, 8});
        ValueSlice back = M.read(bytes, 2, null);
        assertThat(back.array).containsExactly(7, 8);
    }

    @Test
    void aChunkOfTheWrongLengthIsCorrupt() {
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(16);
        bytes.write(new byte[] {7, 8});
        assertThatThrownBy(() -> M.read(bytes, 2, new ValueSlice(new byte[3], 0, 3)))
                .isInstanceOf(IORuntimeException.class)
                .hasMessage("corrupt chunk: 2 bytes, expected 3");
    }
}
