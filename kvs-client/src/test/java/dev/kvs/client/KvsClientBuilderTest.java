package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KvsClientBuilderTest {

    @Test
    void endpointsAreRequired() {
        assertThatThrownBy(() -> KvsClient.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("endpoints are missing");
        assertThatThrownBy(() -> KvsClient.builder().endpoints())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("endpoints is empty: []");
    }

    @Test
    void endpointThatIsNotHostPortIsQuoted() {
        for (String bad : new String[] {"localhost", ":6380", "host:", "host:port", "::1:6380", "a b:1", "h:6380x"}) {
            assertThatThrownBy(() -> KvsClient.builder().endpoints("127.0.0.1:6380", bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("endpoint is not HOST:PORT: " + bad);
        }
        assertThatThrownBy(() -> KvsClient.builder().endpoints("h:0"))
                .hasMessage("endpoint port is not in 1..65535: h:0");
        assertThatThrownBy(() -> KvsClient.builder().endpoints("h:65536"))
                .hasMessage("endpoint port is not in 1..65535: h:65536");
        assertThatThrownBy(() -> KvsClient.builder().endpoints((String) null))
                .hasMessage("endpoint is not HOST:PORT: null");
    }

    @Test
    void endpointListedTwiceIsRejected() {
        assertThatThrownBy(() -> KvsClient.builder().endpoints("a:1", "b:2", "a:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("endpoint is listed twice: a:1");
    }

    @Test
    void bracketedIpv6EndpointIsAccepted() {
        try (KvsClient client =
                KvsClient.builder().endpoints("[::1]:6380", "db.example:6381").build()) {
            assertThat(client.activeEndpoint()).isEqualTo("[::1]:6380");
        }
    }

    @Test
    void durationsMustBePositive() {
        assertThatThrownBy(() -> KvsClient.builder().connectTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connectTimeout <= 0: PT0S");
        assertThatThrownBy(() -> KvsClient.builder().requestTimeout(Duration.ofMillis(-5)))
                .hasMessage("requestTimeout <= 0: PT-0.005S");
        assertThatThrownBy(() -> KvsClient.builder().endpointRecheckInterval(Duration.ZERO))
                .hasMessage("endpointRecheckInterval <= 0: PT0S");
        assertThatThrownBy(() -> KvsClient.builder().unfinishedRetryDeadline(Duration.ofSeconds(-1)))
                .hasMessage("unfinishedRetryDeadline < 0: PT-1S");
        assertThatThrownBy(() -> KvsClient.builder().connectTimeout(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("connectTimeout");
        KvsClient.builder().unfinishedRetryDeadline(Duration.ZERO); // zero: do not retry
    }

    @Test
    void countsAreRangeChecked() {
        assertThatThrownBy(() -> KvsClient.builder().connectionsPerEndpoint(0))
                .hasMessage("connectionsPerEndpoint is not in 1..256: 0");
        assertThatThrownBy(() -> KvsClient.builder().maxPending(0)).hasMessage("maxPending < 1: 0");
        assertThatThrownBy(() -> KvsClient.builder().eventLoopThreads(-1))
                .hasMessage("eventLoopThreads is not in 0..1024: -1");
    }

    @Test
    void modeIsParsedByItsServerName() {
        assertThat(ReplicationMode.parse("id-first")).isEqualTo(ReplicationMode.ID_FIRST);
        assertThat(ReplicationMode.parse("SYNC")).isEqualTo(ReplicationMode.SYNC);
        assertThat(ReplicationMode.parse("default")).isEqualTo(ReplicationMode.SERVER_DEFAULT);
        assertThatThrownBy(() -> KvsClient.builder().mode("fast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mode is not one of sync, id-first, id-first-after-reply, async, default: fast");
    }

    @Test
    void credentialsAndNameAreChecked() {
        assertThatThrownBy(() -> KvsClient.builder().password("")).hasMessage("password is empty: \"\"");
        assertThatThrownBy(() -> KvsClient.builder().credentials("", "p")).hasMessage("user is empty: \"\"");
        assertThatThrownBy(() -> KvsClient.builder().clientName("my app"))
                .hasMessage("clientName has spaces or special characters: \"my app\"");
        KvsClient.builder().clientName("my-app");
    }

    @Test
    void buildOpensNoConnection() {
        // nothing listens on port 1: building must not fail, only the first request
        try (KvsClient client = KvsClient.builder().endpoints("127.0.0.1:1").build()) {
            assertThat(client.activeEndpoint()).isEqualTo("127.0.0.1:1");
            assertThatThrownBy(client::ping)
                    .isInstanceOf(NoPrimaryException.class)
                    .hasMessageContaining("127.0.0.1:1 (cannot connect");
        }
    }

    @Test
    void clusterSettingsAreCheckedAndQuoted() {
        assertThatThrownBy(() -> KvsClient.builder().cluster())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cluster seeds is empty: []");
        assertThatThrownBy(() -> KvsClient.builder().cluster("a:1", "a:1")).hasMessage("endpoint is listed twice: a:1");
        assertThatThrownBy(() -> KvsClient.builder().cluster("a")).hasMessage("endpoint is not HOST:PORT: a");
        assertThatThrownBy(() -> KvsClient.builder().maxRedirects(-1)).hasMessage("maxRedirects is not in 0..100: -1");
        assertThatThrownBy(() -> KvsClient.builder().maxRedirects(101))
                .hasMessage("maxRedirects is not in 0..100: 101");
        assertThatThrownBy(() -> KvsClient.builder().clusterRefreshMinInterval(Duration.ZERO))
                .hasMessage("clusterRefreshMinInterval <= 0: PT0S");
        assertThatThrownBy(() ->
                        KvsClient.builder().endpoints("a:1").cluster("b:2").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("both endpoints [a:1] and cluster seeds [b:2] were given: a client serves one pair or one"
                        + " cluster");
    }

    @Test
    void aPairClientHasNoClusterStatusAndAClusterClientStartsEmpty() {
        try (KvsClient pair = KvsClient.builder().endpoints("127.0.0.1:1").build()) {
            assertThat(pair.clusterStatus()).isEmpty();
        }
        try (KvsClient cluster =
                KvsClient.builder().cluster("127.0.0.1:1").maxRedirects(3).build()) {
            ClusterStatus s = cluster.clusterStatus().orElseThrow();
            assertThat(s.shards()).isZero();
            assertThat(s.lastRefresh()).isNull();
            assertThat(s.refreshes()).isZero();
            assertThat(s.maxRedirects()).isEqualTo(3);
            assertThat(s.refreshMinInterval()).isEqualTo(Duration.ofSeconds(1));
            assertThat(s.maxPendingPerConnection()).isEqualTo(10_000);
            assertThat(cluster.activeEndpoint()).isEqualTo("127.0.0.1:1");
        }
    }
}
