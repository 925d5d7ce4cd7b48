package dev.kvs.server.internal.failover;

import dev.kvs.replication.backup.UnfinishedKeys;
import dev.kvs.replication.failback.HandbackReport;
import dev.kvs.server.internal.admin.AdminRequest;
import dev.kvs.server.internal.admin.AdminResponse;
import dev.kvs.server.internal.admin.AdminRoute;
import dev.kvs.server.internal.admin.AdminServer;
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
import java.util.function.Supplier;

/**
 * The admin API of failover: {@code POST /promote[?lost=true]}, {@code POST /declare-lost}, {@code GET
 * /lost} (the loss manifest), {@code POST /resolve?key=K|key64=B64|all=true}, {@code POST
 * /switchover[?timeoutMs=N]} (planned, on the primary), {@code POST /demote?epoch=N} (tell a deposed
 * primary), {@code GET /failback} (a deposed primary's handback report), and {@code POST /replicate}
 * (a promoted primary starts replicating to its peer, e.g. a wiped old primary restarted as a backup).
 */
public final class FailoverRoutes {
    private FailoverRoutes() {}

    public static void register(AdminServer admin, RoleMachine roles, Failover f) {
        admin.route(
                "POST",
                "/promote",
                AdminRoute.of(r -> guarded(() -> {
                    long epoch =
                            f.promote(r.param("lost").map(Boolean::parseBoolean).orElse(false));
                    return AdminResponse.ok(Map.of("role", "primary", "epoch", epoch, "manifest", manifest(roles)));
                })));
        admin.route(
                "POST",
                "/declare-lost",
                AdminRoute.of(r -> guarded(() -> {
                    int n = f.declareLost();
                    return AdminResponse.ok(Map.of("declaredLost", n, "manifest", manifest(roles)));
                })));
        admin.route("GET", "/lost", AdminRoute.of(r -> AdminResponse.ok(manifest(roles))));
        admin.route(
                "POST",
                "/switchover",
                AdminRoute.of(r -> guarded(() -> {
                    long timeoutMs;
                    try {
                        timeoutMs = Long.parseLong(r.param("timeoutMs").orElse("30000"));
                    } catch (NumberFormatException e) {
                        return AdminResponse.error(
                                400,
                                "timeoutMs is not a number: "
                                        + r.param("timeoutMs").get());
                    }
                    if (timeoutMs <= 0) return AdminResponse.error(400, "timeoutMs <= 0: " + timeoutMs);
                    RoleMachine.Handover h = f.switchover(Duration.ofMillis(timeoutMs));
                    return AdminResponse.ok(Map.of(
                            "epoch", h.epoch(), "handedOverUpTo", h.upTo().toString(), "role", "backup"));
                })));
        admin.route(
                "POST",
                "/demote",
                AdminRoute.of(r -> guarded(() -> {
                    long epoch;
                    try {
                        epoch = Long.parseLong(r.param("epoch").orElse(""));
                    } catch (NumberFormatException e) {
                        return AdminResponse.error(400, "demote needs epoch=N, the new primary's epoch");
                    }
                    long current = roles.current().epoch();
                    if (epoch <= current) {
                        return AdminResponse.error(409, "epoch " + epoch + " is not newer than this node's " + current);
                    }
                    roles.demote(epoch);
                    NodeRole now = roles.current();
                    return AdminResponse.ok(Map.of("role", now.role().label(), "epoch", now.epoch()));
                })));
        admin.route("GET", "/failback", AdminRoute.of(r -> AdminResponse.ok(failback(f))));
        admin.route(
                "POST",
                "/replicate",
                AdminRoute.of(r -> guarded(() -> {
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
                })));
        admin.route("POST", "/resolve", AdminRoute.of(r -> guarded(() -> resolve(r, f, roles))));
    }

    private static AdminResponse resolve(AdminRequest r, Failover f, RoleMachine roles) {
        if (r.param("all").map(Boolean::parseBoolean).orElse(false)) {
            return AdminResponse.ok(Map.of("resolved", f.resolveAll(), "manifest", manifest(roles)));
        }
        byte[] key;
        if (r.param("key64").isPresent()) {
            try {
                key = Base64.getDecoder().decode(r.param("key64").get());
            } catch (IllegalArgumentException e) {
                return AdminResponse.error(
                        400, "key64 is not base64: " + r.param("key64").get());
            }
        } else if (r.param("key").isPresent()) {
            key = r.param("key").get().getBytes(StandardCharsets.UTF_8);
        } else {
            return AdminResponse.error(400, "resolve needs key=, key64= or all=true");
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
                Map<String, Object> e = entry(b.key(), b.txId().toString(), b.valueLength(), b.checksum(), 0);
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
            lost.add(entry(e.key(), e.txId().toString(), e.valueLength(), e.checksum(), e.sinceMillis()));
        }
        List<Map<String, Object>> unfinished = new ArrayList<>();
        UnfinishedKeys q = gate.unfinished();
        if (q == null && node.listener() != null) q = node.listener().unfinishedKeys();
        if (q != null) {
            for (UnfinishedKeys.Pending p : q.snapshot()) {
                unfinished.add(entry(p.key(), p.txId().toString(), p.valueLength(), p.checksum(), p.sinceMillis()));
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

    private static Map<String, Object> entry(byte[] key, String txId, int length, int checksum, long since) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", new String(key, StandardCharsets.UTF_8));
        m.put("keyBase64", Base64.getEncoder().encodeToString(key));
        m.put("txId", txId);
        m.put("valueLength", length);
        m.put("checksum", Integer.toUnsignedLong(checksum));
        m.put("sinceMillis", since);
        return m;
    }
}
