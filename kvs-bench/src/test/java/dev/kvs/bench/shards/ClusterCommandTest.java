package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.cli.CliErrorHandler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvs cluster}'s refusals, which come before anything is started. */
class ClusterCommandTest {

    private static String[] run(int expectedCode, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = CliErrorHandler.install(new CommandLine(new ClusterCommand()))
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        assertThat(code).as("exit code; stderr: %s", err).isEqualTo(expectedCode);
        return new String[] {out.toString(), err.toString()};
    }

    @Test
    void badOptionsAreRefusedQuotingTheBound() {
        assertThat(run(CliErrorHandler.USAGE, "--shards", "0")[1]).contains("--shards is not in 1..16: 0");
        assertThat(run(CliErrorHandler.USAGE, "--shards", "3", "--port", "65530")[1])
                .contains("--port is not in 1024..65514 (3 shards use 22 ports from it): 65530");
        assertThat(run(CliErrorHandler.USAGE, "--session-timeout-ms", "500")[1])
                .contains("session timeout is not in 1000..10000 ms");
        assertThat(run(CliErrorHandler.USAGE, "--node-heap", "lots")[1])
                .contains("node heap is not a -Xmx size like 256m: lots");
        assertThat(run(CliErrorHandler.USAGE, "--cluster", "a/b")[1])
                .contains("cluster name must be 1-64 of [A-Za-z0-9_.-]: a/b");
    }

    @Test
    void aDirectoryInUseIsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("left-over.log"), "x");
        LocalPorts ports = LocalPorts.freeBlock(1);
        String[] r =
                run(CliErrorHandler.FAILURE, "--shards", "1", "--port", "" + ports.base(), "--dir", dir.toString());
        assertThat(r[1]).contains("--dir " + dir + " is not empty");
        assertThat(r[0]).doesNotContain("ready");
    }
}
