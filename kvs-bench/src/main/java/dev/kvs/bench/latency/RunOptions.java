package dev.kvs.bench.latency;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --flow-control}, {@code --json} and {@code --dir}, the options every {@code kvs bench}
 * command ends with, as a picocli mixin, and how such a command runs its benchmark with them ({@link
 * #run}). The mixin also lists the exit codes {@link #run} returns in the command's help.
 */
@Command(
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:PASS: every bound met",
            "1:the benchmark could not run (a node did not start, a connection failed)",
            "2:bad flag",
            "3:FAIL: the run completed and a bound was not met"
        })
final class RunOptions {
    /** Exit code: the benchmark could not run ({@code kvs bench}'s help lists it). */
    static final int FAILURE = 1;
    /** Exit code: the benchmark ran and a bound was not met. */
    static final int BOUND_NOT_MET = 3;

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(
            names = "--flow-control",
            paramLabel = "on|off",
            converter = BenchOptions.OnOffConverter.class,
            description =
                    "The primary's --flow-control: delay-based flow control of its value traffic" + " (default: on)")
    private String flowControl = "on";

    @Option(
            names = "--json",
            paramLabel = "FILE",
            arity = "0..1",
            fallbackValue = "-",
            description = "Also write the results as JSON to FILE; without FILE (or with -) the JSON goes to"
                    + " stdout and the table to stderr")
    private Path json;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "Run directory for the nodes' configs and logs (default: a new temporary one)")
    private Path dir;

    /** {@code on} or {@code off}: the primary's {@code --flow-control}. */
    String flowControl() {
        return flowControl;
    }

    /**
     * Runs a benchmark: prints what runs and where on stderr, runs it, prints its results (on stderr
     * if the JSON goes to stdout) and writes the JSON.
     *
     * @param benchmark checks the options and returns the benchmark they describe; an {@link
     *     IllegalArgumentException} it throws is a usage error
     * @return the exit code: 0 if every bound was met, {@link BenchCommand#BOUND_NOT_MET} if not,
     *     {@link BenchCommand#FAILURE} if the benchmark could not run
     * @throws ParameterException if an option is out of range
     */
    int run(Supplier<Benchmark> benchmark) throws InterruptedException {
        Benchmark b;
        try {
            b = benchmark.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), e.getMessage());
        }
        String name = command.qualifiedName();
        PrintWriter err = command.commandLine().getErr();
        PrintWriter out =
                Report.STDOUT.equals(json) ? err : command.commandLine().getOut();
        Path runDir = dir != null ? dir : newRunDir();
        err.println(name + ": " + b.describe());
        err.println(name + ": run directory " + runDir + " (node configs and logs)");
        err.flush();
        Benchmark.Result result;
        try {
            createDirectories(runDir);
            result = b.run(runDir, err);
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return FAILURE;
        }
        out.println();
        out.print(result.render());
        out.flush();
        if (json != null) Report.writeJson(result, json, command.commandLine().getOut());
        return result.verdict().pass() ? 0 : BOUND_NOT_MET;
    }

    private static Path newRunDir() {
        try {
            return Files.createTempDirectory("kvs-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
        }
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
    }
}
