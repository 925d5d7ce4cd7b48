package dev.kvs.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code coordination:} section: opt-in, validated with the value quoted, credentials never shown. */
class CoordinationConfigTest {

    @Test
    void withoutTheSectionANodeHasNoCoordination() {
        assertThat(NodeConfigLoader.parse("name: a\n", "kvs.yaml").coordination())
                .isEmpty();
    }

    @Test
    void theDatacenterIsReadAndChecked() {
        assertThat(NodeConfigLoader.parse("coordination:\n  zookeeper: zk:2181\n  shard: s\n  dc: east\n", "kvs.yaml")
                        .coordination()
                        .orElseThrow()
                        .dc())
                .isEqualTo("east");
        assertThat(NodeConfigLoader.parse("coordination:\n  zookeeper: zk:2181\n  shard: s\n", "kvs.yaml")
                        .coordination()
                        .orElseThrow()
                        .dc())
                .isEmpty();
        assertThatThrownBy(() -> NodeConfigLoader.parse(
                        "coordination:\n  zookeeper: zk:2181\n  shard: s\n  dc: a b\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("coordination.dc must be 0-64 of [A-Za-z0-9_.-]: a b");
    }

    @Test
    void theTimerAutoPromotionIsRefusedWithCoordination() {
        assertThatThrownBy(() -> NodeConfigLoader.parse(
                        "coordination:\n  zookeeper: zk:2181\n  shard: s\nfailover:\n  autoPromoteAfterMs: 3000\n",
                        "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("failover.autoPromoteAfter (3000 ms) and coordination cannot both be set");
        assertThat(NodeConfigLoader.parse(
                                "coordination:\n  zookeeper: zk:2181\n  shard: s\nfailover:\n  autoPromoteAfterMs: 0\n",
                                "kvs.yaml")
                        .coordination())
                .isPresent();
        assertThat(NodeConfigLoader.parse("failover:\n  autoPromoteAfterMs: 3000\n", "kvs.yaml")
                        .failover()
                        .autoPromoteAfter())
                .as("without coordination the timer stays")
                .isEqualTo(Duration.ofMillis(3000));
    }

    @Test
    void theSectionIsReadWithTheDefaultSessionTimeout() {
        NodeConfig c = NodeConfigLoader.parse(
                "cluster: prod\ncoordination:\n  zookeeper: zk1:2181,zk2:2181,zk3:2181\n  shard: shard-2\n",
                "kvs.yaml");
        CoordinationConfig k = c.coordination().orElseThrow();
        assertThat(k.zookeeper()).isEqualTo("zk1:2181,zk2:2181,zk3:2181");
        assertThat(k.shard()).isEqualTo("shard-2");
        assertThat(k.sessionTimeout()).isEqualTo(Duration.ofMillis(6000));
        assertThat(k.credentials()).isEmpty();
    }

    @Test
    void credentialsAreReadButNeverPrinted() {
        NodeConfig c = NodeConfigLoader.parse(
                "coordination:\n  zookeeper: zk:2181\n  shard: s\n  credentials: kvs:pa55word\n  sessionTimeoutMs: 3000\n",
                "kvs.yaml");
        assertThat(c.coordination().orElseThrow().credentials()).hasValue("kvs:pa55word");
        assertThat(c.coordination().orElseThrow().sessionTimeout()).isEqualTo(Duration.ofMillis(3000));
        assertThat(c.toString()).doesNotContain("pa55word").contains("credentials=<set>");
        assertThatThrownBy(() -> NodeConfigLoader.parse(
                        "coordination:\n  zookeeper: zk:2181\n  shard: s\n  credentials: nocolon\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("coordination.credentials must be user:password")
                .hasMessageNotContaining("nocolon");
    }

    @Test
    void badValuesAreNamedAndQuoted() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("coordination:\n  zookeeper: zk\n  shard: s\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("coordination.zookeeper is not HOST:PORT: zk");
        assertThatThrownBy(() -> NodeConfigLoader.parse(
                        "coordination:\n  zookeeper: zk:2181\n  shard: s\n  sessionTimeoutMs: 50\n", "kvs.yaml"))
                .hasMessageContaining("coordination.sessionTimeoutMs is not in 200..600000: 50");
        assertThatThrownBy(
                        () -> NodeConfigLoader.parse("coordination:\n  zookeeper: zk:2181\n  shard: a/b\n", "kvs.yaml"))
                .hasMessageContaining("coordination.shard must be 1-64 of [A-Za-z0-9_.-]: a/b");
        assertThatThrownBy(() -> NodeConfigLoader.parse("coordination:\n  zookeeper: zk:2181\n", "kvs.yaml"))
                .hasMessageContaining("coordination.shard is missing");
        assertThatThrownBy(() -> NodeConfigLoader.parse(
                        "cluster: my cluster\ncoordination:\n  zookeeper: zk:2181\n  shard: s\n", "kvs.yaml"))
                .hasMessageContaining("(it names /kvs/<cluster>): my cluster");
    }

    @Test
    void theNodeIdIsFortyLowercaseHexDigitsStableForAClusterAndName() {
        NodeConfig a = NodeConfig.builder().cluster("prod").name("dc1-a").build();
        assertThat(a.nodeId()).matches("[0-9a-f]{40}");
        assertThat(NodeConfig.builder().cluster("prod").name("dc1-a").build().nodeId())
                .isEqualTo(a.nodeId());
        assertThat(NodeConfig.builder().cluster("prod").name("dc1-b").build().nodeId())
                .isNotEqualTo(a.nodeId());
        // echo -n prod/dc1-a | sha1sum
        assertThat(a.nodeId()).isEqualTo("a92ea523622e90b96bfad0c0d1c2b80f6c6a7de5");
    }
}
