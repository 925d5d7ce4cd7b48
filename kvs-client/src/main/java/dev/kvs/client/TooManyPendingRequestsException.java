package dev.kvs.client;

/**
 * A connection already had {@link KvsClient.Builder#maxPending(int) maxPending} requests in flight,
 * so the request was refused at once without being sent. Nothing was executed. It signals that the
 * caller issues async requests faster than the server answers them: wait for some futures before
 * issuing more, or raise {@code maxPending} or {@code connectionsPerEndpoint}.
 */
public class TooManyPendingRequestsException extends KvsClientException {
    /** @param message what was full */
    public TooManyPendingRequestsException(String message) {
        super(message);
    }
}
