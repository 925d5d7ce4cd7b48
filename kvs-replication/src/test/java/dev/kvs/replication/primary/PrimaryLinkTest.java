package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class PrimaryLinkTest {
    @Test
    void peerNameIsHostAndPortWhetherOrNotTheAddressWasResolved() {
        assertThat(PrimaryLink.peerName(InetSocketAddress.createUnresolved("127.0.0.1", 47391)))
                .isEqualTo("127.0.0.1:47391");
        assertThat(PrimaryLink.peerName(new InetSocketAddress("127.0.0.1", 7380)))
                .isEqualTo("127.0.0.1:7380");
        assertThat(PrimaryLink.peerName(InetSocketAddress.createUnresolved("dc-backup.example", 7380)))
                .isEqualTo("dc-backup.example:7380");
        assertThat(PrimaryLink.peerName(InetSocketAddress.createUnresolved("::1", 7380)))
                .isEqualTo("[::1]:7380");
    }
}
