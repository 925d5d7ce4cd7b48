package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on a Chronicle store persisted to files, plus reopening and surviving kill -9. */
class ChronicleKvStorePersistedTest extends KvStoreContractTest {
    @TempDir
    Path tempDir;

    private int stores;

    @Override
    KvStore open(StoreConfig.Builder config) {
        return Stores.open(config.dataDir(tempDir.resolve("store-" + stores++)).build());
    }

    @Test
    void isPersistent() {
        assertThat(store.stats().persistent()).isTrue();
    }

    @Test
    void reopenSeesEveryRecordIncludingLargeValues() {
        StoreConfig config = defaultConfig().dataDir(tempDir.resolve("reopen")).build();
        Map<byte[], StoredValue> written = new LinkedHashMap<>();
        written.put(key("small"), complete(1, "small"));
        written.put(key("tomb"), StoredValue.tombstone(TxId.of(2, 2)));
        written.put(key("unfinished"), StoredValue.unfinished(TxId.of(2, 3), 42, 1000));
        written.put(key("lost"), StoredValue.lost(TxId.of(2, 4), 43, 2000));
        written.put(key("inline"), StoredValue.complete(TxId.of(2, 5), randomBytes(5, INLINE)));
        StoredValue chunked = StoredValue.complete(TxId.of(2, 6), randomBytes(6, 3 * CHUNK + 1));
        written.put(key("chunked"), chunked);
        written.put(key("huge"), StoredValue.complete(TxId.of(2, 7), randomBytes(7, 64 << 20)));
        written.put(randomBytes(8, 65536), StoredValue.complete(TxId.of(2, 8), randomBytes(9, 100)));
        StoreStats before;
        try (KvStore s = Stores.open(config)) {
            written.forEach(s::put);
            before = s.stats();
        }
        assertThat(config.dataDir().orElseThrow().resolve("clean-shutdown")).exists();
        try (KvStore s = Stores.open(config)) {
            written.forEach((k, v) -> assertThat(s.get(k)).isEqualTo(v));
            assertThat(s.stats()).isEqualTo(before);
            assertThat(((ChronicleKvStore) s).chunkCount())
                    .isEqualTo(ValueChunks.chunkCount(3 * CHUNK + 1, ValueChunks.CHUNK_BYTES)
                            + ValueChunks.chunkCount(64 << 20, ValueChunks.CHUNK_BYTES));
            // blob ids continue after the recovered ones: new values must not clobber old chunks
            s.put(key("more"), StoredValue.complete(TxId.of(3, 1), randomBytes(10, 2 * CHUNK)));
            assertThat(s.get(key("chunked"))).isEqualTo(chunked);
            assertThat(s.delete(key("huge"))).isTrue();
        }
        try (KvStore s = Stores.open(config)) {
            assertThat(s.get(key("huge"))).isNull();
            assertThat(s.get(key("more")).value()).isEqualTo(randomBytes(10, 2 * CHUNK));
            assertThat(s.size()).isEqualTo(written.size() - 1 - 1 + 1);
        }
    }

    @Test
    void aFlushWhoseSweepDidNotFinishIsFinishedWhenTheStoreIsOpenedAgain() {
        StoreConfig config = defaultConfig().dataDir(tempDir.resolve("flush")).build();
        Path mark = config.dataDir().orElseThrow().resolve("flush-mark");
        try (KvStore s = Stores.open(config)) {
            for (int i = 1; i <= 20; i++) s.put(key("k" + i), complete(i, "v" + i));
            s.put(key("big"), StoredValue.complete(TxId.of(1, 3), randomBytes(3, 2 * CHUNK)));
            s.hideBefore(TxId.of(1, 11)); // the node stops here, before its sweep
            assertThat(mark).hasContent("1:11");
        }
        try (KvStore s = Stores.open(config)) {
            assertThat(s.get(key("k10"))).isNull();
            assertThat(s.get(key("big"))).isNull();
            assertThat(s.get(key("k11"))).isEqualTo(complete(11, "v11"));
            assertThat(s.stats().entries()).isEqualTo(10);
            assertThat(((ChronicleKvStore) s).chunkCount()).isZero();
            assertThat(mark).doesNotExist();
        }
    }

    @Test
    void theFlushMarkIsKeptUntilItsSweepIsOverAndNeverLowered() {
        StoreConfig config = defaultConfig().dataDir(tempDir.resolve("mark")).build();
        Path mark = config.dataDir().orElseThrow().resolve("flush-mark");
        try (KvStore s = Stores.open(config)) {
            s.put(key("a"), complete(1, "a"));
            s.hideBefore(TxId.of(1, 5));
            s.hideBefore(TxId.of(1, 9));
            s.hideBefore(TxId.of(1, 7));
            assertThat(mark).hasContent("1:9");
            s.removeBefore(TxId.of(1, 5)); // an older sweep ending does not clear a newer mark
            assertThat(mark).hasContent("1:9");
            s.removeBefore(TxId.of(1, 9));
            assertThat(mark).doesNotExist();
            assertThat(s.stats().entries()).isZero();
        }
    }

