package dev.kvs.server.replication;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Calls a node's admin HTTP port on loopback and returns the body. */
final class Admin {
    private static final HttpClient http = HttpClient.newHttpClient();

    private Admin() {}

    static String post(int port, String pathAndQuery) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                                .header("X-Kvs-Admin", "1")
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    static String get(int port, String path) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
