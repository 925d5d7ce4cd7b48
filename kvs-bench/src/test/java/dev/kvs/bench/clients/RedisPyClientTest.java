package dev.kvs.bench.clients;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.KvsNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * redis-py with its defaults (issue #37) against a kvs node: {@code redis_py_client.py} (PING, strings,
 * {@code pipeline()} with and without MULTI, {@code Lock} acquire/extend/release, whose release and extend
 * are Lua scripts sent by EVALSHA, and a command kvs lacks failing once). Debian's {@code python3-redis}
 * 4.3.4 (RESP2) is the one installable here; {@code .ci/run} installs it. Skipped, saying so, where {@code
 * /usr/bin/python3} has no {@code redis} module.
 */
class RedisPyClientTest {
    /** Debian's interpreter: the one {@code python3-redis} installs into. */
    private static final String PYTHON = "/usr/bin/python3";

    private static boolean redisPyInstalled() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import redis")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void pingStringsPipelinesAndLockWorkWithItsDefaults() throws Exception {
        // a requirement, not a skip: .ci/run installs it
        assertThat(redisPyInstalled())
                .as("redis-py importable by %s (apt-get install python3-redis)", PYTHON)
                .isTrue();
        Path script = script();
        try (KvsNode kvs = KvsNodes.lone()) {
            Process p = new ProcessBuilder(
                            List.of(PYTHON, script.toString(), "127.0.0.1", Integer.toString(kvs.port())))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS))
                    .as("redis-py ended:%n%s", out)
                    .isTrue();
            System.out.print(out);
            assertThat(p.exitValue()).as("redis-py's exit status:%n%s", out).isZero();
            assertThat(out).contains("ok lock released", "ok still serving");
        }
    }

    private static Path script() throws URISyntaxException {
        return Path.of(RedisPyClientTest.class
                .getResource("/clients/redis_py_client.py")
                .toURI());
    }
}
