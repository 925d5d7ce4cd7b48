package dev.kvs.bench.cluster;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM running {@code kvs}: the same {@code java} binary, class path and
 * JVM flags as this process (so the flags Chronicle Map needs, and those of newer JDKs, carry over),
 * minus debugging and profiling agents.
 */
public final class JavaCommand {
    private final String java;
    private final List<String> flags;
    private final String classPath;

    private JavaCommand(String java, List<String> flags, String classPath) {
        this.java = java;
        this.flags = List.copyOf(flags);
        this.classPath = classPath;
    }

    /** The command of this JVM. */
    public static JavaCommand current() {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> flags = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!isAgent(a)) flags.add(a);
        }
        return new JavaCommand(java, flags, System.getProperty("java.class.path"));
    }

    /** This command with {@code extra} JVM flags after its own (so {@code -Xmx512m} there wins). */
    public JavaCommand withFlags(List<String> extra) {
        List<String> all = new ArrayList<>(flags);
        all.addAll(extra);
        return new JavaCommand(java, all, classPath);
    }

    /**
     * This command with children that exit when this process does, however it ends ({@link
     * ChildKvs#EXIT_WITH_PARENT}): their standard input must be a pipe from this process, as {@link
     * NodeProcess#start} makes it.
     */
    public JavaCommand exitingWithParent() {
        return withFlags(List.of("-D" + ChildKvs.EXIT_WITH_PARENT + "=true"));
    }

    private static boolean isAgent(String arg) {
        return arg.startsWith("-agentlib:")
                || arg.startsWith("-agentpath:")
                || arg.startsWith("-javaagent:")
                || arg.startsWith("-Xrunjdwp")
                || arg.startsWith("-Xdebug")
                || arg.startsWith("-XX:StartFlightRecording")
                || arg.startsWith("-XX:+StartFlightRecording");
    }

    /**
     * {@code java FLAGS -cp CLASSPATH dev.kvs.bench.cluster.ChildKvs ARGS}, where {@code ARGS} start
     * with {@code server} or {@code wan}.
     */
    public List<String> kvs(List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(flags);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(ChildKvs.class.getName());
        cmd.addAll(args);
        return cmd;
    }
}
