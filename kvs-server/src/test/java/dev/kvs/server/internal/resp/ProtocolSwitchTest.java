package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code HELLO 3} and {@code HELLO 2} switch one connection's protocol where {@code HELLO}'s reply is
 * in the stream: a reply still waiting for replication keeps the protocol it was asked in; a login in
 * the same {@code HELLO} may switch; {@code CLIENT INFO} shows the protocol.
 */
class ProtocolSwitchTest {
    private static NodeConfig.Builder config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder().maxBytes(16 << 20).build());
    }

    @Test
    void aReplyWaitingForReplicationKeepsTheProtocolItWasAskedIn() {
        AckOnDemandReplication backup = new AckOnDemandReplication();
        try (RespChannel resp = new RespChannel(config().build(), backup, null, false)) {
            String pipelined = RespChannel.encode("SET", "k", "v", "GET") // nil, once the backup has it
                    + RespChannel.encode("HELLO", "3")
                    + RespChannel.encode("GET", "nope")
                    + RespChannel.encode("HELLO", "2")
                    + RespChannel.encode("GET", "nope");
            assertThat(resp.send(pipelined))
                    .as("all behind the SET waiting for its ack")
                    .isEmpty();

            backup.ackAll();
            resp.channel.runPendingTasks();

            assertThat(resp.drain())
                    .as("SET's nil in RESP2, HELLO 3's map, GET's null, HELLO 2's array, GET's nil")
                    .matches(Pattern.compile(
                            "\\$-1\r\n%7\r\n.*?proto\r\n:3\r\n.*?modules\r\n\\*0\r\n_\r\n"
                                    + "\\*14\r\n.*?proto\r\n:2\r\n.*?modules\r\n\\*0\r\n\\$-1\r\n",
                            Pattern.DOTALL));
        }
    }

    @Test
    void helloNeedsALoginUnlessItLogsIn() {
        try (RespChannel resp = new RespChannel(config().requirepass("s3cret").build())) {
            assertThat(resp.command("HELLO", "3"))
                    .isEqualTo("-NOAUTH HELLO must be called with the client already authenticated, otherwise the"
                            + " HELLO AUTH <user> <pass> option can be used to authenticate the client and select"
                            + " the RESP protocol version at the same time\r\n");
            assertThat(resp.command("GET", "nope"))
                    .as("still RESP2, not logged in")
                    .startsWith("-NOAUTH");
            assertThat(resp.command("HELLO", "3", "AUTH", "default", "s3cret")).startsWith("%7\r\n");
            assertThat(resp.command("GET", "nope")).isEqualTo("_\r\n");
            assertThat(resp.command("CLIENT", "INFO")).startsWith("=").contains(" resp=3 user=default\n");
        }
    }

    @Test
    void helloWithoutAVersionAnswersInTheCurrentProtocol() {
        try (RespChannel resp = new RespChannel(config().build())) {
            assertThat(resp.command("HELLO")).contains("$5\r\nproto\r\n:2\r\n").startsWith("*14\r\n");
            assertThat(resp.command("HELLO", "3")).contains("$5\r\nproto\r\n:3\r\n");
            assertThat(resp.command("HELLO")).contains("$5\r\nproto\r\n:3\r\n").startsWith("%7\r\n");
            assertThat(resp.command("HELLO", "3", "SETNAME", "a b"))
                    .as("a refused HELLO changes nothing")
                    .startsWith("-ERR Client names cannot contain spaces");
            assertThat(resp.command("CLIENT", "INFO")).contains(" resp=3 ");
        }
    }
}
