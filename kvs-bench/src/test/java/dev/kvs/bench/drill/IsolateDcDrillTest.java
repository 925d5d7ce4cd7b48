package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.client.ReplicationMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The third drill disaster, short: {@code kvs drill --shards 2 --disaster isolate-dc} in id-first.
 * DC a, where both primaries are, loses ZooKeeper and DC b at once, silently, for three session
 * timeouts under load, then heals. Every shard must be failed over by the coordinator in DC b (its epoch
 * moved by exactly one, its DC-b node now primary), lose no acknowledged write, never have two nodes
 * acknowledging in overlapping time, and take writes again on DC b; once healed, the old primaries
 * follow the map and serve as backups. DC b takes writes while DC a is still cut off: the drill's SDK
 * still reaches DC a's nodes, but their writes waiting for the backup are answered at the lease's lapse
 * and their refusals ({@code -CLUSTERDOWN}) send it on to the shard's DC-b node.
 */
class IsolateDcDrillTest {

    @Test
    void isolatingThePrimariesDcPromotesEveryShardOnceAndLosesNoAcknowledgedWrite(@TempDir Path dir) throws Exception {
        StringWriter progress = new StringWriter();
        ShardDrill.Result r;
        try (QuietLogs quiet = new QuietLogs();
                ChildProcesses children = new ChildProcesses()) {
            r = ShardDrill.run(
                    new ShardDrill.Settings(
                            ReplicationMode.ID_FIRST,
                            Disaster.ISOLATE_DC,
                            2,
                            0,
                            Duration.ofSeconds(5),
                            new DrillRun.LoadShape(2, 128, Duration.ofSeconds(12), 16),
                            Duration.ofSeconds(2),
                            Duration.ofSeconds(120)),
                    dir,
                    JavaCommand.current(),
                    children,
                    new PrintWriter(progress, true));
        }
        String table = ShardTable.render(r) + progress;
        assertThat(r.healAtSeconds()).as(table).isNotNull();
        assertThat(r.lines()).as(table).hasSize(2);
        for (ShardDrill.ShardLine line : r.lines()) {
            Classification c = line.outcome();
            assertThat(c.acked()).as(table).isPositive();
            assertThat(c.dataLoss()).as(table).isZero();
            assertThat(c.unreadable()).as(table).isZero();
            assertThat(c.complete() + c.errorDetect()).as(table).isEqualTo(c.acked());
            assertThat(line.overlap().definite()).as(table).isZero();
            assertThat(line.epochAfter()).as(table).isEqualTo(line.epochBefore() + 1);
            assertThat(line.primaryBefore()).as(table).endsWith("-a");
            assertThat(line.primaryAfter()).as(table).isEqualTo(line.shard() + "-b");
            // promoted once ZooKeeper expired the old primary's session (2 s), within the session + 2 s
            assertThat(line.disasterToPromotedMs()).as(table).isNotNull().isLessThan(4_000.0);
            // DC b took writes before the heal, and the old primary follows the map once healed
            assertThat(line.disasterToNewMs())
                    .as(table)
                    .isNotNull()
                    .isLessThan((r.healAtSeconds() - r.disasterAtSeconds()) * 1000);
            assertThat(line.healToAckMs()).as(table).isNotNull();
            assertThat(line.oldPrimaryRole()).as(table).isEqualTo("backup");
        }
    }
}
