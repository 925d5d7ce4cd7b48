package dev.kvs.bench.drill;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The network of {@code kvs drill --netns}: two network namespaces joined by a veth pair, as planned
 * by {@link NetnsPlan}, built for each mode and removed after it. One per drill; {@link #close()} (also
 * called by the drill's shutdown hook) removes everything and refuses further builds. Removal kills
 * every process left in the namespaces, never throws, and reports what it could not remove.
 * Thread-safe: a build and a removal never interleave.
 */
final class NetnsNetwork implements AutoCloseable {
    /** How long one {@code ip} or {@code tc} command may take. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    /** How the WAN's delay and bandwidth are emulated. */
    enum Wan {
        /** {@code tc netem} on both ends of the inter-DC pair. */
        NETEM("netem"),
        /** A {@code kvs wan} process in the backup's namespace (the kernel has no netem). */
        WAN_LINK("wanlink");

        private final String label;

        Wan(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    private final NetnsPlan plan;
    private final PrintWriter err;
    private boolean closed;
    private Wan wan;

    private NetnsNetwork(NetnsPlan plan, PrintWriter err) {
        this.plan = plan;
        this.err = err;
    }

    /**
     * The network of this process, after removing the leftovers of drills that are no longer running
     * (e.g. killed with {@code kill -9}). Builds nothing yet.
     */
    static NetnsNetwork open(PrintWriter err) {
        String ip = which("ip").orElseThrow(() -> new IllegalStateException("ip (iproute2) not found"));
        removeLeftovers(ip, err);
        return new NetnsNetwork(new NetnsPlan(ProcessHandle.current().pid(), ip), err);
    }

    NetnsPlan plan() {
        return plan;
    }

    /** How the last build emulates the WAN, or null before the first. */
    synchronized Wan wan() {
        return wan;
    }

    /**
     * Builds both namespaces and the veth pairs and tries {@code tc netem} for the delay; returns what
     * emulates the WAN. With {@link Wan#WAN_LINK} the caller starts the {@code kvs wan} process.
     *
     * @throws IllegalStateException quoting the failed command (after removing what was built), or if
     *     the network is closed
     */
    synchronized Wan build(Duration delay, long bandwidthBitsPerSecond) {
        if (closed) throw new IllegalStateException("the drill is stopping: not building " + plan.mainNamespace());
        for (List<String> c : plan.setUpCommands()) {
            Result r = run(c);
            if (!r.ok()) {
                tearDown();
                throw new IllegalStateException(
                        "cannot set up the network: '" + String.join(" ", c) + "' failed: " + r.output());
            }
        }
        wan = netem(delay, bandwidthBitsPerSecond);
        return wan;
    }

    private Wan netem(Duration delay, long bandwidthBitsPerSecond) {
        Optional<String> tc = which("tc");
        if (tc.isEmpty()) {
            err.println("kvs drill: tc not found: emulating the WAN with kvs wan in dc-backup's namespace");
            err.flush();
            return Wan.WAN_LINK;
        }
        Result main = run(plan.netemCommand(tc.get(), true, delay, bandwidthBitsPerSecond));
        Result backup = main.ok() ? run(plan.netemCommand(tc.get(), false, delay, bandwidthBitsPerSecond)) : main;
        if (main.ok() && backup.ok()) return Wan.NETEM;
        if (main.ok()) {
            run(List.of(tc.get(), "-n", plan.mainNamespace(), "qdisc", "del", "dev", plan.mainLink(), "root"));
        }
        if (wan == null) {
            err.println("kvs drill: no tc netem here (" + backup.output().strip()
                    + "): emulating the WAN with kvs wan in dc-backup's namespace");
            err.flush();
        }
        return Wan.WAN_LINK;
    }

    /**
     * Cuts the link between the DCs: the main DC's end of the inter-DC pair goes down.
     *
     * @throws IllegalStateException quoting {@code ip} if it fails
     */
    void cut() {
        Result r = run(plan.cutCommand());
        if (!r.ok()) {
            throw new IllegalStateException(
                    "cannot cut the link: '" + String.join(" ", plan.cutCommand()) + "' failed: " + r.output());
        }
    }

    /** Removes the network built for a mode: kills what runs in it, deletes namespaces and veths. */
    synchronized void tearDown() {
        remove(plan, err);
    }

    /** Removes the network and refuses to build it again; idempotent, never throws. */
    @Override
    public synchronized void close() {
        closed = true;
        tearDown();
    }

    /**
     * Removes {@code plan}'s namespaces and veths, killing every process in the namespaces first (a
     * namespace lives on while a process is in it). Reports on {@code err} what it could not remove.
     */
    static void remove(NetnsPlan plan, PrintWriter err) {
        List<String> namespaces = namespaces(plan.ip());
        for (String ns : List.of(plan.mainNamespace(), plan.backupNamespace())) {
            if (!namespaces.contains(ns)) continue;
            Result pids = run(List.of(plan.ip(), "netns", "pids", ns));
            List<ProcessHandle> killed = new ArrayList<>();
            for (String line : pids.output().lines().toList()) {
                try {
                    ProcessHandle.of(Long.parseLong(line.strip())).ifPresent(p -> {
                        p.descendants().forEach(ProcessHandle::destroyForcibly);
                        p.destroyForcibly();
                        killed.add(p);
                    });
                } catch (NumberFormatException e) {
                    // not a pid: an error message, reported below if the namespace stays
                }
            }
            for (ProcessHandle p : killed) {
                if (!awaitExit(p, Duration.ofSeconds(5))) {
                    report(err, "process " + p.pid() + " in " + ns + " did not exit after kill -9");
                }
            }
        }
        List<String> links = links(plan.ip());
        for (String veth : plan.veths()) {
            if (!links.contains(veth)) continue;
            Result r = run(List.of(plan.ip(), "link", "del", veth));
            if (!r.ok() && links(plan.ip()).contains(veth)) {
                report(err, "cannot delete veth " + veth + ": " + r.output().strip());
            }
        }
        for (String ns : List.of(plan.mainNamespace(), plan.backupNamespace())) {
            if (!namespaces.contains(ns)) continue;
            Result r = run(List.of(plan.ip(), "netns", "del", ns));
            if (!r.ok())
                report(
                        err,
                        "cannot delete network namespace " + ns + ": "
                                + r.output().strip());
        }
    }

    private static boolean awaitExit(ProcessHandle p, Duration timeout) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    p.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return true;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    return !p.isAlive();
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Removes the namespaces and veths of drills whose process is gone. */
    static void removeLeftovers(String ip, PrintWriter err) {
        TreeSet<Long> owners = new TreeSet<>();
        for (String name : namespaces(ip)) NetnsPlan.owner(name).ifPresent(owners::add);
        for (String name : links(ip)) NetnsPlan.owner(name).ifPresent(owners::add);
        for (long pid : owners) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) continue;
            err.println("kvs drill: removing the network namespaces and veths left by drill " + pid);
            err.flush();
            remove(new NetnsPlan(pid, ip), err);
        }
    }

    private static void report(PrintWriter err, String message) {
        err.println("kvs drill: cleanup: " + message);
        err.flush();
    }

    private static List<String> namespaces(String ip) {
        // "kvsdrill-1-main (id: 3)" or just the name
        return run(List.of(ip, "netns", "list"))
                .output()
                .lines()
                .map(l -> l.strip().split("\\s+")[0])
                .filter(n -> !n.isEmpty())
                .toList();
    }

    /** Veth names in the root namespace, without the {@code @peer} suffix. */
    private static List<String> links(String ip) {
        List<String> names = new ArrayList<>();
        for (String line : run(List.of(ip, "-o", "link", "show", "type", "veth"))
                .output()
                .lines()
                .toList()) {
            // "12: khNNNm@if11: <BROADCAST,..."
            String[] parts = line.split(":\\s+", 3);
            if (parts.length < 2) continue;
            String name = parts[1];
            int at = name.indexOf('@');
            names.add(at >= 0 ? name.substring(0, at) : name);
        }
        return names;
    }

    /**
     * Whether this process runs as root, from the effective uid in {@code /proc/self/status} (or the
     * user name where there is no {@code /proc}).
     */
    static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring(4).strip().split("\\s+");
                    return ids.length > 1 && ids[1].equals("0");
                }
            }
        } catch (IOException e) {
            // not Linux, or no /proc
        }
        return "root".equals(System.getProperty("user.name"));
    }

    /** The executable {@code name} on the PATH or in /usr/sbin or /sbin (not always on the PATH). */
    static Optional<String> which(String name) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) dirs.addAll(List.of(path.split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (String d : dirs) {
            if (d.isEmpty()) continue;
            Path p = Path.of(d, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p.toString());
        }
        return Optional.empty();
    }

    /**
     * Why {@code --netns} cannot run, or null if it can.
     *
     * @param root whether this process runs as root
     * @param ip the {@code ip} binary, if found
     */
    static String precondition(boolean root, Optional<String> ip) {
        if (!root) {
            return "--netns needs root: it creates network namespaces and veth pairs (run it as root, e.g."
                    + " with sudo)";
        }
        if (ip.isEmpty()) {
            return "--netns needs the ip command (iproute2), found neither on the PATH nor in /usr/sbin or"
                    + " /sbin (Debian/Ubuntu: apt-get install iproute2)";
        }
        return null;
    }

    /** What one command printed (stdout and stderr) and whether it exited 0. */
    record Result(boolean ok, String output) {}

    /**
     * Runs {@code command}, never throws: a command that cannot start or hangs is a failure. Ignores
     * interrupts until it is done (cleanup must finish) and then restores the flag.
     */
    static Result run(List<String> command) {
        boolean interrupted = Thread.interrupted();
        Path output = null;
        Process p = null;
        try {
            output = Files.createTempFile("kvs-drill-ip-", ".out");
            p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            long deadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
            while (true) {
                try {
                    if (p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) break;
                    p.destroyForcibly();
                    return new Result(false, "timed out after " + COMMAND_TIMEOUT.toSeconds() + " s");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return new Result(p.exitValue() == 0, Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            if (p != null) p.destroyForcibly();
            return new Result(false, e.getMessage());
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) {
                    // a temporary file
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
