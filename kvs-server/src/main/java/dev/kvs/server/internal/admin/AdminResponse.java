package dev.kvs.server.internal.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.core.TxId;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an {@link AdminRoute} answers: status, content type, body and extra headers. Immutable.
 *
 * @param status HTTP status code
 * @param contentType value of the {@code Content-Type} header
 * @param body response body
 * @param headers extra headers (e.g. {@code Allow})
 */
public record AdminResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    public static final String JSON_TYPE = "application/json; charset=utf-8";

    /** The content type of the Prometheus text exposition format. */
    public static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    // TxIds read as "epoch:seq" everywhere (status, INFO, error replies), JSON included
    static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new com.fasterxml.jackson.databind.module.SimpleModule("kvs")
                    .addSerializer(TxId.class, com.fasterxml.jackson.databind.ser.std.ToStringSerializer.instance));

    public AdminResponse {
        if (status < 100 || status > 599) throw new IllegalArgumentException("status is not in 100..599: " + status);
        headers = Map.copyOf(headers);
    }

    /** {@code body} as JSON with {@code status}. */
    public static AdminResponse json(int status, Object body) {
        try {
            return new AdminResponse(status, JSON_TYPE, MAPPER.writeValueAsBytes(body), Map.of());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + body.getClass().getName() + " as JSON", e);
        }
    }

    /** {@code body} as JSON with status 200. */
    public static AdminResponse ok(Object body) {
        return json(200, body);
    }

    /** {@code {"error": message, "status": status}}. */
    public static AdminResponse error(int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status);
        return json(status, body);
    }

    /** {@code text} as UTF-8 with {@code contentType}. */
    public static AdminResponse text(int status, String contentType, String text) {
        return new AdminResponse(status, contentType, text.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /** This response with one more header. */
    public AdminResponse withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new AdminResponse(status, contentType, body, h);
    }
}
