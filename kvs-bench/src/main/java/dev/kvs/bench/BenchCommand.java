package dev.kvs.bench;

import dev.kvs.bench.charts.ChartsCommand;
import dev.kvs.bench.jmh.JmhCommand;
import dev.kvs.bench.latency.AbuseCommand;
import dev.kvs.bench.latency.IdFirstOverheadCommand;
import dev.kvs.bench.latency.KeysUnderLoadCommand;
import dev.kvs.bench.latency.ResyncCommand;
import dev.kvs.bench.latency.SoakCommand;
import dev.kvs.bench.latency.ValueLagBoundCommand;
import dev.kvs.server.cli.KvsVersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs bench}: benchmarks that start their own two DCs on this machine, joined by an emulated
 * WAN link, and check the results against acceptance bounds.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        subcommands = {
            KeysUnderLoadCommand.class,
            ValueLagBoundCommand.class,
            IdFirstOverheadCommand.class,
            SoakCommand.class,
            AbuseCommand.class,
            ResyncCommand.class,
            JmhCommand.class,
            ChartsCommand.class
        },
        synopsisSubcommandLabel = "COMMAND",
        headerHeading = "%n",
        header = "Benchmarks of identifier-first replication over an emulated WAN, with PASS/FAIL bounds.",
        descriptionHeading = "%n",
        description = {
            "Each benchmark starts a backup and a primary node as separate JVMs on loopback, joined by a"
                    + " WAN link emulator in this process, runs for a bounded time, prints a table and PASS or"
                    + " FAIL, and stops every process it started (Ctrl-C too). --json writes the same as JSON."
        },
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:PASS",
            "1:the benchmark could not run",
            "2:bad flag",
            "3:FAIL: the run completed and a bound was not met"
        })
public final class BenchCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(),
                "missing COMMAND (keys-under-load, value-lag, id-first-overhead, soak, abuse, resync, jmh, charts)");
    }
}
