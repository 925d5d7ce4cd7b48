package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.ValueType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process writing a hash whose pages split and merge, killed with SIGKILL in the middle of its
 * writes: the next open has every field whose write returned, as it left it, and nothing else but the
 * one field of the write under way. Where the kill lands is up to the two processes; {@link
 * StructureCrashTest} stops a write before each of its page and record writes.
 */
class StructuresKillTest {
    @TempDir
    Path tempDir;

    @RepeatedTest(3)
    void fieldsWhoseWritesReturnedSurviveKillMinus9(RepetitionInfo repetition) throws Exception {
        Path dir = tempDir.resolve("killed");
        Path returnedFile = tempDir.resolve("returned.txt");
        // killed once a number of writes returned that differs between repetitions (1,777 to 3,331), mid-round
        int killAfter = 1_000 + 777 * repetition.getCurrentRepetition();
        Process child = new ProcessBuilder(childCommand(dir, returnedFile))
                .redirectErrorStream(true)
                .start();
        List<String> output = new ArrayList<>();
        try {
            CompletableFuture<Boolean> reached = CompletableFuture.supplyAsync(() -> follow(child, killAfter, output));
            assertThat(reached.get(120, TimeUnit.SECONDS))
                    .as("child output: %s", output)
                    .isTrue();
        } finally {
            child.destroyForcibly(); // SIGKILL, while it writes
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(dir.resolve("clean-shutdown")).doesNotExist();
        Set<Integer> present = new HashSet<>();
        List<String> returned = Files.readAllLines(returnedFile, StandardCharsets.UTF_8);
        for (String line : returned) {
            int i = Integer.parseInt(line.substring(1));
            if (line.startsWith("+")) present.add(i);
            else present.remove(i);
        }
        // the write under way when the kill came: the one after the last that returned
        int next = returned.size();
        int round = next % 1_160;
        int underWay = round < 600 ? round : round - 600;
        Set<Integer> withUnderWay = new HashSet<>(present);
        if (round < 600) withUnderWay.add(underWay);
        else withUnderWay.remove(underWay);
        try (KvStore s = Stores.open(StructuresChild.config(dir))) {
            Map<Integer, String> found = new HashMap<>();
            for (Member m : s.members(StructuresChild.KEY, ValueType.HASH)) {
                int i = Integer.parseInt(new String(m.name(), StandardCharsets.UTF_8).substring("field-".length()));
                assertThat(found.put(i, new String(m.value(), StandardCharsets.UTF_8)))
                        .as("field %d twice", i)
                        .isNull();
            }
            assertThat(found.keySet())
                    .as("killed after %d returned writes", next)
                    .isIn(present, withUnderWay);
            found.forEach((i, v) -> assertThat(v).isEqualTo("value-" + i));
            assertThat(s.memberCount(StructuresChild.KEY, ValueType.HASH)).isEqualTo(found.size());
            for (int i : found.keySet()) {
                assertThat(s.getMembers(StructuresChild.KEY, ValueType.HASH, List.of(StructuresChild.field(i))))
                        .containsExactly(StructuresChild.value(i));
            }
        }
    }

    /** Reads the child's output until it says {@code killAfter} writes returned; false if it ends first. */
    private static boolean follow(Process child, int killAfter, List<String> output) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.matches("[0-9]+") && Integer.parseInt(line) >= killAfter) return true;
                synchronized (output) {
                    output.add(line);
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    private static List<String> childCommand(Path dir, Path returnedFile) {
        return ChildJvm.command("128m", StructuresChild.class, dir.toString(), returnedFile.toString());
    }
}
