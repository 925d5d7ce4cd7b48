package dev.kvs.examples;

import dev.kvs.client.DataLostException;
import dev.kvs.client.KvsClient;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsTransaction;
import dev.kvs.client.NoPrimaryException;
import dev.kvs.client.UnfinishedKeyException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A web session store on the Java SDK: one hash per session ({@code session:<id>}, a field per
 * attribute), with a TTL that each request renews, as Spring Session's Redis repository keeps them.
 * Through a failover, a session whose last write reached the backup only as its key packet reads as
 * {@link Lookup.Status#UNFINISHED} (its attributes may still arrive) and then {@link
 * Lookup.Status#LOST}, never as an older version of itself: the application can ask the user to log
 * in again instead of serving a stale cart.
 *
 * <pre>
 * java -cp 'examples/target/classes:examples/target/lib/*' dev.kvs.examples.SessionStoreExample \
 *     127.0.0.1:6380 127.0.0.1:6381 [sessions]
 * </pre>
 */
public final class SessionStoreExample {
    /** What a lookup found: the session's attributes, or why it has none. */
    public record Lookup(Status status, Map<String, String> attributes) {
        public enum Status {
            /** Its attributes, as last written. */
            FOUND,
            /** No such session (never created, expired or ended). */
            ABSENT,
            /** After a failover: its last write's attributes have not reached the new primary yet. */
            UNFINISHED,
            /** After a failover: its last write's attributes will never arrive. */
            LOST
        }
    }

    private final KvsClient kvs;
    private final Duration ttl;

    /** @param ttl how long a session lives after its last request */
    public SessionStoreExample(KvsClient kvs, Duration ttl) {
        this.kvs = kvs;
        this.ttl = ttl;
    }

    /**
     * Creates or updates a session's attributes and renews its TTL, in one transaction: the fields and
     * the TTL apply together (a hash write keeps the key's TTL, so a new session must get one in the
     * same step, or a crash between the two would leave it immortal), and on kvs they replicate as one
     * unit.
     */
    public void save(String sessionId, Map<String, String> attributes) {
        byte[] key = key(sessionId).getBytes(StandardCharsets.UTF_8);
        Map<String, byte[]> fields = new LinkedHashMap<>();
        attributes.forEach((name, value) -> fields.put(name, value.getBytes(StandardCharsets.UTF_8)));
        try (KvsTransaction tx = kvs.transaction(List.of(), key)) {
            // nothing watched: the commit always runs; a write refused inside it comes back as its exception
            for (Object result :
                    tx.hashPut(key, fields).expire(key, ttl).commit().orElseThrow()) {
                if (result instanceof KvsClientException e) throw e;
            }
        }
    }

    /** One attribute's change (a cart's count, a last-seen time), renewing the TTL. */
    public void set(String sessionId, String attribute, String value) {
        String key = key(sessionId);
        kvs.hashes().put(key, attribute, value);
        kvs.expire(key, ttl);
    }

    /** The session's attributes, or what keeps them from being read. */
    public Lookup find(String sessionId) {
        try {
            Map<String, String> attributes = kvs.hashes().getAll(key(sessionId));
            return attributes.isEmpty()
                    ? new Lookup(Lookup.Status.ABSENT, Map.of())
                    : new Lookup(Lookup.Status.FOUND, attributes);
        } catch (UnfinishedKeyException e) {
            // the new primary knows the session's last write (its TxId) but not its attributes yet:
            // the SDK retried for unfinishedRetryDeadline; answer "try again", never an older session
            return new Lookup(Lookup.Status.UNFINISHED, Map.of());
        } catch (DataLostException e) {
            // an operator declared the write lost: the session is gone for good, ask the user to log in
            return new Lookup(Lookup.Status.LOST, Map.of());
        }
    }

    /** Ends a session (log out). */
    public void end(String sessionId) {
        kvs.delete(key(sessionId));
    }

    private static String key(String sessionId) {
        return "session:" + sessionId;
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: SessionStoreExample MAIN_HOST:PORT BACKUP_HOST:PORT [SESSIONS]");
            System.exit(2);
        }
        int sessions = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        PrintStream out = System.out;
        try (KvsClient kvs = FailoverExample.connect(args[0], args[1])) {
            SessionStoreExample store = new SessionStoreExample(kvs, Duration.ofMinutes(30));
            for (int i = 0; i < sessions; i++) {
                try {
                    store.save("s" + i, Map.of("user", "user" + i, "cart", Integer.toString(i % 7)));
                } catch (NoPrimaryException e) {
                    out.println("s" + i + ": no primary now (failover under way): " + e.getMessage());
                }
            }
            int found = 0, absent = 0, unfinished = 0, lost = 0;
            for (int i = 0; i < sessions; i++) {
                switch (store.find("s" + i).status()) {
                    case FOUND -> found++;
                    case ABSENT -> absent++;
                    case UNFINISHED -> unfinished++;
                    case LOST -> lost++;
                }
            }
            out.printf(
                    "%d sessions: %d found, %d absent, %d unfinished, %d lost%n",
                    sessions, found, absent, unfinished, lost);
        }
    }
}
