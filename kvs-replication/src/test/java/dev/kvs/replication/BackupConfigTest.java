package dev.kvs.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackupConfigTest {
    @Test
    void defaults() {
        BackupConfig c = BackupConfig.defaults();
        assertThat(c.maxFrameBytes()).isEqualTo(8 * 1024 * 1024);
        assertThat(c.maxAssemblyBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(c.maxAssemblyBytesPerChannel()).isEqualTo(c.maxAssemblyBytes());
        assertThat(c.maxUnfinishedKeys()).isEqualTo(10_000_000L);
        assertThat(c.maxHeldKeyPackets()).isEqualTo(100_000);
        assertThat(c.maxValueChannels()).isEqualTo(64);
    }

    @Test
    void thePerChannelBoundFollowsTheTotalUnlessSet() {
        assertThat(BackupConfig.builder().maxAssemblyBytes(1000).build().maxAssemblyBytesPerChannel())
                .isEqualTo(1000);
        assertThat(BackupConfig.builder()
                        .maxAssemblyBytes(1000)
                        .maxAssemblyBytesPerChannel(10)
                        .build()
                        .maxAssemblyBytesPerChannel())
                .isEqualTo(10);
    }

    @Test
    void badSettingsAreRejectedQuotingTheValue() {
        assertThatThrownBy(() -> BackupConfig.builder().maxAssemblyBytes(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAssemblyBytes <= 0: -1");
        assertThatThrownBy(() -> BackupConfig.builder().maxAssemblyBytesPerChannel(0))
                .hasMessage("maxAssemblyBytesPerChannel <= 0: 0");
        assertThatThrownBy(() -> BackupConfig.builder()
                        .maxAssemblyBytes(10)
                        .maxAssemblyBytesPerChannel(11)
                        .build())
                .hasMessage("maxAssemblyBytesPerChannel > maxAssemblyBytes: 11 > 10");
        assertThatThrownBy(() -> BackupConfig.builder().maxFrameBytes(100).build())
                .hasMessage("maxFrameBytes < 1024: 100");
        assertThatThrownBy(() -> BackupConfig.builder().maxUnfinishedKeys(0).build())
                .hasMessage("maxUnfinishedKeys <= 0: 0");
        assertThatThrownBy(() -> BackupConfig.builder().maxHeldKeyPackets(0).build())
                .hasMessage("maxHeldKeyPackets <= 0: 0");
        assertThatThrownBy(() -> BackupConfig.builder().maxValueChannels(-3).build())
                .hasMessage("maxValueChannels <= 0: -3");
        assertThatThrownBy(
                        () -> BackupConfig.builder().maxHandshakesPerSource(0).build())
                .hasMessage("maxHandshakesPerSource <= 0: 0");
        assertThatThrownBy(() -> BackupConfig.builder().maxPeerHandshakes(-1).build())
                .hasMessage("maxPeerHandshakes <= 0: -1");
        assertThatThrownBy(
                        () -> BackupConfig.builder().authDeadline(Duration.ZERO).build())
                .hasMessage("authDeadline must be positive: PT0S");
    }

    @Test
    void toBuilderKeepsEverySetting() {
        BackupConfig c = BackupConfig.builder()
                .maxHandshakes(5)
                .maxHandshakesPerSource(2)
                .maxPeerHandshakes(3)
                .authDeadline(Duration.ofMillis(1500))
                .maxAssemblyBytes(4096)
                .build();

        assertThat(c.toBuilder().build()).isEqualTo(c);
    }
}
