package dev.kvs.client.internal;

import dev.kvs.client.Acknowledgements;
import dev.kvs.client.ReplicationMode;
import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.List;

/**
 * The client's configuration, as validated by {@code KvsClient.Builder}. Not an API type.
 *
 * @param endpoints in order of preference
 * @param user AUTH user, or null for the default user
 * @param password AUTH password, or null for no AUTH
 * @param mode KVS.MODE to send on connect ({@link ReplicationMode#SERVER_DEFAULT}: none)
 * @param clientName CLIENT SETNAME to send on connect, or null
 * @param tls the TLS context connections use, or null for plain TCP
 * @param cluster cluster mode's settings ({@code endpoints} are then its seeds), or null for a pair
 * @param acknowledgements hears which node acknowledged each write, or null
 */
public record ClientConfig(
        List<Endpoint> endpoints,
        String user,
        String password,
        Duration connectTimeout,
        Duration requestTimeout,
        Duration unfinishedRetryDeadline,
        Duration endpointRecheckInterval,
        ReplicationMode mode,
        int connectionsPerEndpoint,
        int maxPending,
        String clientName,
        int eventLoopThreads,
        SslContext tls,
        Cluster cluster,
        Acknowledgements acknowledgements) {

    /**
     * Cluster mode's settings.
     *
     * @param maxRedirects {@code -MOVED} replies one request follows
     * @param refreshMinInterval least time between the starts of two topology refreshes
     */
    public record Cluster(int maxRedirects, Duration refreshMinInterval) {}
}