    @Test
    void reopenKeepsExpiriesAndIndexesThem() {
        StoreConfig config = defaultConfig().dataDir(tempDir.resolve("expiry")).build();
        byte[] big = randomBytes(12, 2 * CHUNK);
        try (KvStore s = Stores.open(config)) {
            s.put(key("ttl"), StoredValue.complete(TxId.of(1, 1), key("v"), 1_234));
            s.put(key("big"), StoredValue.complete(TxId.of(1, 2), big, 5_678));
            s.put(key("plain"), complete(3, "p"));
        }
        try (KvStore s = Stores.open(config)) {
            assertThat(s.header(key("ttl")).expireAtMillis()).isEqualTo(1_234);
            assertThat(s.get(key("big")).expireAtMillis()).isEqualTo(5_678);
            assertThat(s.get(key("big")).value()).isEqualTo(big);
            assertThat(s.header(key("plain")).hasExpiry()).isFalse();
            assertThat(s.expiredKeys(2_000, 10)).extracting(k -> new String(k)).containsExactly("ttl");
            assertThat(s.expiredKeys(6_000, 10)).extracting(k -> new String(k)).containsExactly("ttl", "big");
        }
    }

    @Test
    void aSecondStoreOnTheSameDirIsRefused() {
        Path dir = tempDir.resolve("shared");
        try (KvStore first = Stores.open(defaultConfig().dataDir(dir).build())) {
            assertThatThrownBy(() -> Stores.open(defaultConfig().dataDir(dir).build()))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("in use");
            first.put(key("a"), complete(1, "still works"));
        }
        try (KvStore again = Stores.open(defaultConfig().dataDir(dir).build())) {
            assertThat(again.get(key("a"))).isEqualTo(complete(1, "still works"));
        }
    }

    @Test
    void openRemovesChunksNoRecordReferences() {
        Path dir = tempDir.resolve("orphans");
        StoreConfig config = defaultConfig().dataDir(dir).build();
        try (KvStore s = Stores.open(config)) {
            s.put(key("kept"), StoredValue.complete(TxId.of(1, 1), randomBytes(1, 2 * CHUNK)));
        }
        DataDir data = DataDir.open(dir); // as a crash between writing chunks and the record leaves it
        try (ValueChunks chunks = ValueChunks.open(config, data)) {
            chunks.recover(blobId -> true, 0);
            chunks.write(new byte[3 * CHUNK]);
            assertThat(chunks.size()).isEqualTo(5);
        }
        data.close(true);
        try (KvStore s = Stores.open(config)) {
            assertThat(((ChronicleKvStore) s).chunkCount()).isEqualTo(2);
            assertThat(s.get(key("kept")).value()).isEqualTo(randomBytes(1, 2 * CHUNK));
        }
    }

    @Test
    void aDataDirMadeWithSmallerChunksKeepsThem() {
        Path dir = tempDir.resolve("older-chunks");
        StoreConfig config = defaultConfig().dataDir(dir).build();
        DataDir data = DataDir.open(dir); // the value chunks file as a build of 64 KiB chunks made it
        try (ValueChunks chunks = ValueChunks.open(config, data, ValueChunks.FIRST_CHUNK_BYTES)) {
            assertThat(chunks.chunkBytes()).isEqualTo(ValueChunks.FIRST_CHUNK_BYTES);
        }
        data.close(true);
        byte[] value = randomBytes(7, 100_000);
        try (KvStore s = Stores.open(config)) {
            s.put(key("big"), StoredValue.complete(TxId.of(1, 1), value));
            assertThat(((ChronicleKvStore) s).chunkCount()).isEqualTo(2);
        }
        try (KvStore s = Stores.open(config)) {
            assertThat(s.get(key("big")).value()).isEqualTo(value);
            s.put(key("big"), StoredValue.complete(TxId.of(1, 2), randomBytes(8, 3 * ValueChunks.FIRST_CHUNK_BYTES)));
            assertThat(((ChronicleKvStore) s).chunkCount()).isEqualTo(3);
        }
        try (KvStore s = Stores.open(config)) {
            assertThat(s.get(key("big")).value()).isEqualTo(randomBytes(8, 3 * ValueChunks.FIRST_CHUNK_BYTES));
        }
    }

    @Test
    void writesThatReturnedSurviveKillMinus9() throws Exception {
        Path dir = tempDir.resolve("killed");
        int n = 400;
        Process child = new ProcessBuilder(childCommand(dir, n))
                .redirectErrorStream(true)
                .start();
        List<String> output = new ArrayList<>();
        try {
            CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> awaitReady(child, output));
            assertThat(ready.get(120, TimeUnit.SECONDS))
                    .as("child output: %s", output)
                    .isTrue();
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(dir.resolve("clean-shutdown")).doesNotExist();
        try (KvStore s = Stores.open(PersistedStoreChild.config(dir))) {
            for (int i = 0; i < n; i++) {
                StoredValue expected = PersistedStoreChild.value(i % 50 == 0 ? i + 1 : i);
                assertThat(s.get(PersistedStoreChild.key(i))).as("key %d", i).isEqualTo(expected);
            }
            assertThat(s.size()).isEqualTo(n);
            long[] expectedChunks = {0};
            s.forEach((k, v) -> {
                if (v.value().length > INLINE)
                    expectedChunks[0] += ValueChunks.chunkCount(v.value().length, ValueChunks.CHUNK_BYTES);
            });
            assertThat(((ChronicleKvStore) s).chunkCount()).isEqualTo(expectedChunks[0]);
        }
    }

    private static List<String> childCommand(Path dir, int n) {
        return ChildJvm.command("256m", PersistedStoreChild.class, dir.toString(), Integer.toString(n));
    }

    private static boolean awaitReady(Process child, List<String> output) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("READY")) return true;
                synchronized (output) {
                    output.add(line);
                }
            }
            return false;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void createsTheDataDirIfAbsent() throws Exception {
        Path dir = tempDir.resolve("a/b/c");
        try (KvStore s = Stores.open(defaultConfig().dataDir(dir).build())) {
            assertThat(Files.isDirectory(dir)).isTrue();
            assertThat(s.stats().persistent()).isTrue();
        }
    }
}
