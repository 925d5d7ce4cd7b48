package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AckLogTest {
    @TempDir
    Path dir;

    @Test
    void writesAndSummaryReadBack() {
        Path file = dir.resolve("acked.tsv");
        AckedWrite a = AckedWrite.of("k-1", ValueSource.value("k-1", 0, 1000));
        AckedWrite b = AckedWrite.of("k-2", new byte[0]);
        LoadResult summary =
                new LoadResult("id-first", 2, 1000, 5, 2, 3, Map.of("NoPrimaryException", 3L), 1.5, 900, 4000);
        try (AckLog.Writer w = new AckLog.Writer(file, "id-first")) {
            w.append(a);
            w.append(b);
            w.summary(summary);
        }

        AckLog.Contents c = AckLog.read(file);

        assertThat(c.mode()).isEqualTo("id-first");
        assertThat(c.writes()).containsExactly(a, b);
        assertThat(c.summary()).isEqualTo(summary);
    }

    @Test
    void aFileCutShortByAKilledLoadKeepsItsWholeLines() throws Exception {
        Path file = dir.resolve("acked.tsv");
        Files.writeString(file, AckLog.HEADER + "\n# mode async\nk-1\t10\tdeadbeef\nk-2\t1", StandardCharsets.UTF_8);

        AckLog.Contents c = AckLog.read(file);

        assertThat(c.writes()).containsExactly(new AckedWrite("k-1", 10, 0xdeadbeef));
        assertThat(c.summary()).isNull();
    }

    @Test
    void aBadLineInTheMiddleIsAnError() throws Exception {
        Path file = dir.resolve("acked.tsv");
        Files.writeString(file, AckLog.HEADER + "\nk-1 10 deadbeef\nk-2\t1\t2\n", StandardCharsets.UTF_8);

        assertThatThrownBy(() -> AckLog.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acked.tsv:2: not KEY<TAB>LENGTH<TAB>CRC32C: k-1 10 deadbeef");
    }

    @Test
    void anotherFileIsRefused() throws Exception {
        Path file = dir.resolve("other.txt");
        Files.writeString(file, "hello\n", StandardCharsets.UTF_8);

        assertThatThrownBy(() -> AckLog.read(file)).hasMessageContaining("is not a kvs drill ack file");
    }

    @Test
    void valuesDependOnKeyAndAttempt() {
        assertThat(ValueSource.value("k", 0, 4096)).isEqualTo(ValueSource.value("k", 0, 4096));
        assertThat(ValueSource.value("k", 0, 4096)).isNotEqualTo(ValueSource.value("k", 1, 4096));
        assertThat(ValueSource.value("k", 0, 4096)).isNotEqualTo(ValueSource.value("j", 0, 4096));
        assertThat(ValueSource.value("k", 0, 3 << 20)).hasSize(3 << 20);
        assertThat(ValueSource.value("a-long-key", 0, 3)).containsExactly('a', '-', 'l');
    }
}
