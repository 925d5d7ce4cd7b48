package dev.kvs.bench.jmh;

import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvs bench jmh}: runs the JMH microbenchmarks from this jar, in forked JVMs that get this
 * JVM's module flags (Chronicle Map needs them), and writes JMH's JSON.
 */
@Command(
        name = "jmh",
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        description = {
            "JMH benchmarks: the store (put and get by value size, 100 B to 10 MiB), the client port's RESP"
                    + " codec (SET decode, GET reply encode by value size), the replication frame codec, the WAN"
                    + " emulator's accuracy (round trips through a 4.6 ms link; the link's"
                    + " lateness is printed with a verdict), the end-to-end SET latency per replication mode and"
                    + " value size through a 5 ms FIFO link (ReplicationLatencyBenchmark: time to consistency"
                    + " protection and time to the value on the backup) and the Redis baseline (RedisWaitBenchmark:"
                    + " SET then WAIT 1 0 to a replica behind the same link; left out without redis-server on"
                    + " PATH). The default run is short (each class's own settings: 1 fork, a few seconds per"
                    + " benchmark and parameter set; about 10 minutes in all on two busy cores); --full is 5 x 5 s and 5 x 5 s in 2 forks."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:JMH could not run", "2:bad flag"})
public final class JmhCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(
            arity = "0..*",
            paramLabel = "FILTER",
            description = "Regular expressions of the benchmarks to run, e.g. Store.get (default: all)")
    private List<String> filters = new ArrayList<>();

    @Option(names = "--full", description = "Longer warm-up and measurement, two forks")
    private boolean full;

    @Option(
            names = "--stages",
            description = "ReplicationLatencyBenchmark also prints, per trial, when each stage of a write happened"
                    + " (the commit, the key packet's flush, the value's frames, their reads and apply on the backup,"
                    + " the acks, the reply): medians in µs from the commit, over the trial's last iteration")
    private boolean stages;

    @Option(
            names = {"-p", "--param"},
            paramLabel = "NAME=V1,V2",
            description = "Run only these values of a @Param, e.g. -p valueSize=100,1048576 -p mode=id-first")
    private List<String> params = new ArrayList<>();

    @Option(
            names = "--prof",
            paramLabel = "NAME[:OPTIONS]",
            description = "Adds a JMH profiler (repeatable), e.g. --prof gc: allocation per operation"
                    + " (gc.alloc.rate.norm, bytes/op) and GC counts")
    private List<String> profilers = new ArrayList<>();

    @Option(
            names = "--json",
            paramLabel = "FILE",
            description = "Where JMH writes its JSON results (default: jmh-results.json)")
    private Path json = Path.of("jmh-results.json");

    @Override
    public Integer call() {
        ChainedOptionsBuilder o = new OptionsBuilder()
                .jvmArgsAppend(forkFlags(stages))
                .result(json.toString())
                .resultFormat(ResultFormatType.JSON)
                .shouldFailOnError(true);
        if (filters.isEmpty()) o.include("dev\\.kvs\\.bench\\.jmh\\..*");
        for (String f : filters) o.include(f);
        for (String p : params) {
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--param wants NAME=V1[,V2...], not " + p);
            }
            o.param(p.substring(0, eq), p.substring(eq + 1).split(","));
        }
        for (String prof : profilers) {
            int colon = prof.indexOf(':');
            if (colon < 0) o.addProfiler(prof);
            else o.addProfiler(prof.substring(0, colon), prof.substring(colon + 1));
        }
        if (full) {
            o.forks(2)
                    .warmupIterations(5)
                    .warmupTime(TimeValue.seconds(5))
                    .measurementIterations(5)
                    .measurementTime(TimeValue.seconds(5));
        } // else each class's own @Fork, @Warmup and @Measurement: the short default
        PrintWriter err = spec.commandLine().getErr();
        boolean redisSkipped = leaveOutRedisIfAbsent(o, RedisServer.onPath().isPresent(), err);
        try {
            Collection<RunResult> results = new Runner(o.build()).run();
            err.println("kvs bench jmh: " + results.size() + " results in " + json.toAbsolutePath());
            return results.isEmpty() ? 1 : 0;
        } catch (RunnerException e) {
            if (redisSkipped && noMatch(e)) {
                err.println("kvs bench jmh: nothing left to run without redis-server");
                return 0;
            }
            err.println("kvs bench jmh: "
                    + (noMatch(e)
                            ? "no benchmark matches " + (filters.isEmpty() ? "the suite" : filters)
                            : describe(e)));
            return 1;
        }
    }

    /**
     * Leaves the Redis baseline out, saying why, when there is no {@code redis-server}.
     *
     * @return whether it was left out
     */
    static boolean leaveOutRedisIfAbsent(ChainedOptionsBuilder o, boolean redisServerOnPath, PrintWriter err) {
        if (redisServerOnPath) return false;
        o.exclude(REDIS_BENCHMARK);
        err.println("kvs bench jmh: skipping RedisWaitBenchmark: " + RedisServer.NOT_INSTALLED);
        return true;
    }

    /** The Redis baseline's name pattern, left out where redis-server is not installed. */
    static final String REDIS_BENCHMARK = "dev\\.kvs\\.bench\\.jmh\\.RedisWaitBenchmark";

    /** A failure's message, or its class and its cause's when it has none (JMH's often have none). */
    static String describe(Throwable e) {
        if (e.getMessage() != null) return e.getMessage();
        Throwable c = e.getCause();
        return e.getClass().getSimpleName() + (c == null ? "" : ": " + (c.getMessage() != null ? c.getMessage() : c));
    }

    /** Whether JMH found no benchmark matching the filters. */
    static boolean noMatch(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NoBenchmarksException) return true;
        }
        return false;
    }

    /** The forks' JVM flags: this JVM's module flags, and the stage trace's switch if asked for. */
    static String[] forkFlags(boolean stages) {
        List<String> flags = new ArrayList<>(List.of(moduleFlags()));
        if (stages) flags.add("-D" + ReplicationLatencyBenchmark.STAGES_PROPERTY + "=true");
        return flags.toArray(new String[0]);
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
