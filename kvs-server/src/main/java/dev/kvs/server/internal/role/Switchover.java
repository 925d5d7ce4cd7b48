package dev.kvs.server.internal.role;

import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.server.internal.role.NodeRole.Primary;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planned switchover's protocol on a primary already fenced by {@link RoleMachine#handOver(Duration,
 * Successor)}: wait until the backup has acknowledged every key and value, have the successor recorded
 * (the cluster map), tell the backup to take over in the next epoch, then step down. Until the record or
 * the backup has it, a failure lifts the fence and changes nothing; after that there is no way back. The
 * role changes themselves (lifting the fence, the demotion) are the machine's.
 */
final class Switchover {
    private static final Logger log = LoggerFactory.getLogger(Switchover.class);

    private Switchover() {}

    static RoleMachine.Handover run(RoleMachine roles, Primary p, Duration timeout, Successor successor) {
        long next = p.epoch() + 1;
        boolean handed = false; // no way back: the backup, or the record, has it
        ReplicatorStatus st = null;
        try {
            st = awaitCaughtUp(p.link(), timeout);
            if (successor != null) {
                successor.name(next); // refused: writes resume here, at this epoch
                handed = true;
            }
            if (!p.link().handOver(next, timeout) && !handed) {
                throw new RoleChangeException(
                        "the key channel to the backup closed before the handover: writes resume here");
            }
            handed = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (!handed) throw new RoleChangeException("interrupted: writes resume here");
        } finally {
            if (!handed) roles.lift(p);
        }
        log.warn("switchover: handed over to the backup at {} in epoch {} after {}", st.peer(), next, st.lastTxId());
        roles.demote(next);
        return new RoleMachine.Handover(next, st.lastTxId());
    }

    private static ReplicatorStatus awaitCaughtUp(ReplicationLink link, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ReplicatorStatus st = link.status();
            if (st.caughtUp()) return st;
            if (System.nanoTime() > deadline) {
                throw new RoleChangeException("the backup did not catch up within " + timeout.toMillis() + " ms ("
                        + st.state() + ", " + st.unackedKeys() + " keys and " + st.pendingValues()
                        + " values unacknowledged): writes resume here");
            }
            Thread.sleep(5); // polling a status snapshot, bounded by the deadline
        }
    }
}
