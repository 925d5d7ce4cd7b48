package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.auth.LinkSecurity;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The client address a primary puts in its key channel's {@code Hello}. */
class AdvertisedClientAddressTest {
    private static PrimaryLink link(Supplier<String> address) {
        return new PrimaryLink(
                ReplicatorConfig.defaults(),
                null,
                null,
                null,
                null,
                "c",
                "n",
                InetSocketAddress.createUnresolved("backup", 7380),
                e -> {},
                () -> {},
                LinkSecurity.NONE,
                address,
                WriteStages.OFF,
                "");
    }

    private static InetSocketAddress local(String ip) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), 40000);
    }

    @Test
    void aConcreteAddressIsSentAsConfigured() throws Exception {
        assertThat(link(() -> "10.1.2.3:6380").advertisedClientAddress(local("10.9.9.9")))
                .isEqualTo("10.1.2.3:6380");
        assertThat(link(() -> "kvs-main.example:6390").advertisedClientAddress(local("10.9.9.9")))
                .isEqualTo("kvs-main.example:6390");
    }

    @Test
    void aWildcardHostIsReplacedByTheAddressTheConnectionLeavesFrom() throws Exception {
        assertThat(link(() -> "0.0.0.0:6380").advertisedClientAddress(local("10.9.9.9")))
                .isEqualTo("10.9.9.9:6380");
        assertThat(link(() -> "[::]:6380").advertisedClientAddress(local("fd00::5")))
                .isEqualTo("[fd00:0:0:0:0:0:0:5]:6380");
        assertThat(link(() -> "0.0.0.0:6380").advertisedClientAddress(local("0.0.0.0")))
                .as("a wildcard local address says nothing")
                .isEmpty();
    }

    @Test
    void nothingOrNotYetKnownPassThrough() throws Exception {
        assertThat(link(() -> "").advertisedClientAddress(local("10.9.9.9"))).isEmpty();
        assertThat(link(() -> null).advertisedClientAddress(local("10.9.9.9"))).isNull();
    }
}
