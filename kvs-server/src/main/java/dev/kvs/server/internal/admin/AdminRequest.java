package dev.kvs.server.internal.admin;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One admin HTTP request, detached from Netty (its body copied out), so routes need not release
 * anything.
 *
 * @param method upper-case HTTP method, e.g. {@code GET}
 * @param path decoded path without the query, e.g. {@code /status}
 * @param query decoded query parameters
 * @param body request body, empty if none
 */
public record AdminRequest(String method, String path, Map<String, List<String>> query, byte[] body) {
    public AdminRequest {
        query = Map.copyOf(query);
    }

    /** The first value of query parameter {@code name}, if present. */
    public Optional<String> param(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
