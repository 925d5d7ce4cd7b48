package dev.kvs.cli;

import dev.kvs.bench.BenchCommand;
import dev.kvs.bench.cli.WanCommand;
import dev.kvs.bench.drill.DemoCommand;
import dev.kvs.bench.drill.DrillCommand;
import dev.kvs.bench.shards.ClusterCommand;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.cli.KvsVersionProvider;
import dev.kvs.server.cli.ServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code kvs} command line: {@code kvs demo} shows what kvs is for, {@code kvs server} runs a
 * node, {@code kvs wan} a WAN link emulator, {@code kvs drill} a failover drill, {@code kvs bench}
 * latency benchmarks with acceptance bounds. Run through the {@code ./kvs} launcher, which passes the
 * JVM flags the store needs.
 */
@Command(
        name = "kvs",
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        // New commands go here, before HelpCommand.
        subcommands = {
            DemoCommand.class,
            ServerCommand.class,
            ClusterCommand.class,
            WanCommand.class,
            DrillCommand.class,
            BenchCommand.class,
            HelpCommand.class
        },
        synopsisSubcommandLabel = "COMMAND",
        headerHeading = "%n",
        header = "kvs: an in-memory key-value store with identifier-first cross-DC replication.",
        descriptionHeading = "%n",
        description = {
            "A primary DC ships each write's key and TxId to the backup synchronously and its value"
                    + " asynchronously; after a failover the backup fences keys whose value never"
                    + " arrived instead of silently serving stale data.",
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%n",
        footer = {
            "Start with 'kvs demo' (under a minute, no options). Run 'kvs COMMAND --help' for a command's options.",
            "Java options: set KVS_JAVA_OPTS, e.g. KVS_JAVA_OPTS='-Xmx4g' ./kvs server"
        })
public final class KvsCli implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(), "missing COMMAND (demo, server, cluster, wan, drill, bench, help)");
    }

    /** The command line with kvs's error handling, creating commands with {@code factory}. */
    public static CommandLine commandLine(CommandLine.IFactory factory) {
        return CliErrorHandler.install(new CommandLine(new KvsCli(), factory));
    }

    /** The command line with kvs's error handling. */
    public static CommandLine commandLine() {
        return commandLine(CommandLine.defaultFactory());
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
