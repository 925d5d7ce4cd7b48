package dev.kvs.bench.cluster;

import dev.kvs.bench.cli.WanCommand;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.cli.ServerCommand;
import java.io.IOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The main class of the child JVMs a drill or benchmark starts ({@link JavaCommand}): {@code kvs
 * server} and {@code kvs wan}, the same commands with the same error handling as under the {@code
 * kvs} launcher (kvs-cli's {@code KvsCli}). It lives here, not there, so that a child runs on
 * kvs-bench's own class path, as in kvs-bench's tests, as well as from {@code kvs.jar}.
 */
@Command(
        name = "kvs",
        subcommands = {ServerCommand.class, WanCommand.class})
public final class ChildKvs implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing COMMAND (server, wan)");
    }

    /** The command line with kvs's error handling. */
    public static CommandLine commandLine() {
        return CliErrorHandler.install(new CommandLine(new ChildKvs()));
    }

    /**
     * The system property that makes a child exit when its standard input ends: its parent, which holds
     * the other end of the pipe, has gone, even by {@code kill -9}, when no shutdown hook of the parent
     * ran to kill it ({@link ChildProcesses} covers every other way). Set by {@link JavaCommand#exitingWithParent}.
     */
    public static final String EXIT_WITH_PARENT = "kvs.exitWithParent";

    public static void main(String[] args) {
        if (Boolean.getBoolean(EXIT_WITH_PARENT)) watchParent();
        System.exit(commandLine().execute(args));
    }

    private static void watchParent() {
        Thread t = new Thread(
                () -> {
                    try {
                        while (System.in.read() >= 0) {
                            // nothing is sent on the pipe; it only ends
                        }
                    } catch (IOException e) {
                        // the pipe broke: the parent is gone as well
                    }
                    System.err.println("kvs: the process that started this node has exited; stopping");
                    System.exit(1); // the node's shutdown hook closes it
                },
                "kvs-parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
