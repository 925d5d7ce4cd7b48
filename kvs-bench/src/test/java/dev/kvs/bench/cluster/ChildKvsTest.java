package dev.kvs.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChildKvsTest {

    /**
     * What {@code kill -9} of the parent looks like to the child: its standard input ends (the kernel
     * closes the parent's end of the pipe). No shutdown hook of the parent runs to kill it.
     */
    @Test
    void aNodeStartedExitingWithItsParentStopsWhenItsStandardInputEnds() throws Exception {
        List<String> command = JavaCommand.current()
                .withFlags(List.of("-Xmx128m"))
                .exitingWithParent()
                .kvs(List.of(
                        "server",
                        "--name",
                        "orphan",
                        "--role",
                        "backup",
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--repl-port",
                        "0",
                        "--admin-port",
                        "0",
                        "--insecure-replication"));
        Process node = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null && !line.contains("listening on"))
                seen.append(line).append('\n');
            assertThat(line).as("the node's output:\n%s", seen).isNotNull();
            Thread drain = new Thread(() -> out.lines().forEach(l -> {}));
            drain.setDaemon(true);
            drain.start();

            node.getOutputStream().close();

            assertThat(node.waitFor(30, TimeUnit.SECONDS))
                    .as("the node still runs 30 s after its standard input ended")
                    .isTrue();
        } finally {
            node.destroyForcibly();
        }
    }
}
