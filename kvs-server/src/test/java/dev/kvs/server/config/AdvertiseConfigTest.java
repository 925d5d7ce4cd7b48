package dev.kvs.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code advertise}: the client address a primary tells its backup. */
class AdvertiseConfigTest {
    @Test
    void readFromYamlAndAdvertisedAsIs() {
        NodeConfig c = NodeConfigLoader.parse("bind: 0.0.0.0\nadvertise: kvs-a.example:6380\n", "test");
        assertThat(c.advertise()).contains("kvs-a.example:6380");
        assertThat(c.advertisedClientAddress(16380)).isEqualTo("kvs-a.example:6380");
    }

    @Test
    void withoutItTheBindAddressAndTheBoundPortAreAdvertised() {
        NodeConfig c = NodeConfigLoader.parse("bind: 10.0.0.7\n", "test");
        assertThat(c.advertise()).isEqualTo(Optional.empty());
        assertThat(c.advertisedClientAddress(6381)).isEqualTo("10.0.0.7:6381");
        assertThat(c.advertisedClientAddress(0)).as("not bound yet").isNull();
        assertThat(NodeConfig.builder().bind("::1").build().advertisedClientAddress(6380))
                .isEqualTo("[::1]:6380");
    }

    @Test
    void aBadValueIsRefusedNamingTheField() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("advertise: no-port\n", "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("advertise is not HOST:PORT: no-port");
        assertThatThrownBy(() -> NodeConfigLoader.parse("advertise: host:0\n", "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("advertise port is not in 1..65535: host:0");
    }
}
