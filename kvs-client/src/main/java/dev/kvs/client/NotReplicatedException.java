package dev.kvs.client;

/**
 * {@code -NOREPLICA}: the write <b>is</b> stored on the primary, but the backup did not confirm it
 * (the replication mode's promise was not met): not within the server's write timeout, or, answered
 * at once, because the backup's store refuses values ({@code -NOREPLICA backup cannot store values:
 * store full ...}). The write will replicate later, once the link recovers or the backup has room;
 * until then a disaster in the primary DC could lose it.
 */
public class NotReplicatedException extends KvsClientException {
    /** @param message the server's error text */
    public NotReplicatedException(String message) {
        super(message);
    }
}
