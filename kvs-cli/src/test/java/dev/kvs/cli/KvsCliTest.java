package dev.kvs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.cli.ServerCommand;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class KvsCliTest {
    @TempDir
    Path dir;

    private final AtomicReference<NodeConfig> started = new AtomicReference<>();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void helpListsTheCommands() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .contains("Usage: kvs [-hV] COMMAND")
                .contains("server")
                .contains("bench")
                .contains("help")
                .contains("KVS_JAVA_OPTS");
    }

    @Test
    void serverHelpExplainsEveryOption() {
        assertThat(run("server", "--help")).isZero();
        assertThat(out.toString())
                .contains("Usage: kvs server")
                .contains("--config=FILE", "--name=NAME", "--cluster=NAME", "--role=primary|backup")
                .contains("--bind=ADDRESS", "--port=PORT", "--repl-port=PORT", "--admin-port=PORT")
                .contains("--peer=HOST:PORT", "--mode=MODE", "--data-dir=DIR", "--requirepass=PASSWORD")
                .contains("--max-bulk-bytes=SIZE", "--max-entries=COUNT", "--max-bytes=SIZE");
        assertThat(started.get()).isNull();
    }

    @Test
    void helpCommandShowsServerHelp() {
        assertThat(run("help", "server")).isZero();
        assertThat(out.toString()).contains("Usage: kvs server").contains("--repl-port");
    }

    @Test
    void versionNamesKvsAndTheJvm() {
        assertThat(run("--version")).isZero();
        assertThat(out.toString()).startsWith("kvs ").contains("JVM: " + System.getProperty("java.version"));
    }

    @Test
    void noCommandIsAUsageError() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString())
                .isEqualTo("kvs: missing COMMAND (demo, server, cluster, wan, drill, bench, help); see 'kvs --help'"
                        + System.lineSeparator());
    }

    @Test
    void unknownCommandIsAUsageError() {
        assertThat(run("serve")).isEqualTo(2);
        assertThat(err.toString()).startsWith("kvs: Unmatched argument").contains("serve");
        assertThat(err.toString().lines()).hasSize(1);
    }

    @Test
    void serverStartsWithFlagsOverridingTheFile() throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, "name: dc1\nport: 7000\nadminPort: 7001\n");

        assertThat(run("server", "--config", file.toString(), "--port", "0")).isZero();

        assertThat(started.get().name()).isEqualTo("dc1");
        assertThat(started.get().port()).isZero();
        assertThat(started.get().adminPort()).isEqualTo(7001);
        assertThat(out.toString()).startsWith("kvs node 'dc1' ");
    }

    @Test
    void serverBadFlagExitsWithCode2() {
        assertThat(run("server", "--mode", "fast")).isEqualTo(2);
        assertThat(err.toString())
                .isEqualTo("kvs server: Invalid value for option '--mode': mode is not"
                        + " id-first|id-first-after-reply|sync|async: fast; see 'kvs server --help'"
                        + System.lineSeparator());
    }

    /** Runs {@code kvs ARGS} in this JVM, the server stubbed, and returns its exit code. */
    private int run(String... args) {
        CommandLine cl = KvsCli.commandLine(new StubFactory());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    /** Creates the server command with a stub node that stops at once. */
    private final class StubFactory implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            if (cls == ServerCommand.class) {
                return cls.cast(new ServerCommand(config -> {
                    started.set(config);
                    return new StoppedNode();
                }));
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }

    private static final class StoppedNode implements ServerCommand.RunningNode {
        @Override
        public int port() {
            return 1;
        }

        @Override
        public int replPort() {
            return 2;
        }

        @Override
        public int adminPort() {
            return 3;
        }

        @Override
        public void awaitTermination() {}

        @Override
        public void close() {}
    }
}
