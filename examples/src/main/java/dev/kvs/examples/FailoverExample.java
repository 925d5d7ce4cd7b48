package dev.kvs.examples;

import dev.kvs.client.BusyException;
import dev.kvs.client.ConnectionLostException;
import dev.kvs.client.DataLostException;
import dev.kvs.client.FencedException;
import dev.kvs.client.FencedKeyException;
import dev.kvs.client.KvsClient;
import dev.kvs.client.KvsTimeoutException;
import dev.kvs.client.NoPrimaryException;
import dev.kvs.client.NotReplicatedException;
import dev.kvs.client.ReplicationMode;
import dev.kvs.client.UnfinishedKeyException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Java SDK through a failover: writes in {@code id-first} mode to a two-node pair, reads back
 * everything it wrote, and shows what each typed exception means for the application.
 *
 * <pre>
 * java -cp 'examples/target/classes:examples/target/lib/*' dev.kvs.examples.FailoverExample \
 *     127.0.0.1:6380 127.0.0.1:6381 [rounds]
 * </pre>
 *
 * Each second it writes one key and reads back every key written so far. Kill the primary and
 * promote the backup ({@code curl -H 'X-Kvs-Admin: 1' -XPOST localhost:8381/promote}) while it runs: writes wait for the
 * new primary and go on there; keys whose values had not reached the backup read as unfinished, then
 * as lost once declared so ({@code curl -H 'X-Kvs-Admin: 1' -XPOST localhost:8381/declare-lost}).
 */
public final class FailoverExample {

    /**
     * What a read-back found: every key written is counted in exactly one field. {@code wrong}: the
     * value read is not the one acknowledged (or is missing) and the node does not know: silent loss,
     * never in {@code id-first} or {@code sync} as long as both nodes keep their data.
     */
    public record Tally(int complete, int wrong, int unfinished, int lost) {
        @Override
        public String toString() {
            return complete + " complete, " + unfinished + " unfinished, " + lost + " lost, " + wrong
                    + " wrong or missing";
        }
    }

    private final KvsClient kvs;
    private final PrintStream out;
    private final Duration waitForPrimary;
    private final Map<String, String> written = new LinkedHashMap<>();
    private final AtomicInteger noPrimaryRetries = new AtomicInteger();

    /**
     * @param waitForPrimary how long a write waits for a primary (a failover takes an operator's
     *     {@code /promote}, or {@code failover.autoPromoteAfterMs}) before giving up
     */
    public FailoverExample(KvsClient kvs, PrintStream out, Duration waitForPrimary) {
        this.kvs = kvs;
        this.out = out;
        this.waitForPrimary = waitForPrimary;
    }

    /** The client as an application builds it: main DC first, then the backup DC. */
    public static KvsClient connect(String mainDc, String backupDc) {
        return KvsClient.builder()
                .endpoints(mainDc, backupDc)
                .mode(ReplicationMode.ID_FIRST) // acknowledged once the key's identifier reached the backup
                .unfinishedRetryDeadline(Duration.ofMillis(500)) // how long -UNFINISHED is retried
                .build();
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: FailoverExample MAIN_HOST:PORT BACKUP_HOST:PORT [ROUNDS]");
            System.exit(2);
        }
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        try (KvsClient kvs = connect(args[0], args[1])) {
            FailoverExample example = new FailoverExample(kvs, System.out, Duration.ofMinutes(1));
            for (int i = 0; i < rounds; i++) {
                example.write("example:" + i, "value " + i);
                System.out.println("via " + kvs.activeEndpoint() + ": " + example.readBack());
                Thread.sleep(1000);
            }
        }
    }

    /**
     * Writes one key; returns whether it is stored. Retries only what was certainly not executed.
     */
    public boolean write(String key, String value) {
        long deadline = System.nanoTime() + waitForPrimary.toNanos();
        Duration backoff = Duration.ofMillis(50);
        boolean waiting = false;
        while (true) {
            try {
                kvs.put(key, value);
                written.put(key, value);
                return true;
            } catch (NoPrimaryException | BusyException | FencedException e) {
                // Nothing was executed: no node is primary (the failover is under way), the primary's
                // replication queue was full, or a switchover is in progress. Safe to retry.
                if (e instanceof NoPrimaryException) {
                    noPrimaryRetries.incrementAndGet();
                    if (!waiting)
                        out.println(key + ": no primary, waiting up to " + waitForPrimary + ": " + e.getMessage());
                    waiting = true;
                }
                if (System.nanoTime() > deadline) {
                    out.println(key + ": giving up, " + e.getMessage());
                    return false;
                }
                sleep(backoff);
                backoff = min(backoff.multipliedBy(2), Duration.ofSeconds(1));
            } catch (NotReplicatedException e) {
                // Stored on the primary, but the backup did not confirm it in time: not safe from a
                // disaster in the main DC yet. Do not resend; it replicates when the link recovers.
                written.put(key, value);
                out.println(key + ": stored, not yet on the backup");
                return true;
            } catch (ConnectionLostException | KvsTimeoutException e) {
                // May or may not have been applied: resending could overwrite a newer value, so the
                // SDK never does it silently. Here we give up and read the key later to find out.
                out.println(key + ": outcome unknown, " + e.getMessage());
                return false;
            } catch (FencedKeyException e) {
                // The key's previous write was lost (or is unfinished) in a failover: the new primary
                // refuses to overwrite it until an operator resolves it (POST /resolve?key=...).
                out.println(key + ": fenced since write " + e.txId() + ", needs an operator");
                return false;
            }
        }
    }

    /** Reads back every key written so far. */
    public Tally readBack() {
        int complete = 0, wrong = 0, unfinished = 0, lost = 0;
        for (Map.Entry<String, String> e : written.entrySet()) {
            try {
                if (e.getValue().equals(kvs.get(e.getKey()))) complete++;
                else wrong++;
            } catch (UnfinishedKeyException u) {
                // After a failover: the new primary knows the key's latest write (TxId) but its value
                // has not arrived yet; the SDK already retried for unfinishedRetryDeadline. Try later.
                unfinished++;
            } catch (DataLostException l) {
                // The value will never arrive: the application knows exactly which write it lost.
                lost++;
            }
        }
        return new Tally(complete, wrong, unfinished, lost);
    }

    /** The keys this example has written and had acknowledged. */
    public int written() {
        return written.size();
    }

    /** How many times a write found no primary and waited for one. */
    public int noPrimaryRetries() {
        return noPrimaryRetries.get();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
