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
 * The drill acceptance, short: {@code kvs drill --shards 3 --disaster kill-primary} in id-first
 * with 13 s of load, the primary killed at 3 s: 10 s of load after the kill for a failover bounded by the
 * 2 s session + 2 s (the seconds before it only need writes acknowledged on every shard). The nodes fail
 * over by themselves; every acknowledged write is complete or fenced, exactly the struck shard's epoch
 * moved (by one), and no two nodes of a shard acknowledged writes in overlapping time.
 */
class ShardDrillTest {

    @Test
    void killingOneShardsPrimaryLosesNoAcknowledgedWriteAndPromotesOnlyThatShard(@TempDir Path dir) throws Exception {
        StringWriter progress = new StringWriter();
        ShardDrill.Result r;
        try (QuietLogs quiet = new QuietLogs();
                ChildProcesses children = new ChildProcesses()) {
            r = ShardDrill.run(
                    new ShardDrill.Settings(
                            ReplicationMode.ID_FIRST,
                            Disaster.KILL_PRIMARY,
                            3,
                            0,
                            Duration.ofSeconds(3),
                            new DrillRun.LoadShape(2, 128, Duration.ofSeconds(13), 16),
                            Duration.ofSeconds(2),
                            Duration.ofSeconds(120)),
                    dir,
                    JavaCommand.current(),
                    children,
                    new PrintWriter(progress, true));
        }
        String table = ShardTable.render(r);
        assertThat(r.lines()).as(table).hasSize(3);
        for (ShardDrill.ShardLine line : r.lines()) {
            Classification c = line.outcome();
            assertThat(c.acked()).as(table).isPositive();
            assertThat(c.dataLoss()).as(table).isZero();
            assertThat(c.unreadable()).as(table).isZero();
            assertThat(c.complete() + c.errorDetect()).as(table).isEqualTo(c.acked());
            assertThat(line.overlap().definite()).as(table).isZero();
            boolean struck = line.shard().equals("shard-0");
            assertThat(line.epochAfter()).as(table).isEqualTo(line.epochBefore() + (struck ? 1 : 0));
            assertThat(line.primaryAfter().equals(line.primaryBefore()))
                    .as(table)
                    .isEqualTo(!struck);
        }
        ShardDrill.ShardLine struck = r.lines().get(0);
        // the new primary acknowledged writes before the load ended: the failover happened under load
        assertThat(struck.disasterToNewMs()).as(table).isNotNull().isLessThan(120_000.0);
    }
}
