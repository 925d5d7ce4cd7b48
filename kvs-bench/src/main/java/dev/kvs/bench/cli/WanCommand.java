package dev.kvs.bench.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kvs.server.NodeStartException;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.cli.KvsVersionProvider;
import dev.kvs.server.config.ByteSize;
import dev.kvs.wan.WanLink;
import dev.kvs.wan.WanLinkStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code kvs wan}: runs a {@link WanLink} (the WAN link emulator) until stopped, controlled over HTTP
 * and stdin. Exit code 2 for a bad flag, 1 if a port cannot be bound, 0 after a clean stop.
 */
@Command(
        name = "wan",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Run a WAN link emulator: a TCP proxy adding delay and a bandwidth limit, that can be cut.",
        descriptionHeading = "%n",
        description = {
            "Every connection to --listen is relayed to --target through an emulated link: each"
                    + " direction has the one-way delay and a bandwidth shared by all connections, and"
                    + " a bounded buffer that stops senders when full. For tests and drills on machines"
                    + " without tc netem.",
            "",
            "Control it with lines on stdin: cut, heal, pause, resume, status, delay MS, bandwidth MBIT,"
                    + " help, quit. If stdin is closed it keeps running until stopped.",
            "",
            "With --control-port it also serves HTTP: GET /status (JSON), POST /cut, /heal, /pause,"
                    + " /resume, POST /delay?ms=D, POST /bandwidth?mbit=B; each answers the status.",
            "",
            "cut closes every connection and refuses new ones until heal; pause stops delivery but"
                    + " keeps connections open until resume.",
            "Stop with quit, Ctrl-C or SIGTERM.",
            "",
            "The status, and the line printed on stop, include each direction's lateness: how long after"
                    + " the time the emulated delay and bandwidth give the link handed bytes to the receiver"
                    + " (p50, p99, max in microseconds; under 100 at the median on Linux, where the link uses"
                    + " native epoll)."
        },
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped cleanly", "1:a port could not be bound", "2:bad flag"})
public final class WanCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Below this many milliseconds Netty's epoll event loop sleeps in {@code epoll_pwait2}, whose
     * timeout carries the thread's 50 us timer slack; at 0 it arms a timerfd instead, which has none:
     * the link's deliveries are then about 0.05 ms less late (at the median 0.06 to 0.08 ms instead of
     * 0.11 to 0.12 ms on a two-core VM). JVM-wide and read once, so it is set here, before any event
     * loop exists, in a process that runs nothing but the link, not by the link itself, which may
     * share its JVM with servers.
     */
    private static final String EPOLL_WAIT_THRESHOLD_MS = "io.netty.channel.epoll.epollWaitThreshold";

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--listen",
            required = true,
            paramLabel = "[HOST:]PORT",
            converter = AddressConverter.class,
            description = "Where clients connect; HOST defaults to 127.0.0.1, 0.0.0.0 for every interface")
    private Address listen;

    @Option(
            names = "--target",
            required = true,
            paramLabel = "HOST:PORT",
            converter = AddressConverter.class,
            description = "Where connections are relayed to")
    private Address target;

    @Option(
            names = "--delay-ms",
            paramLabel = "MS",
            description = "One-way delay of each direction in milliseconds, fractions allowed; a round"
                    + " trip takes twice this (default: 0)")
    private double delayMs;

    @Option(
            names = "--bandwidth-mbit",
            paramLabel = "MBIT",
            description = "Bandwidth of each direction in Mbit/s, shared by all connections; 0 for"
                    + " unlimited (default: 0)")
    private double bandwidthMbit;

    @Option(
            names = "--buffer-bytes",
            paramLabel = "SIZE",
            converter = ByteSizeConverter.class,
            description = "Bytes queued per direction before senders are stopped, like 4MiB (default: 4MiB)")
    private ByteSize bufferBytes = new ByteSize(WanLink.DEFAULT_BUFFER_BYTES);

    @Option(
            names = "--queueing",
            paramLabel = "fifo|fair",
            converter = QueueingConverter.class,
            description = {
                "Which waiting bytes cross the wire next (default: fifo):",
                "  fifo: arrival order, like tc netem: a small packet waits behind the queue;",
                "  fair: connections take turns, like fq_codel"
            })
    private WanLink.Queueing queueing = WanLink.Queueing.FIFO;

    @Option(
            names = "--control-port",
            paramLabel = "[HOST:]PORT",
            converter = AddressConverter.class,
            description = "Serve HTTP control here; HOST defaults to 127.0.0.1 (default: none)")
    private Address controlPort;

    @Option(
            names = "--no-stdin",
            description = "Ignore stdin; use it when running in the background (&) of an interactive shell,"
                    + " where reading the terminal would stop the process")
    private boolean noStdin;

    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile WanLink link;
    private volatile HttpServer http;
    /** Where the final stats line goes, once the link is serving. */
    private volatile PrintWriter serving;

    private boolean closed;

    @Override
    public Integer call() throws InterruptedException {
        if (System.getProperty(EPOLL_WAIT_THRESHOLD_MS) == null) System.setProperty(EPOLL_WAIT_THRESHOLD_MS, "0");
        WanLink.Builder builder;
        try {
            builder = WanLink.builder()
                    .listen(listen.host(), listen.port())
                    .target(target.host(), target.port())
                    .delay(Duration.ofNanos(Math.round(delayMs * 1e6)))
                    .bandwidthBitsPerSecond(bitsPerSecond(bandwidthMbit))
                    .bufferBytes(bufferBytes.toInt("--buffer-bytes"))
                    .queueing(queueing);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Thread hook = new Thread(this::close, "kvs-wan-shutdown");
        Address binding = listen;
        String which = "link port, --listen";
        try {
            link = builder.build();
            binding = controlPort;
            which = "control port, --control-port";
            if (controlPort != null) http = startHttp(controlPort);
        } catch (UncheckedIOException e) {
            close();
            err.println(spec.qualifiedName() + ": "
                    + (binding != null && NodeStartException.isBindFailure(e)
                            ? NodeStartException.cannotListen(binding.host(), binding.port(), which, e)
                                    .getMessage()
                            : e.getMessage()));
            err.flush();
            return CliErrorHandler.FAILURE;
        }
        out.println(spec.qualifiedName() + ": " + describe() + "; control: "
                + (http == null
                        ? ""
                        : "http://" + controlPort.host() + ":"
                                + http.getAddress().getPort() + "/status, ")
                + (noStdin ? "signals only" : "stdin (help)"));
        out.flush();
        serving = out;
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (!noStdin) startStdinReader(out);
            stopped.await();
        } finally {
            close();
            removeHook(hook);
        }
        return 0;
    }

    private String describe() {
        WanLink l = link;
        long bps = l.bandwidthBitsPerSecond();
        InetSocketAddress a = l.address();
        return String.format(
                Locale.ROOT,
                "WAN link listening on %s:%d -> %s:%d, delay %s ms each way, bandwidth %s, buffer %s, %s",
                a.getHostString(),
                a.getPort(),
                target.host(),
                target.port(),
                number(l.delay().toNanos() / 1e6),
                bps == 0 ? "unlimited" : number(bps / 1e6) + " Mbit/s",
                bufferBytes,
                queueing.name().toLowerCase(Locale.ROOT));
    }

    /** Runs one control command; returns the status JSON. */
    private String control(String command, String argument) {
        WanLink l = link;
        switch (command) {
            case "cut" -> l.cut();
            case "heal" -> l.heal();
            case "pause" -> l.pause();
            case "resume" -> l.resume();
            case "status" -> {}
            case "delay" -> l.delay(Duration.ofNanos(Math.round(number("delay", argument) * 1e6)));
            case "bandwidth" -> l.bandwidthBitsPerSecond(bitsPerSecond(number("bandwidth", argument)));
            default -> throw new IllegalArgumentException("unknown command: " + command);
        }
        return status();
    }

    private String status() {
        WanLink l = link;
        WanLinkStats stats = l.stats();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", stats.state().name().toLowerCase(Locale.ROOT));
        m.put("listen", l.address().getHostString() + ":" + l.port());
        m.put("target", target.host() + ":" + target.port());
        m.put("delayMs", l.delay().toNanos() / 1e6);
        m.put("bandwidthMbit", l.bandwidthBitsPerSecond() / 1e6);
        m.put("bufferBytes", bufferBytes.bytes());
        m.put("queueing", queueing.name().toLowerCase(Locale.ROOT));
        m.put("openConnections", stats.openConnections());
        m.put("acceptedConnections", stats.acceptedConnections());
        m.put("refusedConnections", stats.refusedConnections());
        m.put("toTarget", stats.toTarget());
        m.put("toClient", stats.toClient());
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void startStdinReader(PrintWriter out) {
        Thread t = new Thread(
                () -> {
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                    try {
                        for (String line; (line = in.readLine()) != null; ) {
                            String[] words = line.trim().split("\\s+", 2);
                            String command = words[0].toLowerCase(Locale.ROOT);
                            if (command.isEmpty()) continue;
                            if (command.equals("quit") || command.equals("exit")) {
                                stopped.countDown();
                                return;
                            }
                            out.println(stdinCommand(command, words.length > 1 ? words[1] : null));
                            out.flush();
                        }
                    } catch (IOException e) {
                        // stdin is unusable: keep running until stopped
                    }
                },
                "kvs-wan-stdin");
        t.setDaemon(true);
        t.start();
    }

    private String stdinCommand(String command, String argument) {
        if (command.equals("help") || command.equals("?")) {
            return "commands: cut, heal, pause, resume, status, delay MS (one-way), bandwidth MBIT (0: unlimited),"
                    + " quit";
        }
        try {
            return control(command, argument);
        } catch (IllegalArgumentException e) {
            return "error: " + e.getMessage() + " (try help)";
        }
    }

    private HttpServer startHttp(Address at) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(at.host(), at.port()), 0);
        } catch (BindException e) {
            throw new UncheckedIOException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve HTTP control on " + at.host() + ":" + at.port() + ": " + e.getMessage(), e);
        }
        server.createContext("/", this::serve);
        server.start();
        return server;
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            URI uri = exchange.getRequestURI();
            String path = uri.getPath();
            String command = path.startsWith("/") ? path.substring(1) : path;
            String method = exchange.getRequestMethod();
            String wanted = switch (command) {
                case "status" -> "GET";
                case "cut", "heal", "pause", "resume", "delay", "bandwidth" -> "POST";
                default -> null;
            };
            if (wanted == null) {
                respond(exchange, 404, error("no such path: " + path));
            } else if (!wanted.equals(method)) {
                exchange.getResponseHeaders().set("Allow", wanted);
                respond(exchange, 405, error(method + " not allowed on " + path + ", use " + wanted));
            } else {
                String argument = query(uri, command.equals("delay") ? "ms" : "mbit");
                try {
                    respond(exchange, 200, control(command, argument));
                } catch (IllegalArgumentException e) {
                    respond(exchange, 400, error(e.getMessage()));
                }
            }
        }
    }

    private static void respond(HttpExchange exchange, int code, String json) throws IOException {
        byte[] body = (json + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(body);
        }
    }

    private static String error(String message) {
        try {
            return JSON.writeValueAsString(Map.of("error", message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String query(URI uri, String name) {
        String q = uri.getQuery();
        if (q == null) return null;
        for (String pair : q.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name)) return pair.substring(eq + 1);
        }
        return null;
    }

    private static double number(String what, String text) {
        if (text == null) throw new IllegalArgumentException(what + " needs a number");
        try {
            double d = Double.parseDouble(text.trim());
            if (!Double.isFinite(d)) throw new NumberFormatException();
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is not a number: " + text);
        }
    }

    private static long bitsPerSecond(double mbit) {
        if (mbit < 0 || Double.isNaN(mbit)) throw new IllegalArgumentException("bandwidth < 0: " + mbit);
        return Math.round(mbit * 1e6);
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    /** Stops everything and prints the final stats line; called by the main thread and the shutdown hook. */
    private synchronized void close() {
        stopped.countDown();
        if (closed) return;
        closed = true;
        HttpServer h = http;
        if (h != null) h.stop(0);
        WanLink l = link;
        if (l == null) return;
        l.close();
        PrintWriter out = serving;
        if (out != null) {
            out.println(spec.qualifiedName() + ": stopped; " + summary(l.stats()));
            out.flush();
        }
    }

    /** Connections, bytes and lateness each way, for the final stats line. */
    private static String summary(WanLinkStats stats) {
        return "connections " + stats.acceptedConnections() + "; to target: " + summary(stats.toTarget())
                + "; to client: " + summary(stats.toClient());
    }

    private static String summary(WanLinkStats.Direction d) {
        WanLinkStats.Lateness late = d.lateness();
        return String.format(
                Locale.ROOT,
                "%d bytes, chunks %d, lateness p50 %d us, p99 %d us, max %d us",
                d.relayedBytes(),
                late.chunks(),
                late.p50Micros(),
                late.p99Micros(),
                late.maxMicros());
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running or has run
        }
    }

    /** A host and port from the command line. */
    record Address(String host, int port) {}

    /** {@code PORT}, {@code HOST:PORT} or {@code [IPV6]:PORT}; the host defaults to loopback. */
    static final class AddressConverter implements ITypeConverter<Address> {
        @Override
        public Address convert(String value) {
            String host = "127.0.0.1";
            String port = value;
            int colon = value.lastIndexOf(':');
            if (colon >= 0) {
                host = value.substring(0, colon);
                port = value.substring(colon + 1);
                if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
                if (host.isEmpty()) throw new TypeConversionException("no host before ':' in " + value);
            }
            try {
                int p = Integer.parseInt(port);
                if (p < 0 || p > 65535) throw new NumberFormatException();
                return new Address(host, p);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("not a [HOST:]PORT with a port in [0, 65535]: " + value);
            }
        }
    }

    static final class ByteSizeConverter implements ITypeConverter<ByteSize> {
        @Override
        public ByteSize convert(String value) {
            try {
                return ByteSize.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    static final class QueueingConverter implements ITypeConverter<WanLink.Queueing> {
        @Override
        public WanLink.Queueing convert(String value) {
            try {
                return WanLink.Queueing.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("not fifo or fair: " + value);
            }
        }
    }
}
