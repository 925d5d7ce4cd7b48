package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.server.KvsNode;
import dev.kvs.server.config.AdminConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class AuthTest {
    private static KvsNode node;

    @BeforeAll
    static void start() {
        node = KvsNode.start(Nodes.primary("auth-test")
                .requirepass("s3cret")
                .admin(AdminConfig.defaults().withTrustLoopback(true))
                .build());
    }

    @AfterAll
    static void stop() {
        if (node != null) node.close();
    }

    @Test
    void rightPasswordIsSentOnConnect() {
        try (KvsClient client = KvsClient.builder()
                .endpoints(Nodes.endpoint(node))
                .password("s3cret")
                .build()) {
            client.put("k", "v");
            assertThat(client.get("k")).isEqualTo("v");
        }
    }

    @Test
    void defaultUserWithPasswordIsAccepted() {
        try (KvsClient client = KvsClient.builder()
                .endpoints(Nodes.endpoint(node))
                .credentials("default", "s3cret")
                .build()) {
            assertThat(client.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void wrongPasswordFailsWithAuthenticationException() {
        try (KvsClient client = KvsClient.builder()
                .endpoints(Nodes.endpoint(node))
                .password("nope")
                .build()) {
            assertThatThrownBy(() -> client.get("k"))
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageStartingWith("WRONGPASS");
            assertThatThrownBy(() -> client.put("k", "v")).isInstanceOf(AuthenticationException.class);
        }
    }

    @Test
    void noPasswordFailsWithAuthenticationException() {
        try (KvsClient client =
                KvsClient.builder().endpoints(Nodes.endpoint(node)).build()) {
            assertThatThrownBy(() -> client.get("k"))
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageStartingWith("NOAUTH");
        }
    }
}
