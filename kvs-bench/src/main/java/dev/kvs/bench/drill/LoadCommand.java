package dev.kvs.bench.drill;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.NodeAccess;
import dev.kvs.client.ReplicationMode;
import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs drill load}: the first half of a drill against nodes started elsewhere. Writes for
 * {@code --duration} and records every acknowledged write in {@code --out}. A primary that dies
 * mid-run is part of the plan: its failed writes are counted, not fatal.
 */
@Command(
        name = "load",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Write at full speed to an existing primary and record every acknowledged write.",
        descriptionHeading = "%n",
        description = {
            "Each client writes unique keys with values derived from the key, keeping --pipeline writes in"
                    + " flight. Every write the store acknowledges is appended to --out at once (key, length,"
                    + " CRC32C), so the file is usable even if this process dies. Failed writes (the primary"
                    + " died, -NOREPLICA, timeouts) are counted and not retried. Stops after --duration.",
            "",
            "Then cause the disaster, promote the backup, and run 'kvs drill verify --in FILE' against it."
        },
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the load ran (failed writes included)", "1:the file could not be written", "2:bad flag"})
public final class LoadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(
            names = "--endpoints",
            required = true,
            paramLabel = "HOST:PORT[,HOST:PORT]",
            description = "The primary's client port, then optionally the backup's")
    private String endpoints;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = LoadOptions.ModeConverter.class,
            description = "sync, id-first, id-first-after-reply or async (default: id-first)")
    private ReplicationMode mode = ReplicationMode.ID_FIRST;

    @Mixin
    private LoadOptions load;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where to record acknowledged writes")
    private Path out;

    @Mixin
    private AccessOptions accessOptions;

    @Override
    public Integer call() throws InterruptedException {
        String problem = load.problem();
        if (problem != null) throw new ParameterException(spec.commandLine(), problem);
        List<String> eps = endpoints(spec, endpoints);
        NodeAccess access = access(spec, accessOptions);
        PrintWriter err = spec.commandLine().getErr();
        LoadResult result;
        try (QuietLogs quiet = new QuietLogs();
                AckLog.Writer acks = new AckLog.Writer(out, mode.label())) {
            LoadGenerator gen = new LoadGenerator(
                    new LoadGenerator.Settings(
                            eps,
                            mode,
                            load.clients,
                            (int) load.valueSize,
                            load.pipeline,
                            DrillRun.REQUEST_TIMEOUT,
                            "load-" + mode.label() + "-" + Long.toHexString(System.currentTimeMillis()),
                            access),
                    acks);
            double seconds = load.duration.toMillis() / 1000.0;
            gen.start();
            try (ProgressLine p =
                    gen.showProgress(err, ProgressLine.stderrIsTerminal(), mode.label(), seconds, () -> "")) {
                TimeUnit.MILLISECONDS.sleep(load.duration.toMillis());
                result = gen.stop(DrillRun.DRAIN);
            }
            acks.summary(result);
        } catch (UncheckedIOException e) {
            err.println(spec.qualifiedName() + ": " + e.getMessage());
            err.flush();
            return DrillCommand.FAILURE;
        }
        PrintWriter o = spec.commandLine().getOut();
        o.printf(
                Locale.ROOT,
                "%s: %s, %d clients, %s values: %,d writes acknowledged (%,.0f/s, p50 %.2f ms, p99 %.2f ms),"
                        + " %,d failed %s; recorded in %s%n",
                spec.qualifiedName(),
                mode.label(),
                load.clients,
                DrillCommand.size(load.valueSize),
                result.acked(),
                result.writesPerSecond(),
                result.p50Micros() / 1000.0,
                result.p99Micros() / 1000.0,
                result.failed(),
                result.failures(),
                out);
        o.flush();
        return 0;
    }

    /** The TLS and login options, checked: a bad combination or an unreadable file is a usage error. */
    static NodeAccess access(CommandSpec spec, AccessOptions options) {
        String problem = options.problem();
        if (problem != null) throw new ParameterException(spec.commandLine(), problem);
        try {
            return options.access();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code host:port[,host:port...]}, checked by the client's own parser. */
    static List<String> endpoints(CommandSpec spec, String text) {
        List<String> eps = Arrays.stream(text.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
        try {
            dev.kvs.client.KvsClient.builder().endpoints(eps);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--endpoints: " + e.getMessage());
        }
        return eps;
    }
}
