package dev.kvs.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.wan.WanLink;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two DCs as child processes on loopback, started while the backup's first replication port is taken. */
class TwoDcsStartTest {

    @Test
    void aReplicationPortTakenBeforeTheBackupListensIsTriedAgainOnAnother(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName(TwoDcs.LOOPBACK));
                ChildProcesses children = new ChildProcesses()) {
            int free = TwoDcs.freePort();
            Deque<Integer> ports = new ArrayDeque<>(List.of(taken.getLocalPort(), free));
            TwoDcs.Settings s = new TwoDcs.Settings(
                    new NodeYaml("kvs-start-test", "id-first", ""),
                    List.of(),
                    new LinkSettings(Duration.ZERO, 0, WanLink.DEFAULT_BUFFER_BYTES, WanLink.Queueing.FIFO),
                    Duration.ofSeconds(60));
            try (TwoDcs dcs = TwoDcs.startOnLoopback(s, dir, JavaCommand.current(), children, ports::pop)) {
                assertThat(ports).isEmpty();
                assertThat(dcs.backup().ports().repl()).isEqualTo(free);
                assertThat(dcs.get(dcs.primary(), "/status").toString()).contains("id-first");
            }
        }
    }

    @Test
    void onlyTheBackupsTakenReplicationPortIsTriedAgain() {
        String taken = "dc-backup exited with code 1 before it was ready; /tmp/x/dc-backup.log ends with:\n"
                + "kvs server: cannot listen on 127.0.0.1:40935 (replication port): address already in use";
        assertThat(TwoDcs.replicationPortTaken(new IllegalStateException(taken)))
                .isTrue();
        assertThat(TwoDcs.replicationPortTaken(new IllegalStateException(taken.replace("dc-backup", "dc-main"))))
                .isFalse();
        assertThat(TwoDcs.replicationPortTaken(
                        new IllegalStateException(taken.replace("(replication port)", "(client port)"))))
                .isFalse();
        assertThat(TwoDcs.replicationPortTaken(new IllegalStateException("dc-backup did not start within 60 s")))
                .isFalse();
        assertThat(TwoDcs.replicationPortTaken(new IllegalStateException((String) null)))
                .isFalse();
    }
}
