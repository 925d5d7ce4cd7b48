package dev.kvs.server.internal.admin;

import io.netty.util.NetUtil;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Keeps browsers from being used against the admin port: a page on another site could otherwise send
 * a form {@code POST} from the operator's browser (which is on loopback), or rebind its own DNS name to
 * {@code 127.0.0.1} and read {@code /status}. Refuses (403) a request whose {@code Origin} is present
 * and not loopback or the node's own, whose {@code Host} is not an IP literal, {@code localhost}, the
 * node's own name or an allowed one, and, without a token, a request that changes the node without
 * {@link #HEADER} (a header a browser sends cross-site only after a CORS preflight, which this port
 * never answers). Immutable, thread-safe; resolves no names.
 */
final class CrossSiteGuard {
    /** The header every admin request that changes the node must carry when no token is set. */
    static final String HEADER = "X-Kvs-Admin";

    /** Lower-case names that are this node's: its bind addresses and host name, and the allowed ones. */
    private final Set<String> ownNames;

    private final boolean token;
    private final boolean checkHost;

    /**
     * @param ownNames the node's bind addresses and host name and {@code admin.allowedHosts} (wildcard
     *     addresses are ignored)
     * @param token whether the node has an admin token (its {@code Authorization} header then already
     *     proves the request is not a browser's cross-site one)
     * @param checkHost false on an HTTPS-only port: a rebound name fails the browser's certificate check
     *     before any request is sent, and the names in the certificate need not be listed again
     */
    CrossSiteGuard(Collection<String> ownNames, boolean token, boolean checkHost) {
        Set<String> names = new TreeSet<>();
        for (String n : ownNames) {
            String h = normalise(n);
            if (!h.isEmpty() && !h.equals("0.0.0.0") && !h.equals("::") && !h.equals("[::]")) names.add(h);
        }
        this.ownNames = Set.copyOf(names);
        this.token = token;
        this.checkHost = checkHost;
    }

    /**
     * Null if the request may go on, else the refusal to answer.
     *
     * @param origin the {@code Origin} header, or null
     * @param host the {@code Host} header, or null (an HTTP/1.0 client: browsers always send one)
     * @param marker the {@link #HEADER} header, or null
     */
    AdminResponse check(String method, String path, String origin, String host, String marker) {
        String who = method + " " + path + " refused: ";
        if (origin != null && !localOrigin(origin)) {
            return AdminResponse.error(
                    403,
                    who + "Origin " + quote(origin) + " is not this node's or loopback; the admin port serves no"
                            + " web pages, so a browser on another site may not use it");
        }
        if (checkHost && host != null && !knownHost(host)) {
            return AdminResponse.error(
                    403,
                    who + "Host " + quote(host) + " is not an IP address, localhost or this node's name (DNS"
                            + " rebinding?); add the name to admin.allowedHosts if it is yours");
        }
        boolean read = method.equals("GET") || method.equals("HEAD");
        if (!read && !token && (marker == null || marker.isBlank())) {
            return AdminResponse.error(
                    403,
                    who + "a request that changes the node must carry the header " + HEADER + ": 1 (e.g. curl -H '"
                            + HEADER + ": 1' -XPOST ...), which a browser cannot send from another site");
        }
        return null;
    }

    private boolean knownHost(String header) {
        String h = hostOf(header);
        if (h.isEmpty()) return false;
        if (NetUtil.isValidIpV4Address(h)) return true;
        if (h.startsWith("[") && h.endsWith("]") && NetUtil.isValidIpV6Address(h.substring(1, h.length() - 1))) {
            return true;
        }
        return h.equals("localhost") || ownNames.contains(h);
    }

    private boolean localOrigin(String origin) {
        String h;
        try {
            URI u = new URI(origin.strip());
            if (u.getHost() == null) return false; // "null" (a sandboxed page, a file) and garbage
            h = normalise(u.getHost());
        } catch (URISyntaxException e) {
            return false;
        }
        if (h.equals("localhost") || h.equals("[::1]") || ownNames.contains(h)) return true;
        return NetUtil.isValidIpV4Address(h) && h.startsWith("127.");
    }

    /** The host of a {@code Host} header, lower case, without its port; IPv6 literals keep their brackets. */
    static String hostOf(String header) {
        String h = header.strip();
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? "" : normalise(h.substring(0, end + 1));
        }
        int colon = h.indexOf(':');
        if (colon >= 0) {
            if (h.indexOf(':', colon + 1) >= 0) return ""; // a bare IPv6 literal is not a valid Host
            h = h.substring(0, colon);
        }
        return normalise(h);
    }

    private static String normalise(String name) {
        String h = name.strip().toLowerCase(Locale.ROOT);
        if (h.endsWith(".")) h = h.substring(0, h.length() - 1);
        if (h.indexOf(':') >= 0 && !h.startsWith("[")) h = "[" + h + "]"; // an IPv6 bind address
        return h;
    }

    /** At most 100 characters of what the client sent, quoted. */
    private static String quote(String s) {
        String t = s.length() > 100 ? s.substring(0, 100) + "..." : s;
        return "\"" + t.replaceAll("[^\\x20-\\x7e]", "?").replace("\"", "'") + "\"";
    }
}
