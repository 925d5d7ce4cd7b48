package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.config.NodeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Before AUTH (only when requirepass is set) a request may have at most 10 arguments and bulk strings
 * of at most 16 KiB, as in Redis: anything bigger is a protocol error and closes the connection.
 */
class PreAuthLimitsTest {
    private RespChannel resp =
            new RespChannel(NodeConfig.builder().requirepass("s3cret").build());

    @AfterEach
    void close() {
        resp.close();
    }

    @Test
    void moreThanTenArgumentsBeforeAuthCloses() {
        String[] eleven = new String[11];
        eleven[0] = "EXISTS";
        for (int i = 1; i < eleven.length; i++) eleven[i] = "k" + i;

        assertThat(resp.command(eleven)).isEqualTo("-ERR Protocol error: unauthenticated multibulk length\r\n");
        resp.channel.runPendingTasks();
        assertThat(resp.channel.isActive()).isFalse();
    }

    @Test
    void aBulkLongerThan16KiBBeforeAuthCloses() {
        String reply = resp.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (16 * 1024 + 1) + "\r\n");

        assertThat(reply).isEqualTo("-ERR Protocol error: unauthenticated bulk length\r\n");
        resp.channel.runPendingTasks();
        assertThat(resp.channel.isActive()).isFalse();
    }

    @Test
    void requestsWithinTheLimitsGetNoauthAndTheConnectionStays() {
        String[] ten = new String[10];
        ten[0] = "EXISTS";
        for (int i = 1; i < ten.length; i++) ten[i] = "k" + i;

        assertThat(resp.command(ten)).startsWith("-NOAUTH");
        assertThat(resp.command("SET", "k", "v".repeat(16 * 1024))).startsWith("-NOAUTH");
        assertThat(resp.channel.isActive()).isTrue();
    }

    @Test
    void afterAuthTheConfiguredLimitsApplyEvenInTheSamePacket() {
        String big = "v".repeat(100_000);
        String[] many = new String[41];
        many[0] = "MSET";
        for (int i = 1; i < many.length; i += 2) {
            many[i] = "k" + i;
            many[i + 1] = "v";
        }

        String replies = resp.send(RespChannel.encode("AUTH", "s3cret")
                + RespChannel.encode("SET", "big", big)
                + RespChannel.encode(many));

        assertThat(replies).isEqualTo("+OK\r\n+OK\r\n+OK\r\n");
        assertThat(resp.command("STRLEN", "big")).isEqualTo(":100000\r\n");
    }

    @Test
    void withoutRequirepassThereIsNoPreAuthLimit() {
        resp.close();
        resp = RespChannel.withDefaults();

        assertThat(resp.command("SET", "big", "v".repeat(100_000))).isEqualTo("+OK\r\n");
    }
}
