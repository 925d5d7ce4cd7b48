package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirTest {
    @TempDir
    Path tempDir;

    @Test
    void aNewOrUncleanlyClosedDirNeedsRecoveryAndACleanOneDoesNot() {
        Path dir = tempDir.resolve("d");
        DataDir first = DataDir.open(dir);
        assertThat(first.recoveryNeeded()).isTrue();
        first.close(true);
        DataDir second = DataDir.open(dir);
        assertThat(second.recoveryNeeded()).isFalse();
        second.close(false);
        DataDir third = DataDir.open(dir);
        assertThat(third.recoveryNeeded()).isTrue();
        third.close(false);
    }

    @Test
    void onlyOneOpenerAtATime() {
        DataDir first = DataDir.open(tempDir);
        try {
            assertThatThrownBy(() -> DataDir.open(tempDir))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("in use")
                    .hasMessageContaining(tempDir.toString());
        } finally {
            first.close(false);
        }
        DataDir.open(tempDir).close(false);
    }

    @Test
    void aPathThatIsAFileCannotBeADataDir() throws Exception {
        Path file = Files.createFile(tempDir.resolve("file"));
        assertThatThrownBy(() -> DataDir.open(file))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(file.toString());
    }

    @Test
    void filesAreResolvedInTheDir() {
        DataDir dir = DataDir.open(tempDir);
        assertThat(dir.file("x.dat").toPath()).isEqualTo(tempDir.resolve("x.dat"));
        assertThat(dir.path()).isEqualTo(tempDir);
        dir.close(false);
    }
}
