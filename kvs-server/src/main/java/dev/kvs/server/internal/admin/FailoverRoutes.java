package dev.kvs.server.internal.admin;

import dev.kvs.replication.HandbackReport;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.internal.failover.Failover;
import dev.kvs.server.internal.role.LostKeys;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.role.RoleChangeException;
import dev.kvs.server.internal.role.RoleMachine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The admin API of failover: {@code POST /promote[?lost=true]} (on a node coordinated on ZooKeeper: through
 * the cluster map, {@code [&force=true]}, see {@link Failover#promoteByOperator}), {@code POST /declare-lost}, {@code GET
 * /lost} (the loss manifest), {@code POST /resolve?key=K|key64=B64|all=true}, {@code POST
 * /switchover[?timeoutMs=N]} (planned, on the primary), {@code POST /demote?epoch=N} (tell a deposed
 * primary), {@code GET /failback} (a deposed primary's handback report), and {@code POST /replicate}
 * (a promoted primary starts replicating to its peer, e.g. a wiped old primary restarted as a backup).
 *
 * <p>Every action runs off the admin event loop ({@link AdminServer#blockingRoute}). Parameters are
 * checked strictly before anything changes: an unknown or repeated parameter, a boolean other than
 * {@code true|false}, a number out of range answers 400; a role change the node's state forbids 409.
 */
public final class FailoverRoutes {
    /** Default wait of a switchover for the backup to catch up. */
    static final long DEFAULT_SWITCHOVER_TIMEOUT_MS = 30_000;

    /**
     * Furthest ahead of this node's epoch that {@code /demote} accepts: epochs grow by one per
     * promotion, and one near {@link Long#MAX_VALUE} would leave no room for the next.
     */
    public static final long MAX_EPOCH_STEP = 1_000_000;

    private FailoverRoutes() {}

    /**
     * @param coordinated whether the node is coordinated on ZooKeeper: its {@code /promote} goes through the
     *     cluster map and takes {@code force} ({@link Failover#promoteByOperator})
     */
    public static void register(AdminServer admin, RoleMachine roles, Failover f, boolean coordinated) {
        admin.blockingRoute("POST", "/promote", r -> {
            if (coordinated) {
                r.allowOnly("lost", "force"); // force: even while the old primary's member znode exists
            } else {
                r.allowOnly("lost");
            }
            boolean lost = r.flag("lost");
            boolean force = coordinated && r.flag("force");
            return guarded(() -> {
                long epoch = f.promoteByOperator(lost, force);
                return AdminResponse.ok(Map.of("role", "primary", "epoch", epoch, "manifest", manifest(roles)));
            });
        });
        admin.blockingRoute("POST", "/declare-lost", r -> {
            r.allowOnly();
            return guarded(() -> {
                int n = f.declareLost();
                return AdminResponse.ok(Map.of("declaredLost", n, "manifest", manifest(roles)));
            });
        });
        admin.blockingRoute("GET", "/lost", r -> AdminResponse.ok(manifest(roles)));
        admin.blockingRoute("POST", "/switchover", r -> {
            r.allowOnly("timeoutMs");
            long timeoutMs = r.number(
                    "timeoutMs", 1, RoleMachine.MAX_HANDOVER_TIMEOUT.toMillis(), DEFAULT_SWITCHOVER_TIMEOUT_MS);
            return guarded(() -> {
                RoleMachine.Handover h = f.switchover(Duration.ofMillis(timeoutMs));
                return AdminResponse.ok(
                        Map.of("epoch", h.epoch(), "handedOverUpTo", h.upTo().toString(), "role", "backup"));
            });
        });
        admin.blockingRoute("POST", "/demote", r -> {
            r.allowOnly("epoch");
            long epoch = demoteEpoch(r, roles.current().epoch());
            return guarded(() -> {
                f.demote(epoch);
                NodeRole now = roles.current();
                return AdminResponse.ok(Map.of("role", now.role().label(), "epoch", now.epoch()));
            });
        });
        admin.route("GET", "/failback", AdminRoute.of(r -> AdminResponse.ok(failback(f))));
        admin.blockingRoute("POST", "/replicate", r -> {
            r.allowOnly();
            return guarded(() -> {
                if (!(roles.current() instanceof NodeRole.Primary)) {
                    throw new RoleChangeException("replicate needs the primary");
                }
                if (roles.peer().equals("-")) {
                    throw new RoleChangeException("no peer is configured to replicate to");
                }
                roles.attachBackup();
                return AdminResponse.ok(Map.of(
                        "peer",
                        roles.peer(),
                        "link",
                        roles.current().replicationStatus().state()));
            });
        });
        admin.blockingRoute("POST", "/resolve", r -> {
            r.allowOnly("key", "key64", "all");
            return guarded(() -> resolve(r, f, roles));
        });
    }

    /**
     * The {@code epoch} of {@code /demote}: a number newer than {@code current} (409 if not, as for a
     * stale successor), at most {@link #MAX_EPOCH_STEP} ahead (400: a typo, or an epoch that would
     * leave no room for the next promotions).
     */
    private static long demoteEpoch(AdminRequest r, long current) {
        OptionalLong given;
        try {
            given = r.number("epoch");
        } catch (AdminException e) {
            throw AdminException.badRequest("demote needs epoch=N, the new primary's epoch; " + e.getMessage());
        }
        if (given.isEmpty()) throw AdminException.badRequest("demote needs epoch=N, the new primary's epoch");
        long epoch = given.getAsLong();
        if (epoch <= current)
            throw AdminException.conflict("epoch " + epoch + " is not newer than this node's " + current);
        if (epoch - current > MAX_EPOCH_STEP) {
            throw AdminException.badRequest("epoch " + epoch + " is more than " + MAX_EPOCH_STEP
                    + " ahead of this node's " + current + ": give the new primary's epoch (its GET /status)");
        }
        return epoch;
    }

    private static AdminResponse resolve(AdminRequest r, Failover f, RoleMachine roles) {
        boolean all = r.flag("all");
        int given = (all ? 1 : 0)
                + (r.param("key").isPresent() ? 1 : 0)
                + (r.param("key64").isPresent() ? 1 : 0);
        if (given != 1) {
            throw AdminException.badRequest("resolve needs exactly one of key=, key64= or all=true");
        }
        if (all) {
            return AdminResponse.ok(Map.of("resolved", f.resolveAll(), "manifest", manifest(roles)));
        }
        byte[] key;
        if (r.param("key64").isPresent()) {
            try {
                key = Base64.getDecoder().decode(r.param("key64").get());
            } catch (IllegalArgumentException e) {
                throw AdminException.badRequest("key64 is not base64: "
                        + AdminRequest.quote(r.param("key64").get()));
            }
        } else {
            key = r.param("key").get().getBytes(StandardCharsets.UTF_8);
        }
        boolean was = f.resolve(key);
        if (!was) return AdminResponse.error(404, "key is neither lost nor unfinished: " + ReadGate.printable(key));
        return AdminResponse.ok(Map.of("resolved", 1, "manifest", manifest(roles)));
    }

    private static AdminResponse guarded(Supplier<AdminResponse> action) {
        try {
            return action.get();
        } catch (RoleChangeException e) {
            return AdminResponse.error(409, e.getMessage());
        }
    }

    /** The deposed primary's handback report: what it handed back and which writes it rolled back. */
    public static Map<String, Object> failback(Failover f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", f.handbackState());
        HandbackReport r = f.handbackReport();
        if (r != null) {
            m.put("newPrimary", r.newPrimary());
            m.put("keysUpTo", r.keysUpTo().toString());
            m.put("wanted", r.wanted());
            m.put("sent", r.sent());
            m.put("accepted", r.accepted());
            m.put("rolledBackCount", r.rolledBack().size());
            List<Map<String, Object>> rolledBack = new ArrayList<>();
            for (HandbackReport.RolledBack b : r.rolledBack()) {
                Map<String, Object> e = entry(b.key(), b.txId().toString(), b.valueLength(), b.checksum(), 0, 0);
                e.remove("sinceMillis");
                e.put("op", b.delete() ? "delete" : "put");
                rolledBack.add(e);
            }
            m.put("rolledBack", rolledBack);
        }
        return m;
    }

    /** The loss manifest: every lost or unfinished key with its TxId, value length and checksum. */
    public static Map<String, Object> manifest(RoleMachine roles) {
        ReadGate gate = roles.gate();
        NodeRole node = roles.current();
        List<Map<String, Object>> lost = new ArrayList<>();
        for (LostKeys.Entry e : gate.lost().snapshot()) {
            lost.add(entry(
                    e.key(), e.txId().toString(), e.valueLength(), e.checksum(), e.sinceMillis(), e.expireAtMillis()));
        }
        List<Map<String, Object>> unfinished = new ArrayList<>();
        UnfinishedKeys q = gate.unfinished();
        if (q == null && node.listener() != null) q = node.listener().unfinishedKeys();
        if (q != null) {
            for (UnfinishedKeys.Pending p : q.snapshot()) {
                unfinished.add(entry(
                        p.key(),
                        p.txId().toString(),
                        p.valueLength(),
                        p.checksum(),
                        p.sinceMillis(),
                        p.expireAtMillis()));
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("epoch", node.epoch());
        m.put("role", node.role().label());
        m.put("lostCount", lost.size());
        m.put("unfinishedCount", unfinished.size());
        m.put("lost", lost);
        m.put("unfinished", unfinished);
        return m;
    }

    private static Map<String, Object> entry(
            byte[] key, String txId, int length, int checksum, long since, long expireAt) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", new String(key, StandardCharsets.UTF_8));
        m.put("keyBase64", Base64.getEncoder().encodeToString(key));
        m.put("txId", txId);
        m.put("valueLength", length);
        m.put("checksum", Integer.toUnsignedLong(checksum));
        m.put("sinceMillis", since);
        if (expireAt != 0) m.put("expireAtMillis", expireAt); // the key's expiry, when it has one
        return m;
    }
}
