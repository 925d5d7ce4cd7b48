package dev.kvs.server.internal.resp;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Redis's {@code ACL LOG}: the client port's refused logins (reason {@code auth}) and commands refused
 * for want of a permission (reason {@code command}), newest first, at most {@link #MAX_ENTRIES}
 * (Redis's {@code acllog-max-len} default) so that an attack leaves a bounded log. As in Redis, an
 * event like one of the 10 newest entries (same reason, context, object and user, within {@link
 * #GROUPING_MILLIS} of its last update) is merged into it: its count grows, its time and client are
 * the latest, and it moves to the head. Thread-safe (one lock; only refusals add).
 */
final class AclLog {
    /** Most entries kept: Redis's {@code acllog-max-len} default. */
    static final int MAX_ENTRIES = 128;
    /** Events further apart than this are not merged (Redis's {@code ACL_LOG_GROUPING_MAX_TIME_DELTA}). */
    static final long GROUPING_MILLIS = 60_000;

    private static final int SCANNED_FOR_MERGE = 10;

    private final LongSupplier clockMillis;
    /** Newest first. */
    private final LinkedList<Entry> entries = new LinkedList<>();

    private long nextId;

    /**
     * One entry, as {@code ACL LOG} shows it.
     *
     * @param count events merged into it
     * @param reason {@code auth} or {@code command}
     * @param object the command refused, or the login command ({@code AUTH}, {@code HELLO})
     * @param username the user the login asked for, or the session's user
     * @param clientInfo the last such client, as {@code CLIENT INFO} shows it
     * @param entryId unique for this node's run, from 0
     * @param createdMillis wall-clock time of its first event
     * @param updatedMillis wall-clock time of its last event
     */
    record Entry(
            long count,
            String reason,
            String object,
            String username,
            String clientInfo,
            long entryId,
            long createdMillis,
            long updatedMillis) {
        /** Where it happened: always Redis's {@code toplevel} (kvs has no MULTI or scripts). */
        String context() {
            return "toplevel";
        }

        boolean matches(String reason, String object, String username, long now) {
            return this.reason.equals(reason)
                    && Math.abs(now - updatedMillis) <= GROUPING_MILLIS
                    && this.object.equals(object)
                    && this.username.equals(username);
        }
    }

    /** @param clockMillis the wall clock, in milliseconds (tests pass their own) */
    AclLog(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    /** A login failed: {@code username} was unknown or its password wrong. */
    void failedLogin(String command, String username, String clientInfo) {
        add("auth", command, username, clientInfo);
    }

    /** {@code username}'s role does not permit {@code command}. */
    void deniedCommand(String command, String username, String clientInfo) {
        add("command", command, username, clientInfo);
    }

    private synchronized void add(String reason, String object, String username, String clientInfo) {
        long now = clockMillis.getAsLong();
        Iterator<Entry> it = entries.iterator();
        for (int i = 0; i < SCANNED_FOR_MERGE && it.hasNext(); i++) {
            Entry e = it.next();
            if (e.matches(reason, object, username, now)) {
                it.remove();
                entries.addFirst(
                        new Entry(e.count + 1, reason, object, username, clientInfo, e.entryId, e.createdMillis, now));
                return;
            }
        }
        entries.addFirst(new Entry(1, reason, object, username, clientInfo, nextId++, now, now));
        while (entries.size() > MAX_ENTRIES) entries.removeLast();
    }

    /** The {@code count} newest entries, newest first. */
    synchronized List<Entry> newest(int count) {
        return new ArrayList<>(entries.subList(0, Math.min(Math.max(count, 0), entries.size())));
    }

    /** {@code ACL LOG RESET}: forgets every entry (entry ids go on from where they were, as in Redis). */
    synchronized void reset() {
        entries.clear();
    }

    synchronized int size() {
        return entries.size();
    }

    /** The wall clock the ages are computed with. */
    long nowMillis() {
        return clockMillis.getAsLong();
    }
}
