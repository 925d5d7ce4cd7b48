package dev.kvs.server.internal.admin;

import dev.kvs.server.internal.NodeStatus;
import java.util.function.Supplier;

/**
 * The admin API of the node's state: {@code GET /status} (the {@link NodeStatus} snapshot as JSON) and
 * {@code GET /metrics} (Prometheus text). Both read the node when asked, on the admin event loop.
 */
public final class StatusRoutes {
    private StatusRoutes() {}

    /**
     * Serves {@code status} at {@code /status} and {@code prometheusText} at {@code /metrics}.
     *
     * @param status reads a fresh snapshot of the node
     * @param prometheusText scrapes the node's meters
     */
    public static void register(AdminServer admin, Supplier<NodeStatus> status, Supplier<String> prometheusText) {
        admin.route("GET", "/status", AdminRoute.of(r -> AdminResponse.ok(status.get())));
        admin.route(
                "GET",
                "/metrics",
                AdminRoute.of(r -> AdminResponse.text(200, AdminResponse.PROMETHEUS_TYPE, prometheusText.get())));
    }
}
