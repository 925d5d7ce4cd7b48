package dev.kvs.bench.latency;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What Linux's {@code /proc} says about a process: resident memory, threads, open file descriptors.
 * Each figure is -1 where {@code /proc} does not have it (another OS, or the process is gone).
 *
 * @param rssBytes resident set size ({@code VmRSS})
 * @param threads threads ({@code Threads})
 * @param fds open file descriptors (entries of {@code /proc/PID/fd}): sockets, files, pipes, epoll
 */
record ProcStats(long rssBytes, long threads, long fds) {
    static final ProcStats UNKNOWN = new ProcStats(-1, -1, -1);

    /** The figures of process {@code pid} now. */
    static ProcStats of(long pid) {
        Path dir = Path.of("/proc", Long.toString(pid));
        long rss = -1;
        long threads = -1;
        try {
            for (String line : Files.readAllLines(dir.resolve("status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmRSS:")) rss = kib(line) * 1024;
                else if (line.startsWith("Threads:")) threads = number(line);
            }
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
        long fds = 0;
        try (DirectoryStream<Path> d = Files.newDirectoryStream(dir.resolve("fd"))) {
            for (Path ignored : d) fds++;
        } catch (IOException | RuntimeException e) {
            fds = -1;
        }
        return new ProcStats(rss, threads, fds);
    }

    /** {@code VmRSS:    123456 kB} to 123456. */
    static long kib(String line) {
        String v = line.substring(line.indexOf(':') + 1).trim();
        int space = v.indexOf(' ');
        return Long.parseLong(space < 0 ? v : v.substring(0, space));
    }

    private static long number(String line) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
    }
}
