package dev.kvs.bench.latency;

import java.io.PrintWriter;
import java.nio.file.Path;

/** A {@code kvs bench} benchmark, its settings checked, ready to run ({@link RunOptions#run}). */
interface Benchmark {
    /** One line saying what runs. */
    String describe();

    /**
     * Runs the benchmark: starts two DCs with their configs and logs in {@code runDir} (which exists),
     * shows the progress on {@code err}, and stops every process it started, also if the JVM is
     * stopped first (Ctrl-C).
     *
     * @throws IllegalStateException if a node does not start or fails
     * @throws java.io.UncheckedIOException if a client connection fails
     */
    Result run(Path runDir, PrintWriter err) throws InterruptedException;

    /** What a benchmark measured; {@code --json} writes it as it is. */
    interface Result {
        /** The results as text, ending with the verdict. */
        String render();

        /** The acceptance bounds and whether the run met them. */
        Verdict verdict();
    }
}
