package dev.kvs.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * {@code kvs} command lines run in this JVM, keeping what they print for the assertions: the fixture of
 * the command tests. {@link #toString()} shows both outputs, for a failed assertion's message.
 */
public final class InProcessKvs {
    private final CommandLine.IFactory factory;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Commands made by picocli's default factory. */
    public InProcessKvs() {
        this(CommandLine.defaultFactory());
    }

    /** Commands made by {@code factory}, e.g. one that stubs the server. */
    public InProcessKvs(CommandLine.IFactory factory) {
        this.factory = factory;
    }

    /** Runs {@code kvs ARGS} and returns its exit code. */
    public int run(String... args) {
        CommandLine cl = KvsCli.commandLine(factory);
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
}
