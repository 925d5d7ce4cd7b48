package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cli.InProcessKvs;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.wan.WanLink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Option parsing of {@code kvs bench}; the runs themselves are in {@link BenchEndToEndTest}. */
class BenchCommandTest {
    private final InProcessKvs kvs = new InProcessKvs();

    @Test
    void benchWithoutACommandIsAUsageError() {
        assertThat(kvs.run("bench")).isEqualTo(2);
        assertThat(kvs.err())
                .startsWith(
                        "kvs bench: missing COMMAND (keys-under-load, value-lag, id-first-overhead, soak, abuse, resync, jmh, charts); see 'kvs bench --help'");
    }

    @Test
    void benchHelpListsBothBenchmarks() {
        assertThat(kvs.run("bench", "--help")).isZero();
        assertThat(kvs.out())
                .contains(
                        "keys-under-load",
                        "id-first-overhead",
                        "soak",
                        "abuse",
                        "resync",
                        "jmh",
                        "charts",
                        "Exit codes");
    }

    @Test
    void soakHelpNamesEveryOption() {
        assertThat(kvs.run("bench", "soak", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--duration=TIME", "--sample-seconds=S", "--delay-ms=MS", "--bandwidth-mbit=MBIT")
                .contains("--small-writers=N", "--small-size=SIZE", "--large-writers=N", "--large-size=SIZE")
                .contains("--reconnect-every=N", "--cut-every=TIME", "--cut-seconds=S", "--node-heap=SIZE")
                .contains("--delete-writers=N", "--expire-writers=N", "--churn-rate=N", "--max-entries=N")
                .contains("--max-bytes=SIZE", "--warm-up=TIME", "--full-gc-every=TIME")
                .contains("--flow-control=on|off", "--json[=FILE]", "--dir=DIR")
                .contains("least-squares slope", "2 standard", "entries - keys <= the tombstone", "no acknowledged");
    }

    @Test
    void soakDefaultsAndForms() {
        SoakCommand defaults = new SoakCommand();
        new CommandLine(defaults).parseArgs();
        SoakReport.Settings d =
                defaults.settings(new LinkSettings(Duration.ofMillis(5), 100_000_000, 4 << 20, WanLink.Queueing.FIFO));
        assertThat(d)
                .isEqualTo(new SoakReport.Settings(
                        600,
                        5,
                        5,
                        100,
                        "id-first",
                        "on",
                        2,
                        100,
                        1,
                        1 << 20,
                        500,
                        60,
                        5,
                        "512m",
                        1,
                        1,
                        200,
                        100_000,
                        1024,
                        128 << 20,
                        120,
                        60));
        SoakCommand c = new SoakCommand();
        new CommandLine(c)
                .parseArgs(
                        "--duration=1.5h",
                        "--sample-seconds=10",
                        "--mode=async",
                        "--small-writers=3",
                        "--small-size=1kB",
                        "--large-writers=0",
                        "--large-size=10MiB",
                        "--reconnect-every=50",
                        "--cut-every=90s",
                        "--cut-seconds=2.5",
                        "--node-heap=1g",
                        "--delete-writers=2",
                        "--expire-writers=0",
                        "--churn-rate=500",
                        "--max-entries=500000",
                        "--max-bytes=1GiB",
                        "--warm-up=5m",
                        "--full-gc-every=0",
                        "--flow-control=off");
        assertThat(c.settings(new LinkSettings(Duration.ofMillis(5), 100_000_000, 4 << 20, WanLink.Queueing.FIFO)))
                .isEqualTo(new SoakReport.Settings(
                        5400, 10, 5, 100, "async", "off", 3, 1000, 0, 10 << 20, 50, 90, 2.5, "1g", 2, 0, 500, 500_000,
                        5000, 1 << 30, 300, 0));
    }

    @Test
    void soakRefusesOutOfRangeOptions() {
        assertThat(kvs.run("bench", "soak", "--duration=10s")).isEqualTo(2);
        assertThat(kvs.err()).contains("--duration is not in 30s..168h");
        assertThat(kvs.run("bench", "soak", "--duration=10x")).isEqualTo(2);
        assertThat(kvs.err()).contains("not a duration like 90s, 10m or 1h");
        assertThat(kvs.run("bench", "soak", "--duration=60s", "--sample-seconds=20"))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("two samples per third");
        assertThat(kvs.run("bench", "soak", "--cut-every=10s", "--cut-seconds=10"))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("below --cut-every");
        assertThat(kvs.run("bench", "soak", "--node-heap=lots")).isEqualTo(2);
        assertThat(kvs.err()).contains("--node-heap is not a -Xmx size");
        assertThat(kvs.run("bench", "soak", "--churn-rate=0")).isEqualTo(2);
        assertThat(kvs.err()).contains("--churn-rate is not in 1..10000: 0");
        // 2 x 2,000 keys, 8 large, 200 expiring keys a second for up to 10 s: 6,008 live keys
        assertThat(kvs.run("bench", "soak", "--max-entries=9000")).isEqualTo(2);
        assertThat(kvs.err()).contains("--max-entries is not in 1.5 x the load's live keys (6008");
        SoakCommand atTheBound = new SoakCommand();
        new CommandLine(atTheBound).parseArgs("--max-entries=9012");
        assertThat(atTheBound
                        .settings(new LinkSettings(Duration.ofMillis(5), 100_000_000, 4 << 20, WanLink.Queueing.FIFO))
                        .maxEntries())
                .isEqualTo(9012);
        assertThat(kvs.run("bench", "soak", "--duration=3m", "--warm-up=140s")).isEqualTo(2);
        assertThat(kvs.err()).contains("--warm-up leaves fewer than 10 samples");
        // 4,000 small values of 100 B, 8 of 1 MiB, 2,000 expiring: 8,988,608 bytes live
        assertThat(kvs.run("bench", "soak", "--max-bytes=32MiB")).isEqualTo(2);
        assertThat(kvs.err()).contains("--max-bytes is below 4 x the load's live bytes (8988608) or 16MiB");
        assertThat(kvs.run("bench", "soak", "--full-gc-every=2s")).isEqualTo(2);
        assertThat(kvs.err()).contains("--full-gc-every is not 0 or in --sample-seconds..--duration: 2.0 s");
    }

    @Test
    void abuseHelpNamesEveryOptionAndTheBounds() {
        assertThat(kvs.run("bench", "abuse", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--connections=N", "--idle-sockets=N", "--gets=N", "--value-size=SIZE")
                .contains("--hold-seconds=S", "--auth-timeout-seconds=S", "--sample-millis=MS", "--node-heap=SIZE")
                .contains("--json[=FILE]", "--dir=DIR")
                .contains("< 50 MB", "< 100 MB", "within the auth timeout");
    }

    @Test
    void abuseDefaultsAreTheIssuesScaleAndOptionsTakeTheirForms() {
        assertThat(parse(new AbuseCommand()).settings())
                .isEqualTo(new AbuseReport.Settings(110, 1000, 1 << 20, 2000, 5, 2, "2g", 100, "on", 9800));
        assertThat(parse(
                                new AbuseCommand(),
                                "--connections=10",
                                "--idle-sockets=50",
                                "--gets=20",
                                "--value-size=64KiB",
                                "--hold-seconds=1.5",
                                "--auth-timeout-seconds=3",
                                "--sample-millis=50",
                                "--node-heap=512m",
                                "--flow-control=off",
                                "--memory-clients=0")
                        .settings())
                .isEqualTo(new AbuseReport.Settings(10, 20, 64 << 10, 50, 1.5, 3, "512m", 50, "off", 0));
    }

    @Test
    void abuseAttacksTheAdminPortSmallByDefaultAndAtTheIssuesScaleOnRequest() {
        assertThat(parse(new AbuseCommand()).adminSettings())
                .isEqualTo(new AdminAbuse.Settings(200, 1 << 20, 2000, 6000));
        assertThat(parse(new AbuseCommand(), "--admin-posts=2200", "--admin-half-open=20000", "--admin-body-size=1MiB")
                        .adminSettings())
                .isEqualTo(new AdminAbuse.Settings(2200, 1 << 20, 20_000, 6000));
        assertUsageError("--admin-posts is not in 1..100000: 0", "abuse", "--admin-posts", "0");
    }

    @Test
    void abuseRefusesOutOfRangeOptions() {
        assertUsageError("--connections is not in 1..10000: 0", "abuse", "--connections", "0");
        assertUsageError("--idle-sockets is not in 1..9000: 20000", "abuse", "--idle-sockets", "20000");
        assertUsageError("--hold-seconds is not in 0.5..50: 0.1", "abuse", "--hold-seconds", "0.1");
        assertUsageError("--auth-timeout-seconds is not in 1..60: 0", "abuse", "--auth-timeout-seconds", "0");
        assertUsageError("--node-heap is not a -Xmx size like 2g: lots", "abuse", "--node-heap", "lots");
    }

    @Test
    void resyncHelpNamesEveryOptionAndTheBound() {
        assertThat(kvs.run("bench", "resync", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--keys=N", "--value-size=SIZE", "--changed-percent=P", "--timeout=TIME", "--node-heap=SIZE")
                .contains("--delay-ms=MS", "--bandwidth-mbit=MBIT", "--buffer=SIZE", "--queueing=fifo|fair")
                .contains("--flow-control=on|off", "--json[=FILE]", "--dir=DIR")
                .contains("at most 5%");
    }

    @Test
    void resyncDefaultsAreTheIssuesScaleWithStoresSizedForTheKeys() {
        ResyncCommand c = parse(new ResyncCommand());
        Resync defaults = c.benchmark();

        assertThat(defaults.link()).isEqualTo(new LinkSettings(Duration.ZERO, 0, 4 << 20, WanLink.Queueing.FIFO));
        assertThat(defaults.settings())
                .isEqualTo(new ResyncReport.Settings(
                        1_000_000, 1024, 1, 10_000, 0, 0, "on", "1g", 1_200_000, 2_176_000_000L, 600));
        Resync tiny = parse(
                        new ResyncCommand(),
                        "--keys=2000",
                        "--value-size=512B",
                        "--changed-percent=2.5",
                        "--timeout=90s",
                        "--node-heap=256m",
                        "--delay-ms=5",
                        "--bandwidth-mbit=100",
                        "--flow-control=off")
                .benchmark();
        assertThat(tiny.settings())
                .as("small stores get 10,000 entries and 64 MiB at least")
                .isEqualTo(new ResyncReport.Settings(2000, 512, 2.5, 50, 5, 100, "off", "256m", 10_000, 64L << 20, 90));
    }

    @Test
    void resyncRefusesOutOfRangeOptions() {
        assertUsageError("--keys is not in 100..20000000: 99", "resync", "--keys", "99");
        assertUsageError("--value-size is not in 16B..1MiB: 8", "resync", "--value-size", "8B");
        assertUsageError(
                "--changed-percent is not above 0 (at least one key) and at most 100: 0.0",
                "resync",
                "--changed-percent",
                "0");
        assertUsageError(
                "--changed-percent is not above 0 (at least one key) and at most 100: 0.01",
                "resync",
                "--keys",
                "1000",
                "--changed-percent",
                "0.01");
        assertUsageError("--changed-percent is not above 0", "resync", "--changed-percent", "101");
        assertUsageError("--timeout is not in 10s..24h: 5.0 s", "resync", "--timeout", "5s");
        assertUsageError("--node-heap is not a -Xmx size like 1g: big", "resync", "--node-heap", "big");
    }

    @Test
    void keysUnderLoadHelpNamesEveryOption() {
        assertThat(kvs.run("bench", "keys-under-load", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--delay-ms=MS", "--bandwidth-mbit=MBIT", "--buffer=SIZE", "--queueing=fifo|fair")
                .contains("--writers=N", "--value-size=SIZE", "--small-size=SIZE", "--interval-ms=MS")
                .contains("--idle-seconds=S", "--ramp-seconds=S", "--loaded-seconds=S", "--mode=MODE")
                .contains("--flow-control=on|off", "--json[=FILE]", "--dir=DIR")
                .contains("loaded p50 <= idle p50 + 15 ms", ">= 80%");
    }

    @Test
    void valueLagHelpNamesEveryOption() {
        assertThat(kvs.run("bench", "value-lag", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--delay-ms=MS", "--bandwidth-mbit=MBIT", "--buffer=SIZE", "--queueing=fifo|fair")
                .contains("--duration=TIME", "--max-value-lag-ms=MS", "--writers=N", "--value-size=SIZE")
                .contains("--small-size=SIZE", "--interval-ms=MS", "--idle-seconds=S", "--ramp-seconds=S")
                .contains("--mode=MODE", "--flow-control=on|off", "--json[=FILE]", "--dir=DIR")
                .contains("bound + 1 s", ">= 80%");
    }

    @Test
    void valueLagDefaultsAreTheAcceptanceCase() {
        ValueLagBound benchmark = parse(new ValueLagBoundCommand()).benchmark();
        assertThat(benchmark.link())
                .isEqualTo(new LinkSettings(Duration.ofMillis(20), 8_000_000, 4 << 20, WanLink.Queueing.FIFO));
        assertThat(benchmark.settings())
                .isEqualTo(new ValueLagBoundReport.Settings(
                        20, 8, 4 << 20, "fifo", "id-first", "on", null, 100, 50, 10, 4, 1 << 20, 2, 60));
        assertThat(benchmark.tuning()).doesNotContain("maxValueLagMs"); // the node's default
    }

    @Test
    void valueLagOptionsTakeTheirForms() {
        ValueLagBound benchmark = parse(
                        new ValueLagBoundCommand(), "--duration=20s", "--max-value-lag-ms=2000", "--writers=2")
                .benchmark();
        assertThat(benchmark.settings().seconds()).isEqualTo(20.0);
        assertThat(benchmark.settings().maxValueLagMs()).isEqualTo(2_000L);
        assertThat(benchmark.settings().writers()).isEqualTo(2);
        assertThat(benchmark.tuning()).contains("  maxValueLagMs: 2000\n");
        assertUsageError("--max-value-lag-ms is not in 0..3600000: -1", "value-lag", "--max-value-lag-ms", "-1");
        assertUsageError("--duration is not in 1s..1h: 0.5 s", "value-lag", "--duration", "0.5s");
    }

    @Test
    void idFirstOverheadHelpNamesEveryOption() {
        assertThat(kvs.run("bench", "id-first-overhead", "--help")).isZero();
        assertThat(kvs.out())
                .contains("--delay-ms=MS", "--bandwidth-mbit=MBIT", "--buffer=SIZE", "--queueing=fifo|fair")
                .contains("--sizes=SIZE[,SIZE...]", "--count=N", "--large-count=N", "--warm-up=N", "--pings=N")
                .contains("--flow-control=on|off", "--json[=FILE]", "--dir=DIR")
                .contains("1.2 round trips");
    }

    @Test
    void onlyIdFirstOverheadOffersAnUnlimitedLink() {
        assertThat(kvs.run("bench", "keys-under-load", "--help")).isZero();
        assertThat(kvs.out()).doesNotContain("0 for unlimited");
        assertThat(kvs.run("bench", "id-first-overhead", "--help")).isZero();
        assertThat(kvs.out()).contains("0 for unlimited");
    }

    @Test
    void keysUnderLoadDefaultsAreTheAcceptanceCase() {
        assertKeysUnderLoad(
                new LinkSettings(Duration.ofMillis(20), 8_000_000, 4 << 20, WanLink.Queueing.FIFO),
                new KeysUnderLoadReport.Settings(
                        20, 8, 4 << 20, "fifo", "id-first", "on", 100, 50, 10, 4, 1 << 20, 2, 20, "on"));
    }

    @Test
    void keysUnderLoadOptionsTakeTheirForms() {
        // parsing only, nothing runs: every option set away from its default, fair queueing included
        assertKeysUnderLoad(
                new LinkSettings(Duration.ofMillis(50), 50_000_000, 1 << 20, WanLink.Queueing.FAIR),
                new KeysUnderLoadReport.Settings(
                        50, 50, 1 << 20, "fair", "async", "off", 1000, 12.5, 3, 2, 10 << 20, 0, 4.5, "off"),
                "--delay-ms=50",
                "--bandwidth-mbit=50",
                "--buffer=1MiB",
                "--queueing=FAIR",
                "--writers=2",
                "--value-size=10MiB",
                "--small-size=1kB",
                "--interval-ms=12.5",
                "--idle-seconds=3",
                "--ramp-seconds=0",
                "--loaded-seconds=4.5",
                "--mode=async",
                "--flow-control=OFF",
                "--cluster-secret=off");
    }

    private static void assertKeysUnderLoad(LinkSettings link, KeysUnderLoadReport.Settings settings, String... args) {
        KeysUnderLoad benchmark = parse(new KeysUnderLoadCommand(), args).benchmark();
        assertThat(benchmark.link()).isEqualTo(link);
        assertThat(benchmark.settings()).isEqualTo(settings);
    }

    @Test
    void idFirstOverheadDefaults() {
        IdFirstOverhead benchmark = parse(new IdFirstOverheadCommand()).benchmark();

        assertThat(benchmark.link())
                .isEqualTo(new LinkSettings(Duration.ofMillis(5), 1_000_000_000, 4 << 20, WanLink.Queueing.FIFO));
        assertThat(benchmark.settings())
                .isEqualTo(new IdFirstOverheadReport.Settings(
                        5,
                        1000,
                        4 << 20,
                        "fifo",
                        "on",
                        List.of(100L, 100_000L, 1L << 20, 10L << 20),
                        100,
                        30,
                        50,
                        30,
                        0,
                        "on"));
        // a warm node, but no more than 5 warm-up SETs of a value over 1 MiB (80 ms or more each on the link)
        assertThat(benchmark.settings().warmUpFor(1L << 20)).isEqualTo(50);
        assertThat(benchmark.settings().warmUpFor((1L << 20) + 1)).isEqualTo(5);
    }

    @Test
    void sizesAreAListInTheOrderGiven() {
        IdFirstOverheadCommand c = parse(new IdFirstOverheadCommand(), "--sizes", "1MiB, 100B,64KiB");
        assertThat(c.benchmark().settings().valueSizes()).containsExactly(1L << 20, 100L, 64L << 10);
    }

    @Test
    void badValuesAreUsageErrorsQuotingTheValue() {
        assertUsageError(
                "Invalid value for option '--queueing': queueing is not fifo or fair: lifo",
                "keys-under-load",
                "--queueing",
                "lifo");
        assertUsageError(
                "Invalid value for option '--value-size': not a byte size", "keys-under-load", "--value-size", "12XB");
        assertUsageError("--value-size is not in 1B..64MiB: 1073741824", "keys-under-load", "--value-size", "1GiB");
        assertUsageError(
                "Invalid value for option '--flow-control': not on or off: maybe",
                "keys-under-load",
                "--flow-control",
                "maybe");
        assertUsageError(
                "mode is not id-first|id-first-after-reply|sync|async: fast", "keys-under-load", "--mode", "fast");
        assertUsageError("--writers is not in 1..64: 0", "keys-under-load", "--writers", "0");
        assertUsageError(
                "--bandwidth-mbit must be above 0: goodput is a share of it",
                "keys-under-load",
                "--bandwidth-mbit",
                "0");
        assertUsageError("--delay-ms is not in 0..60000: -1.0", "keys-under-load", "--delay-ms", "-1");
        assertUsageError("--buffer is not in 16KiB..1GiB: 1024", "keys-under-load", "--buffer", "1KiB");
        assertUsageError("--idle-seconds is not in 0.5..600: 0.1", "keys-under-load", "--idle-seconds", "0.1");
        assertUsageError("--interval-ms is not in 1..10000: 0.5", "keys-under-load", "--interval-ms", "0.5");
        assertUsageError(
                "--bandwidth-mbit is not in 0..1000000: 2000000.0", "id-first-overhead", "--bandwidth-mbit", "2e6");
        assertUsageError("size is not in 1B..64MiB: 0", "id-first-overhead", "--sizes", "100B,0");
        assertUsageError("--count is not in 1..10000: 0", "id-first-overhead", "--count", "0");
        assertUsageError("--pings is not in 1..10000: 0", "id-first-overhead", "--pings", "0");
    }

    private void assertUsageError(String message, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        kvs.clear();
        assertThat(kvs.run(all)).as(String.join(" ", all)).isEqualTo(2);
        assertThat(kvs.err())
                .as(String.join(" ", all))
                .startsWith("kvs bench " + args[0] + ": ")
                .contains(message);
        assertThat(kvs.err().lines()).hasSize(1);
    }

    private static <T> T parse(T command, String... args) {
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void jsonWithoutAFileMeansStdout() {
        KeysUnderLoadCommand c = new KeysUnderLoadCommand();
        CommandLine cl = new CommandLine(c);
        cl.parseArgs("--json");
        assertThat((Path) cl.getCommandSpec().findOption("--json").getValue()).isEqualTo(Report.STDOUT);
        cl.parseArgs("--json", "out.json");
        assertThat((Path) cl.getCommandSpec().findOption("--json").getValue()).isEqualTo(Path.of("out.json"));
    }
}
