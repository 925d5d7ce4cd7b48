package dev.kvs.server.internal.failover;

import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.Role;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer auto-promotion ({@code failover.autoPromoteAfter}), the explicit no-coordinator mode: a
 * backup whose primary's key channel has been down that long promotes itself, witnessed by nobody (if
 * the old primary is alive, that is split brain until the link heals; docs/operations.md). Never before
 * the backup has had a primary. Each check runs under the failover's lock, as a handover's promotion
 * does, so that the two never both promote.
 */
final class AutoPromotion {
    private static final Logger log = LoggerFactory.getLogger(AutoPromotion.class);

    private final Failover failover;
    private final RoleMachine roles;
    private final Duration after;

    private long linkDownSinceNanos = -1; // guarded by failover
    private boolean linkEverUp; // guarded by failover

    AutoPromotion(Failover failover, RoleMachine roles, Duration after) {
        this.failover = failover;
        this.roles = roles;
        this.after = after;
    }

    /** Checks on {@code timer} every tenth of {@code after}, from 10 ms to 1 s. */
    void start(ScheduledExecutorService timer) {
        long period = Math.max(10, Math.min(1000, after.toMillis() / 10));
        timer.scheduleAtFixedRate(this::check, period, period, TimeUnit.MILLISECONDS);
    }

    private void check() {
        synchronized (failover) {
            try {
                NodeRole r = roles.current();
                ReplicationServer server = r.listener();
                if (r.role() != Role.BACKUP || server == null) {
                    linkDownSinceNanos = -1;
                    return;
                }
                BackupStatus status = server.status();
                if (status.keyChannelConnected()) {
                    linkEverUp = true;
                    linkDownSinceNanos = -1;
                    return;
                }
                // a key channel that came and went between two checks still counts: it resynced or sent keys
                if (status.resyncs() > 0 || status.keyPackets() > 0) linkEverUp = true;
                if (!linkEverUp) return; // never promote before having had a primary
                long now = System.nanoTime();
                if (linkDownSinceNanos < 0) {
                    linkDownSinceNanos = now;
                    return;
                }
                if (now - linkDownSinceNanos >= after.toNanos()) {
                    log.error(
                            "the primary's key channel has been down for {} ms (failover.autoPromoteAfter): promoting"
                                    + " this backup automatically; if the old primary is alive this is split brain until"
                                    + " the link heals",
                            after.toMillis());
                    failover.promote(false);
                    linkDownSinceNanos = -1;
                }
            } catch (RuntimeException e) {
                log.warn("automatic promotion check failed", e);
            }
        }
    }
}
