package dev.kvs.core.internal;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM for a test that kills a store's process: this JVM's Chronicle flags. */
final class ChildJvm {
    private ChildJvm() {}

    /** java with the flags Chronicle Map needs, {@code -Xmx<heap>}, the test class path, {@code main} and {@code args}. */
    static List<String> command(String heap, Class<?> main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-")
                    || arg.startsWith("--enable-native-access")
                    || arg.startsWith("--sun-misc-unsafe")
                    || arg.startsWith("-Dchronicle")) {
                command.add(arg);
            }
        }
        command.add("-Xmx" + heap);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return command;
    }
}
