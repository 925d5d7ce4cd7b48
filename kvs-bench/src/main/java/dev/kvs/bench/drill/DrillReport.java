package dev.kvs.bench.drill;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The results of a drill (or of {@code drill verify}), as written by {@code --json}.
 *
 * @param command what ran: {@code drill}, {@code verify} or {@code demo}
 * @param disaster the disaster label, or null if unknown (verify)
 * @param seed the seed that chose the moment of the disaster, or null
 * @param clients clients per mode, or null if unknown
 * @param valueSize bytes per value, or null if unknown
 * @param durationSeconds load duration asked for, or null if unknown
 * @param delayMs one-way WAN delay, or null if unknown
 * @param bandwidthMbit WAN bandwidth per direction (0: unlimited), or null if unknown
 * @param runDir where the nodes' logs and the ack files are, or null
 * @param network where the nodes ran: {@code loopback}, or {@code netns} (a network namespace each,
 *     joined by a veth pair); null if unknown
 * @param wan what emulated the WAN: {@code netem} ({@code tc netem} on the veth pair) or {@code
 *     wanlink} (kvs's WanLink, in-process or a {@code kvs wan} process); null if unknown
 * @param date when the report was made (ISO-8601)
 * @param java the Java runtime version
 * @param cores available processors
 * @param modes one result per mode, in the order run
 * @param ok whether no acknowledged write was silently lost in {@code sync} or {@code id-first} and
 *     every write could be read back
 */
record DrillReport(
        String command,
        String disaster,
        Long seed,
        Integer clients,
        Long valueSize,
        Double durationSeconds,
        Double delayMs,
        Double bandwidthMbit,
        String runDir,
        String network,
        String wan,
        String date,
        String java,
        int cores,
        List<ModeResult> modes,
        boolean ok) {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    DrillReport {
        modes = List.copyOf(modes);
    }

    /** Whether {@code modes} keep the promises: no forbidden silent loss, nothing unreadable. */
    static boolean ok(List<ModeResult> modes) {
        return modes.stream().noneMatch(m -> m.unreadable() > 0 || (m.lossForbidden() && m.dataLoss() > 0));
    }

    void write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            JSON.writeValue(file.toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    static DrillReport read(Path file) {
        try {
            return JSON.readValue(file.toFile(), DrillReport.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
