package dev.kvs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EndpointTest {
    @Test
    void parsesHostAndPort() {
        assertThat(Endpoint.parse("db-1.example:6380")).isEqualTo(new Endpoint("db-1.example", 6380));
        assertThat(Endpoint.parse("[::1]:6380")).isEqualTo(new Endpoint("::1", 6380));
        assertThat(Endpoint.parse("[::1]:6380").toString()).isEqualTo("[::1]:6380");
        assertThat(Endpoint.parse("10.0.0.1:1").toString()).isEqualTo("10.0.0.1:1");
    }
}
