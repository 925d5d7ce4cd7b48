package dev.kvs.testing.zookeeper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers a test starts later, chosen below the kernel's ephemeral range
 * ({@code net.ipv4.ip_local_port_range}), where no outgoing connection and no bind to port 0 can take
 * one before the server binds it. Each port is checked free when chosen and never handed out twice.
 */
public final class QuietPorts {
    private static final int LOWEST = 10_000;
    private static final Set<Integer> GIVEN = new HashSet<>();

    private QuietPorts() {}

    /** The first port of the ephemeral range, read from the kernel (32768 where it cannot be read). */
    public static int ephemeralLow() {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            if (Files.isReadable(range)) {
                // readString sees a size of 0 for a /proc file and can return a partial read
                try (BufferedReader reader = Files.newBufferedReader(range)) {
                    return Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through to Linux's default
        }
        return 32_768;
    }

    public static synchronized int free() {
        int high = ephemeralLow();
        if (high <= LOWEST + 100) {
            throw new IllegalStateException("no room below the ephemeral range (it starts at " + high + ")");
        }
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, high);
            if (GIVEN.contains(port)) continue;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(port));
                GIVEN.add(port);
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new UncheckedIOException(new IOException("no free port in [" + LOWEST + ", " + high + ")"));
    }
}
