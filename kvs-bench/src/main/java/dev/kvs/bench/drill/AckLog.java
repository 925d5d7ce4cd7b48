package dev.kvs.bench.drill;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The file of acknowledged writes that {@code kvs drill load} writes and {@code kvs drill verify}
 * reads. Text, one line per write, appended as each write is acknowledged (so a load that dies
 * leaves every write acknowledged until then):
 *
 * <pre>
 * # kvs drill acked writes v1
 * # mode id-first
 * KEY TAB LENGTH TAB CRC32C-HEX
 * ...
 * # summary {JSON of the load's statistics}
 * </pre>
 */
final class AckLog {
    static final String HEADER = "# kvs drill acked writes v1";
    private static final String MODE = "# mode ";
    private static final String SUMMARY = "# summary ";
    private static final ObjectMapper JSON = new ObjectMapper();

    private AckLog() {}

    /** What a file holds. */
    record Contents(String mode, List<AckedWrite> writes, LoadResult summary) {}

    /** Appends acknowledged writes to a file; thread-safe. */
    static final class Writer implements AutoCloseable {
        private final Path file;
        private final BufferedWriter out;
        private long count;

        Writer(Path file, String mode) {
            this.file = file;
            try {
                Path parent = file.toAbsolutePath().getParent();
                if (parent != null) Files.createDirectories(parent);
                out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                out.write(HEADER + "\n" + MODE + mode + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        synchronized void append(AckedWrite w) {
            try {
                out.write(w.key() + '\t' + w.length() + '\t' + Integer.toHexString(w.crc32c()) + '\n');
                count++;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        synchronized long count() {
            return count;
        }

        /** Writes the summary line; call once, after the last {@link #append}. */
        synchronized void summary(LoadResult result) {
            try {
                out.write(SUMMARY + JSON.writeValueAsString(result) + "\n");
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        @Override
        public synchronized void close() {
            try {
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Reads a file written by {@link Writer}; a file cut short (the load was killed) is read up to its
     * last whole line, without a summary.
     *
     * @throws IllegalArgumentException naming the file and line if it is not an ack file
     */
    static Contents read(Path file) {
        String mode = null;
        LoadResult summary = null;
        List<AckedWrite> writes = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String first = in.readLine();
            if (!HEADER.equals(first)) {
                throw new IllegalArgumentException(file + " is not a kvs drill ack file (first line: " + first + ")");
            }
            List<String> lines = in.lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith(MODE)) {
                    mode = line.substring(MODE.length()).trim();
                } else if (line.startsWith(SUMMARY)) {
                    summary = JSON.readValue(line.substring(SUMMARY.length()), LoadResult.class);
                } else if (!line.startsWith("#") && !line.isEmpty()) {
                    boolean last = i == lines.size() - 1;
                    AckedWrite w = parse(file, i + 2, line, last);
                    if (w != null) writes.add(w);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return new Contents(mode, writes, summary);
    }

    /** A malformed last line is the half-written line of a load that was killed: skipped (null). */
    private static AckedWrite parse(Path file, int n, String line, boolean last) {
        String[] f = line.split("\t");
        try {
            if (f.length != 3) throw new IllegalArgumentException("expected 3 tab-separated fields");
            return new AckedWrite(f[0], Integer.parseInt(f[1]), Integer.parseUnsignedInt(f[2], 16));
        } catch (IllegalArgumentException e) {
            if (last) return null;
            throw new IllegalArgumentException(file + ":" + n + ": not KEY<TAB>LENGTH<TAB>CRC32C: " + line, e);
        }
    }
}
