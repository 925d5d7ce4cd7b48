package dev.kvs.server.internal.admin;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/** The route table: path, then method, to route. Thread-safe, so routes may be added while serving. */
final class AdminRoutes {
    private final Map<String, Map<String, AdminRoute>> byPath = new ConcurrentHashMap<>();

    void add(String method, String path, AdminRoute route) {
        if (!path.startsWith("/")) throw new IllegalArgumentException("path does not start with '/': " + path);
        AdminRoute prior =
                byPath.computeIfAbsent(path, p -> new ConcurrentHashMap<>()).putIfAbsent(method, route);
        if (prior != null) throw new IllegalStateException("route already registered: " + method + " " + path);
    }

    /** The route for {@code method path}; for an unknown path or method, one answering 404 or 405. */
    AdminRoute find(String method, String path) {
        Map<String, AdminRoute> methods = byPath.get(path);
        if (methods == null) {
            AdminResponse notFound = AdminResponse.error(404, "no such endpoint: \"" + path + "\"");
            return AdminRoute.of(r -> notFound);
        }
        AdminRoute route = methods.get(method);
        if (route != null) return route;
        Set<String> allowed = new TreeSet<>(methods.keySet());
        AdminResponse notAllowed = AdminResponse.error(
                        405, "method " + method + " is not allowed on " + path + " (allowed: " + allowed + ")")
                .withHeader("Allow", String.join(", ", allowed));
        return AdminRoute.of(r -> notAllowed);
    }
}
