package dev.kvs.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.BenchCommand;
import dev.kvs.bench.drill.DemoCommand;
import dev.kvs.bench.drill.DrillCommand;
import dev.kvs.server.cli.CliErrorHandler;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code kvs} command lines run in this JVM, keeping what they print for the assertions: the fixture of
 * the command tests. The commands of kvs-bench run under a {@code kvs} parent with the launcher's error
 * handling, as under kvs-cli's {@code KvsCli}. {@link #toString()} shows both outputs, for a failed
 * assertion's message.
 */
public final class InProcessKvs {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Runs {@code kvs ARGS} and returns its exit code. */
    public int run(String... args) {
        CommandLine cl = CliErrorHandler.install(new CommandLine(new Kvs()));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    /** All the runs printed on stdout so far. */
    public String out() {
        return out.toString();
    }

    /** All the runs printed on stderr so far. */
    public String err() {
        return err.toString();
    }

    /** Forgets what was printed so far. */
    public void clear() {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
    }

    /** Asserts that no process this JVM started is still running: a command stops all it started. */
    public static void assertNothingLeftRunning() {
        assertThat(ProcessHandle.current().descendants())
                .as("processes left running")
                .isEmpty();
    }

    @Override
    public String toString() {
        return "stdout:%n%s%nstderr:%n%s".formatted(out, err);
    }

    /** The {@code kvs} parent of kvs-bench's commands. */
    @Command(
            name = "kvs",
            subcommands = {DemoCommand.class, WanCommand.class, DrillCommand.class, BenchCommand.class})
    static final class Kvs {}
}
