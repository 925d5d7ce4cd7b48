package dev.kvs.client.internal;

/** A server's client address. Not an API type. */
public record Endpoint(String host, int port) {

    /**
     * Parses {@code host:port} ({@code [v6-address]:port} for IPv6).
     *
     * @throws IllegalArgumentException quoting the input if it is not {@code HOST:PORT}
     */
    public static Endpoint parse(String hostPort) {
        int colon = hostPort == null ? -1 : hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) throw notHostPort(hostPort);
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw notHostPort(hostPort);
        }
        if (host.isEmpty() || host.chars().anyMatch(c -> c <= ' ')) throw notHostPort(hostPort);
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw notHostPort(hostPort);
        }
        if (port < 1 || port > 65535)
            throw new IllegalArgumentException("endpoint port is not in 1..65535: " + hostPort);
        return new Endpoint(host, port);
    }

    private static IllegalArgumentException notHostPort(String hostPort) {
        return new IllegalArgumentException("endpoint is not HOST:PORT: " + hostPort);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
