package dev.kvs.server.internal.write;

import dev.kvs.replication.WriteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The writes of one {@code EXEC}, made visible to replication together: while a unit is open on a
 * thread ({@link Writes#beginUnit}), each write that thread makes through {@link Writes} orders its
 * TxIds as usual (inside the keys' locks, so per key TxId order is store order) but its order is not
 * committed; {@link #end} commits them all as one unit ({@link WriteOrder#commitUnit}): a backup
 * applies the unit's values together, so no reader of it sees half an EXEC, and a failover leaves the
 * EXEC all complete or all fenced. The
 * primary's replication therefore sees none of the EXEC's key packets until every one of its writes is
 * in the store, and, since the caller runs the EXEC with every other command excluded, their TxIds
 * follow each other (the node's own writers, such as active expiry, may still take a TxId between two).
 *
 * <p>Why a list of orders, not one {@link WriteOrder} for the whole EXEC: an order can only be aborted
 * whole, and a write inside an EXEC may fail after it ordered its TxId (the store is full when the
 * value is stored: {@code OOM}, answered in the EXEC's array while the other commands stand), so each
 * write keeps its own order and is aborted alone. One order per EXEC needs {@link WriteOrder} to abort
 * the TxIds of one step (a mark and an abort back to it). The unit is the list: its key packets carry
 * (first TxId, count), whatever order each came from.
 *
 * <p>Each write's reply waits, as before, for its own order's commit in its replication mode; the
 * future {@link #add} returns completes with it. Confined to the thread that opened it; the store's
 * locks are not held while the commits' futures complete.
 */
public final class WriteUnit {
    private final Writes writes;
    private final Thread owner = Thread.currentThread();
    private final List<WriteOrder> orders = new ArrayList<>();
    private final List<CompletableFuture<Void>> replies = new ArrayList<>();
    private boolean ended;

    WriteUnit(Writes writes) {
        this.writes = writes;
    }

    /** True if {@code thread} opened this unit: its writes belong to it. */
    boolean ownedBy(Thread thread) {
        return owner == thread;
    }

    /**
     * Takes a write's order, whose store write succeeded, to commit at {@link #end}.
     *
     * @return completes as the order's commit will
     */
    CompletableFuture<Void> add(WriteOrder order) {
        if (ended) throw new IllegalStateException("unit ended");
        CompletableFuture<Void> reply = new CompletableFuture<>();
        orders.add(order);
        replies.add(reply);
        return reply;
    }

    /** How many writes' orders the unit holds so far. */
    public int size() {
        return orders.size();
    }

    /**
     * Commits every order the unit took, in order, and closes it: later writes on this thread order and
     * commit on their own again. Call exactly once, in a {@code finally}.
     */
    public void end() {
        if (ended) return;
        ended = true;
        writes.closeUnit(this);
        if (orders.isEmpty()) return;
        // one unit: the backup makes the EXEC's writes visible together (WriteOrder.commitUnit)
        List<CompletableFuture<Void>> committed = orders.get(0).commitUnit(orders.subList(1, orders.size()));
        for (int i = 0; i < orders.size(); i++) {
            CompletableFuture<Void> reply = replies.get(i);
            committed.get(i).whenComplete((v, e) -> {
                if (e != null) reply.completeExceptionally(e);
                else reply.complete(null);
            });
        }
    }
}
