package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which keys of a pipelined read the store is asked to bring into cache before the commands run. */
class PrefetchKeysTest {
    private static RespCommand command(String... words) {
        return new RespCommand(
                Arrays.stream(words)
                        .map(w -> w.getBytes(StandardCharsets.UTF_8))
                        .toArray(byte[][]::new),
                null);
    }

    private static List<String> keys(Object... commands) {
        RespCommands batch = new RespCommands();
        batch.addAll(Arrays.asList(commands));
        byte[][] keys = new byte[batch.size()][];
        try (RespChannel resp = RespChannel.withDefaults()) {
            int n = RespHandler.keysToPrefetch(batch, resp.server.table(), keys);
            return Arrays.stream(keys, 0, n)
                    .map(k -> new String(k, StandardCharsets.UTF_8))
                    .toList();
        }
    }

    @Test
    void theFirstKeyOfEachDataCommandOnceARun() {
        assertThat(keys(
                        command("SET", "a", "1"),
                        command("set", "a", "2"),
                        command("GET", "b"),
                        command("hset", "h", "f", "v"),
                        command("MGET", "m1", "m2"),
                        command("get", "a")))
                .containsExactly("a", "b", "h", "m1", "a");
    }

    @Test
    void commandsWithoutADataKeyAndErrorsAddNothing() {
        assertThat(keys(
                        command("PING", "hello"),
                        command("CONFIG", "GET", "maxmemory"),
                        command("CLIENT", "SETNAME", "x"),
                        command("NOSUCH", "k"),
                        command("GET"),
                        RespCommand.invalid("ERR Protocol error"),
                        command("EVAL", "return 1", "0"),
                        command("GET", "k")))
                .containsExactly("k");
    }
}
