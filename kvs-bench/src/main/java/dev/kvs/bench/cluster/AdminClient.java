package dev.kvs.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Requests to the nodes' admin HTTP ports, answered with JSON, with the nodes' admin token if they
 * have one, over HTTPS for nodes with {@code tls.admin: true}. Thread-safe.
 */
final class AdminClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String token;
    private final String scheme;

    /**
     * @param token sent as {@code Authorization: Bearer TOKEN} on every request; null for none
     * @param tls for HTTPS: trust (and the client certificate, for {@code tls.clientAuth: require});
     *     null for plain HTTP. The node's certificate must name the host dialled (the JDK client
     *     always checks it).
     * @throws IllegalArgumentException if the TLS files are not usable
     */
    AdminClient(String token, ClientTlsFiles tls) {
        this.token = token;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
        if (tls != null) b.sslContext(tls.sslContext());
        this.http = b.build();
        this.scheme = tls == null ? "http" : "https";
    }

    /**
     * {@code GET http(s)://host:port/path}.
     *
     * @throws UncheckedIOException if the request fails
     * @throws IllegalStateException if the answer is not 200, or the thread is interrupted
     */
    JsonNode get(String host, int port, String path) {
        return send(HttpRequest.newBuilder(uri(host, port, path)).GET());
    }

    /**
     * {@code POST http(s)://host:port/path} without a body, with {@code X-Kvs-Admin: 1}; fails as {@link
     * #get} does.
     */
    JsonNode post(String host, int port, String path) {
        return send(HttpRequest.newBuilder(uri(host, port, path))
                .header("X-Kvs-Admin", "1") // what a node without a token asks of every change
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    private URI uri(String host, int port, String path) {
        return URI.create(scheme + "://" + host + ":" + port + path);
    }

    private JsonNode send(HttpRequest.Builder request) {
        if (token != null) request.header("Authorization", "Bearer " + token);
        HttpRequest r = request.timeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        r.method() + " " + r.uri() + " answered " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(r.method() + " " + r.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + r.method() + " " + r.uri(), e);
        }
    }
}
