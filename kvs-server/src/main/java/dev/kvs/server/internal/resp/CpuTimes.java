package dev.kvs.server.internal.resp;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The node process's CPU time for {@code INFO cpu}, in seconds: user and system time of the whole
 * process (every thread, the JVM's GC and JIT threads included) and of its waited-for children (none:
 * a node forks nothing). On Linux from {@code /proc/self/stat} ({@code utime}, {@code stime}, {@code
 * cutime}, {@code cstime}, in clock ticks of 1/100 s, Linux's {@code USER_HZ}); elsewhere the JVM's
 * {@code OperatingSystemMXBean.getProcessCpuTime()}, reported as user time (it does not split the two).
 *
 * @param user user-mode seconds
 * @param sys kernel-mode seconds
 * @param childrenUser user-mode seconds of waited-for children
 * @param childrenSys kernel-mode seconds of waited-for children
 */
record CpuTimes(double user, double sys, double childrenUser, double childrenSys) {
    private static final Path PROC_STAT = Path.of("/proc/self/stat");
    private static final double USER_HZ = 100;

    /** The process's times now. */
    static CpuTimes now() {
        try {
            return parseProcStat(Files.readString(PROC_STAT, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return fromMxBean();
        }
    }

    /** Parses a {@code /proc/<pid>/stat} line (the command name, in parentheses, may hold spaces). */
    static CpuTimes parseProcStat(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
        // after "pid (comm) ": state is field 3, so field n is f[n - 3]; utime 14, stime 15, cutime 16, cstime 17
        return new CpuTimes(
                Long.parseLong(f[11]) / USER_HZ,
                Long.parseLong(f[12]) / USER_HZ,
                Long.parseLong(f[13]) / USER_HZ,
                Long.parseLong(f[14]) / USER_HZ);
    }

    private static CpuTimes fromMxBean() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long nanos = os.getProcessCpuTime();
            if (nanos >= 0) return new CpuTimes(nanos / 1e9, 0, 0, 0);
        }
        return new CpuTimes(0, 0, 0, 0);
    }
}
