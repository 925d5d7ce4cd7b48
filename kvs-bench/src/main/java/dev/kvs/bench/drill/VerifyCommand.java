package dev.kvs.bench.drill;

import dev.kvs.bench.cluster.NodeAccess;
import dev.kvs.client.AuthenticationException;
import dev.kvs.client.KvsClient;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsTlsException;
import dev.kvs.client.ReplicationMode;
import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs drill verify}: the second half of a drill. Reads every write recorded by {@code kvs drill
 * load} back from a node (the promoted backup) and classifies it: complete, error-detect or data loss.
 */
@Command(
        name = "verify",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Read back every acknowledged write recorded by 'kvs drill load' and classify it.",
        descriptionHeading = "%n",
        description = {
            "Run it against the new primary after the disaster and the promotion (POST /promote?lost=true"
                    + " answers fenced keys at once). complete: same value; error-detect: -UNFINISHED or -LOST"
                    + " (the store knows); data loss: no value or another one (silent)."
        },
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:no silent loss in sync or id-first",
            "1:the file could not be read, or some writes could not be read back",
            "2:bad flag",
            "3:silent data loss in sync or id-first"
        })
public final class VerifyCommand implements Callable<Integer> {
    /** Reads in flight at once. */
    static final int WINDOW = 64;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--endpoints",
            required = true,
            paramLabel = "HOST:PORT",
            description = "The node to read from: the promoted backup")
    private String endpoints;

    @Option(names = "--in", required = true, paramLabel = "FILE", description = "The file 'kvs drill load' wrote")
    private Path in;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = LoadOptions.ModeConverter.class,
            description = "The mode the writes were made in (default: the one in the file)")
    private ReplicationMode mode;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON")
    private Path json;

    @Mixin
    private AccessOptions accessOptions;

    @Override
    public Integer call() throws InterruptedException {
        List<String> eps = LoadCommand.endpoints(spec, endpoints);
        NodeAccess access = LoadCommand.access(spec, accessOptions);
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        AckLog.Contents contents;
        try {
            contents = AckLog.read(in);
        } catch (UncheckedIOException | IllegalArgumentException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return DrillCommand.FAILURE;
        }
        String label = mode != null ? mode.label() : contents.mode();
        if (label == null) {
            throw new ParameterException(spec.commandLine(), in + " names no mode: give --mode");
        }
        err.printf(
                "%s: reading back %,d acknowledged writes from %s%n",
                name, contents.writes().size(), eps);
        err.flush();
        Classification c;
        try {
            c = verify(eps, contents.writes(), access);
        } catch (IllegalStateException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return DrillCommand.FAILURE;
        }
        LoadResult load = contents.summary();
        List<ModeResult> modes = List.of(ModeResult.of(label, load, c, null));
        DrillReport report = new DrillReport(
                "verify",
                null,
                null,
                load == null ? null : load.clients(),
                load == null ? null : (long) load.valueSize(),
                load == null ? null : load.elapsedSeconds(),
                null,
                null,
                null,
                null,
                null,
                OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(),
                modes,
                DrillReport.ok(modes));
        PrintWriter out = spec.commandLine().getOut();
        out.print(ResultTable.render(modes));
        out.flush();
        if (json != null) report.write(json);
        return DrillCommand.verdict(report, name, out, err);
    }

    /** Reads {@code writes} back from {@code endpoints} (reached with {@code access}) and classifies them. */
    static Classification verify(List<String> endpoints, List<AckedWrite> writes, NodeAccess access)
            throws InterruptedException {
        try (QuietLogs quiet = new QuietLogs();
                KvsClient reader = access.applyTo(KvsClient.builder())
                        .endpoints(endpoints)
                        .unfinishedRetryDeadline(Duration.ZERO)
                        .requestTimeout(Duration.ofSeconds(10))
                        .maxPending(WINDOW + 16)
                        .clientName("kvs-drill-verify")
                        .build()) {
            try {
                reader.ping(); // a wrong CA, certificate or login fails every read alike: say so once
            } catch (KvsTlsException | AuthenticationException e) {
                throw new IllegalStateException("cannot read from " + endpoints + ": " + e.getMessage(), e);
            } catch (KvsClientException e) {
                // anything else (a node still starting, say) is the reads' to report, one by one
            }
            return new Verifier(reader::getAsync, WINDOW, Duration.ofSeconds(15)).verify(writes);
        }
    }
}
