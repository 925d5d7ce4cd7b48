package dev.kvs.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NodeIdsTest {

    @Test
    void anIdIsTheSha1HexOfClusterSlashName() {
        // echo -n prod/dc1-a | sha1sum: the value nodes have had since ids were introduced
        assertThat(NodeIds.of("prod", "dc1-a")).isEqualTo("a92ea523622e90b96bfad0c0d1c2b80f6c6a7de5");
        // echo -n kvs-drill/dc-main | sha1sum
        assertThat(NodeIds.of("kvs-drill", "dc-main")).isEqualTo("af90f1b4327a097187ac86ccf0e7f3cf58f09123");
    }

    @Test
    void theSameNameInAnotherClusterHasAnotherId() {
        assertThat(NodeIds.of("prod", "dc1-a")).isNotEqualTo(NodeIds.of("test", "dc1-a"));
        assertThat(NodeIds.of("prod", "dc1-a")).isNotEqualTo(NodeIds.of("prod", "dc1-b"));
    }

    @Test
    void aMissingNameIsRefused() {
        assertThatThrownBy(() -> NodeIds.of("prod", null)).hasMessageContaining("prod/null");
    }
}
