package dev.kvs.bench.jmh;

import dev.kvs.server.cli.KvsVersionProvider;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvs bench jmh}: runs the JMH microbenchmarks from this jar, in forked JVMs that get this
 * JVM's module flags (Chronicle Map needs them), and writes JMH's JSON.
 */
@Command(
        name = "jmh",
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        description = {
            "JMH microbenchmarks: the store (put and get by value size, 100 B to 10 MiB), the replication"
                    + " frame codec and the WAN emulator's accuracy (round trips through a 4.6 ms link; the link's"
                    + " lateness is printed with a verdict). The default run is short (1 fork, 2 x 1 s warm-up, 3 x 1 s measured, about"
                    + " a minute per benchmark method and size); --full is 5 x 5 s and 5 x 5 s in 2 forks."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:JMH could not run", "2:bad flag"})
public final class JmhCommand implements Callable<Integer> {
    @Parameters(
            arity = "0..*",
            paramLabel = "FILTER",
            description = "Regular expressions of the benchmarks to run, e.g. Store.get (default: all)")
    private List<String> filters = new ArrayList<>();

    @Option(names = "--full", description = "Longer warm-up and measurement, two forks")
    private boolean full;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            description = "Where JMH writes its JSON results (default: jmh-results.json)")
    private Path json = Path.of("jmh-results.json");

    @Override
    public Integer call() {
        ChainedOptionsBuilder o = new OptionsBuilder()
                .jvmArgsAppend(moduleFlags())
                .result(json.toString())
                .resultFormat(ResultFormatType.JSON)
                .shouldFailOnError(true);
        if (filters.isEmpty()) o.include("dev\\.kvs\\.bench\\.jmh\\..*");
        for (String f : filters) o.include(f);
        if (full) {
            o.forks(2)
                    .warmupIterations(5)
                    .warmupTime(TimeValue.seconds(5))
                    .measurementIterations(5)
                    .measurementTime(TimeValue.seconds(5));
        } else {
            o.forks(1)
                    .warmupIterations(2)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(3)
                    .measurementTime(TimeValue.seconds(1));
        }
        try {
            Collection<RunResult> results = new Runner(o.build()).run();
            System.err.println("kvs bench jmh: " + results.size() + " results in " + json.toAbsolutePath());
            return results.isEmpty() ? 1 : 0;
        } catch (RunnerException e) {
            System.err.println("kvs bench jmh: " + e.getMessage());
            return 1;
        }
    }

    /** This JVM's --add-opens/--add-exports/native-access flags and -D settings, for the forks. */
    static String[] moduleFlags() {
        List<String> flags = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens")
                    || a.startsWith("--add-exports")
                    || a.startsWith("--enable-native-access")
                    || a.startsWith("--sun-misc-unsafe-memory-access")
                    || a.startsWith("-Dchronicle.")) flags.add(a);
        }
        return flags.toArray(new String[0]);
    }
}
