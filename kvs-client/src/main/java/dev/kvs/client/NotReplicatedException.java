package dev.kvs.client;

/**
 * {@code -NOREPLICA}: the write <b>is</b> stored on the primary, but the backup did not confirm it
 * within the server's write timeout (the replication mode's promise was not met). The write will
 * replicate later if the link recovers; until then a disaster in the primary DC could lose it.
 */
public class NotReplicatedException extends KvsClientException {
    /** @param message the server's error text */
    public NotReplicatedException(String message) {
        super(message);
    }
}
