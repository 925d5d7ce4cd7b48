package dev.kvs.bench.cluster;

import dev.kvs.bench.cli.WanCommand;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.cli.ServerCommand;
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

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
