package dev.kvs.client.internal;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the endpoint for each attempt of a request: the most preferred one that is eligible and has
 * not refused this request; if every such one is suspended, the most preferred one that has not
 * refused it (so a request is never failed without trying each endpoint at least once). A {@code
 * -NOTPRIMARY} reply that names one of the endpoints as the primary sends the next attempt there
 * ({@link Call}), suspended or not.
 */
final class Router {
    private static final Logger log = LoggerFactory.getLogger(Router.class);

    private final List<EndpointPool> pools;
    private volatile EndpointPool active;

    Router(List<EndpointPool> pools) {
        this.pools = List.copyOf(pools);
        this.active = pools.get(0);
    }

    int size() {
        return pools.size();
    }

    List<EndpointPool> pools() {
        return pools;
    }

    /** The endpoint at {@code index} in order of preference. */
    EndpointPool pool(int index) {
        return pools.get(index);
    }

    /**
     * The index of the endpoint for the next attempt, or -1 if every endpoint refused this request;
     * {@code refused} is indexed like {@link #pools()}.
     */
    int select(boolean[] refused) {
        long now = System.nanoTime();
        for (int i = 0; i < pools.size(); i++) {
            if (!refused[i] && pools.get(i).eligible(now)) return i;
        }
        for (int i = 0; i < pools.size(); i++) {
            if (!refused[i]) return i;
        }
        return -1;
    }

    /** The index of endpoint {@code e} (its host compared ignoring case), or -1 if it is not one of ours. */
    int find(Endpoint e) {
        for (int i = 0; i < pools.size(); i++) {
            Endpoint p = pools.get(i).endpoint;
            if (p.port() == e.port() && p.host().equalsIgnoreCase(e.host())) return i;
        }
        return -1;
    }

    /** {@code p} answered a request as a primary. */
    void served(EndpointPool p) {
        p.available();
        EndpointPool previous = active;
        if (previous != p) {
            active = p;
            log.info("kvs requests now go to {} (were going to {})", p.endpoint, previous.endpoint);
        }
    }

    /** The endpoint that most recently answered as a primary. */
    EndpointPool active() {
        return active;
    }

    String activeEndpoint() {
        return active.endpoint.toString();
    }
}
