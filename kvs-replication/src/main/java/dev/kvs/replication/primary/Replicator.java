package dev.kvs.replication.primary;

import dev.kvs.core.KvStore;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.core.ValueType;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.BackupCannotStoreException;
import dev.kvs.replication.ReplicationBusyException;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationTimeoutException;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.StructureEffect;
import dev.kvs.replication.WriteOrder;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.wire.Frame.Op;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A primary's replication to one backup: orders writes ({@link KeyLog}), streams their key packets
 * on the key channel and their values on the value streams, and answers each write when its mode
 * allows. Thread-safe.
 */
public final class Replicator implements ReplicationLink {
    private final ReplicatorConfig config;
    private final KeyLog keyLog;
    private final PendingValues pending;
    /** {@code id-first-after-reply} answers at once only while key acks are this recent. */
    private final long afterReplyWindowNanos;

    private final KeyChannel keyChannel;
    private final List<ValueChannel> valueChannels = new ArrayList<>();
    private final ValueShipper shipper;
    private final StagedValues staged;
    private final CommitWakeup wakeup;
    /** One task per wake-up on the key channel's event loop, see {@link #wake}. */
    private final Runnable turn = this::turn;

    private final AtomicBoolean turnScheduled = new AtomicBoolean();
    private volatile boolean valuesDue;

    private final RefusedValues refusals;
    /** EXECs committed as one unit ({@link Order#commitUnit}). */
    private final LongAdder unitsCommitted = new LongAdder();

    private final ScheduledFuture<?> refusalRetries;
    private final WriteTimeouts timeouts;
    private final BooleanSupplier mayAcknowledge;
    private final Thread shipperThread;
    private final ExecutorService resyncExecutor;
    private final String peerText;
    private final WriteStages stages;

    /** A builder of a {@link Replicator}: what to replicate, to whom, and who hears of the peer's answers. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds and starts a {@link Replicator}. */
    public static final class Builder {
        private ReplicatorConfig config = ReplicatorConfig.defaults();
        private KvStore store;
        private String cluster = "kvs";
        private String node = "kvs";
        private String shard = "";
        private long epoch = 1;
        private long lastSeq;
        private InetSocketAddress peer;
        private EventLoopGroup group;
        private LongConsumer onStaleEpoch = e -> {};
        private Runnable onConfirmed = () -> {};
        private LinkSecurity security = LinkSecurity.NONE;
        private Supplier<String> clientAddress = () -> "";
        private LongSupplier arrivalClock = System::nanoTime;
        private WriteStages stages = WriteStages.OFF;
        private BooleanSupplier mayAcknowledge = () -> true;

        private Builder() {}

        /**
         * Where the stages of each write are marked as replication passes them ({@code ./kvs bench jmh
         * --stages}): give the backup's {@code ReplicationServer} the same. Default: {@link WriteStages#OFF}.
         */
        public Builder stages(WriteStages stages) {
            this.stages = Objects.requireNonNull(stages, "stages == null");
            return this;
        }

        /**
         * Whether this primary may acknowledge writes now (a coordinated primary's lease: a volatile read).
         * While it does not, every write still waiting for the backup's confirmation fails within a sweep
         * period (at most 100 ms) with a {@link ReplicationTimeoutException}, and so does one the backup
         * confirms meanwhile: its client is answered at the lapse, not at the end of the write timeout.
         * Default: always.
         */
        public Builder acknowledgeWhile(BooleanSupplier mayAcknowledge) {
            this.mayAcknowledge = Objects.requireNonNull(mayAcknowledge, "mayAcknowledge == null");
            return this;
        }

        /**
         * This node's client (RESP) address, {@code host:port}, sent to the backup in the key channel's
         * {@code Hello} so that it can name its primary in {@code -NOTPRIMARY}; a wildcard host ({@code
         * 0.0.0.0}, {@code ::}) is replaced by the address the key channel leaves from. Asked at each
         * connection: empty means none, null not known yet (the {@code Hello} waits up to a second for
         * it, e.g. for an ephemeral client port to be bound). Default: none.
         */
        public Builder clientAddress(Supplier<String> clientAddress) {
            this.clientAddress = Objects.requireNonNull(clientAddress, "clientAddress == null");
            return this;
        }

        /**
         * How each connection is secured: mutual TLS and/or the cluster secret proven before its {@code
         * Hello}. Default: {@link LinkSecurity#NONE}.
         */
        public Builder security(LinkSecurity security) {
            this.security = Objects.requireNonNull(security, "security == null");
            return this;
        }

        /** Default {@link ReplicatorConfig#defaults()}. */
        public Builder config(ReplicatorConfig config) {
            this.config = Objects.requireNonNull(config, "config == null");
            return this;
        }

        /** The store values are read from (required). */
        public Builder store(KvStore store) {
            this.store = Objects.requireNonNull(store, "store == null");
            return this;
        }

        /** The shard this node is a member of, sent in the handshake; empty (the default) without one. */
        public Builder shard(String shard) {
            this.shard = Objects.requireNonNull(shard, "shard == null");
            return this;
        }

        /** The cluster and this node's name, sent in the handshake. Default {@code kvs}, {@code kvs}. */
        public Builder identity(String cluster, String node) {
            this.cluster = Objects.requireNonNull(cluster, "cluster == null");
            this.node = Objects.requireNonNull(node, "node == null");
            return this;
        }

        /** The epoch and the last seq of it already used; writes continue after it. Default 1, 0. */
        public Builder startAfter(long epoch, long lastSeq) {
            if (epoch < 1 || lastSeq < 0) throw new IllegalArgumentException("epoch < 1 or lastSeq < 0");
            this.epoch = epoch;
            this.lastSeq = lastSeq;
            return this;
        }

        /** The backup's replication address (required). */
        public Builder peer(InetSocketAddress peer) {
            this.peer = Objects.requireNonNull(peer, "peer == null");
            return this;
        }

        /** The clock the value linger reads the arrivals of values with: tests only. */
        Builder arrivalClock(LongSupplier clock) {
            arrivalClock = clock;
            return this;
        }

        /** The event loops of the key and value channels (required). */
        public Builder group(EventLoopGroup group) {
            this.group = Objects.requireNonNull(group, "group == null");
            return this;
        }

        /**
         * Called (on an I/O thread) when the backup reports a higher epoch, or that it is a primary
         * itself. Default: nothing.
         */
        public Builder onStaleEpoch(LongConsumer onStaleEpoch) {
            this.onStaleEpoch = Objects.requireNonNull(onStaleEpoch, "onStaleEpoch == null");
            return this;
        }

        /** Called (on an I/O thread) at every successful handshake with the backup. Default: nothing. */
        public Builder onConfirmed(Runnable onConfirmed) {
            this.onConfirmed = Objects.requireNonNull(onConfirmed, "onConfirmed == null");
            return this;
        }

        /**
         * Starts replicating; connects in the background and keeps reconnecting.
         *
         * @throws IllegalStateException if the store, peer or group is missing
         */
        public Replicator start() {
            if (store == null) throw new IllegalStateException("store is missing");
            if (peer == null) throw new IllegalStateException("peer is missing");
            if (group == null) throw new IllegalStateException("group is missing");
            return new Replicator(this);
        }
    }

    private Replicator(Builder b) {
        ReplicatorConfig config = b.config;
        KvStore store = b.store;
        InetSocketAddress peer = b.peer;
        EventLoopGroup group = b.group;
        long epoch = b.epoch;
        long lastSeq = b.lastSeq;
        this.config = config;
        this.keyLog = new KeyLog(epoch, lastSeq, config.maxUnackedKeys());
        this.pending = new PendingValues(
                config.maxPendingValues(),
                config.maxPendingValueBytes(),
                new ValueLag(config.maxValueLag().toNanos(), config.chunkBytes(), System::nanoTime),
                b.arrivalClock);
        this.peerText = peer.getHostString() + ":" + peer.getPort();
        int maxQuantum = Math.min(config.chunkBytes(), config.valueBatchBytes());
        FlowController flow =
                new FlowController(config.flowControl(), maxQuantum, config.valueStreams(), System.nanoTime());
        PrimaryLink link = new PrimaryLink(
                config,
                store,
                keyLog,
                pending,
                flow,
                b.cluster,
                b.node,
                peer,
                b.onStaleEpoch::accept,
                b.onConfirmed,
                b.security,
                b.clientAddress,
                b.stages,
                b.shard);
        this.stages = b.stages;
        this.resyncExecutor = Executors.newSingleThreadExecutor(r -> daemon(r, "kvs-resync"));
        this.afterReplyWindowNanos = config.heartbeatInterval().isZero()
                ? TimeUnit.SECONDS.toNanos(1)
                : config.heartbeatInterval().toNanos();
        this.keyChannel = new KeyChannel(link, group, resyncExecutor);
        this.refusals = new RefusedValues(pending);
        for (int i = 0; i < config.valueStreams(); i++) valueChannels.add(new ValueChannel(link, refusals, group, i));
        this.refusalRetries = group.next()
                .scheduleWithFixedDelay(
                        refusals::retry, RefusedValues.RETRY_NANOS, RefusedValues.RETRY_NANOS, TimeUnit.NANOSECONDS);
        this.staged = new StagedValues(pending::signal, stages);
        this.shipper = new ValueShipper(link, valueChannels, staged);
        this.wakeup = new CommitWakeup(this::wake, stages);
        this.mayAcknowledge = b.mayAcknowledge;
        this.timeouts = new WriteTimeouts(config.writeTimeout().toMillis(), group.next(), mayAcknowledge);
        this.shipperThread = daemon(shipper, "kvs-value-shipper");
        shipperThread.start();
        keyChannel.connect();
        valueChannels.forEach(ValueChannel::connect);
    }

    /**
     * Writes were committed (once per turn of a client event loop, or per commit from a plain thread): one
     * task on the key channel's event loop sends their key packets, then ships their values if {@code values}
     * and the link is idle ({@link ValueShipper#shipNow}). The shipper thread is woken only for what that
     * leaves: on an idle link a value leaves without a thread hand-off. Without a key connection the shipper
     * is woken at once.
     */
    private void wake(boolean values) {
        if (values) valuesDue = true; // before the flag: a scheduled turn sees it
        EventLoop loop = keyChannel.eventLoop();
        if (loop == null) {
            keyChannel.wakeup();
            if (values) pending.signal();
            return;
        }
        if (turnScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(turn);
            } catch (RejectedExecutionException e) {
                turnScheduled.set(false);
                pending.signal(); // the loop is shutting down
            }
        }
    }

    private void turn() {
        turnScheduled.set(false); // first: a commit after this schedules its own turn
        stages.mark(WriteStages.Stage.REPLICATION_TURN);
        boolean values = valuesDue;
        if (values) valuesDue = false;
        keyChannel.pumpHere();
        if (values && !shipper.shipNow()) pending.signal();
    }

    @Override
    public void shipWhileStaged(byte[] key, ValueStage stage) {
        if (config.cutThrough()) staged.open(key, stage);
    }

    /** Values whose first bytes went to the backup before their commit, bound to it afterwards (cut-through). */
    long valuesCutThrough() {
        return staged.boundCount();
    }

    /** Values whose bytes went ahead of their commit and that the backup was told to drop. */
    long stagedValuesCancelled() {
        return staged.cancelledCount();
    }

    /** Value bytes sent before their write's commit (cut-through), in all. */
    long stagedBytesSent() {
        return staged.bytesSent();
    }

    /** Values registered for cut-through now. */
    int valuesStaged() {
        return staged.size();
    }

    /** EXECs committed as one unit; for tests. */
    long unitsCommitted() {
        return unitsCommitted.sum();
    }

    /** The structure writes' effects waiting to ship instead of images; for tests. */
    PendingEffects effects() {
        return pending.effects();
    }

    /** Values shipped by the replication event loop, without waking the shipper thread. */
    long valuesShippedNow() {
        return shipper.valuesShippedNow();
    }

    /** First chunks of large values sent by the replication event loop. */
    long firstChunksShippedNow() {
        return shipper.firstChunksShippedNow();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public WriteOrder begin(ReplicationMode mode) {
        if (keyLog.hasRoom() && pending.hasRoom()) return new Order(mode); // the common case: no lock
        long timeout = config.writeTimeout().toNanos();
        long start = System.nanoTime();
        try {
            if (!keyLog.awaitRoom(timeout)) {
                throw new ReplicationBusyException("" + config.maxUnackedKeys()
                        + " key packets unacknowledged by the backup for "
                        + config.writeTimeout().toMillis()
                        + " ms (maxUnackedKeys); nothing was written");
            }
            if (!pending.awaitRoom(timeout)) throw busy();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReplicationBusyException("interrupted while waiting for replication room");
        } finally {
            heldForRoom(System.nanoTime() - start);
        }
        return new Order(mode);
    }

    /**
     * Never waits. Only the key and value bounds refuse here, not the bound in time: a client's event loop
     * has just seen {@link #hasRoom} and held the write while it was false, and the bound in time, which
     * moves with the clock and with every other loop's writes, must not refuse a write that found room a
     * moment ago. The node's own writes (active expiry's deletes, an operator's resolutions) are not held by it
     * either.
     */
    @Override
    public WriteOrder beginNow(ReplicationMode mode) {
        if (!keyLog.hasRoom() || !pending.hasRoomIgnoringLag()) {
            throw new ReplicationBusyException(
                    "replication to the backup is at its bounds (unacknowledged keys or unshipped values);"
                            + " nothing was written");
        }
        return new Order(mode);
    }

    /** Why the values' bounds refused a write for the whole write timeout. */
    private ReplicationBusyException busy() {
        ReplicatorStatus s = status();
        String bound = pending.hasRoomIgnoringLag()
                ? "the oldest is " + s.oldestPendingValueMillis() + " ms old and those pending would take "
                        + s.valueLag().projectedLagMillis() + " ms to ship (maxValueLagMs "
                        + config.maxValueLag().toMillis() + ")"
                : "maxPendingValues/maxPendingValueBytes";
        return new ReplicationBusyException("" + s.pendingValues() + " values (" + s.pendingValueBytes()
                + " bytes) not yet on the backup for " + config.writeTimeout().toMillis() + " ms; " + bound
                + "; nothing was written");
    }

    @Override
    public void heldForRoom(long waitedNanos) {
        pending.lag().held(waitedNanos);
    }

    private final class Order implements WriteOrder {
        private final ReplicationMode mode;
        /** The TxIds ordered, each a key packet. */
        private final List<TxId> txIds = new ArrayList<>(1);
        /** The values to ship: key, TxId, length (a RENAME ships two, a FLUSH none). */
        private final List<byte[]> keys = new ArrayList<>(1);

        private final List<TxId> valueTxIds = new ArrayList<>(1);
        private final List<Integer> lengths = new ArrayList<>(1);

        Order(ReplicationMode mode) {
            this.mode = mode;
        }

        @Override
        public TxId put(byte[] key, int valueLength, int checksum, long expireAtMillis) {
            pending.effects().broken(key);
            return order(Op.PUT, key, valueLength, checksum, expireAtMillis);
        }

        @Override
        public TxId putStructure(byte[] key, ValueType type, long expireAtMillis) {
            return putStructure(key, type, expireAtMillis, null);
        }

        @Override
        public TxId putStructure(byte[] key, ValueType type, long expireAtMillis, StructureEffect effect) {
            if (!type.isStructure()) throw new IllegalArgumentException("not a structure: " + type);
            TxId t = order(Op.writing(type), key, 0, 0, expireAtMillis);
            // under the key's lock, so a key's effects are added in TxId order
            if (effect == null) pending.effects().broken(key);
            else pending.effects().add(key, t, Op.writing(type), expireAtMillis, effect);
            return t;
        }

        @Override
        public TxId delete(byte[] key) {
            pending.effects().broken(key);
            return order(Op.DELETE, key, 0, 0, 0);
        }

        private TxId order(Op op, byte[] key, int len, int crc, long expireAtMillis) {
            // in async mode the backup does not fence the key (that is the baseline's risk); it only
            // learns that a value is on its way, so that older values stop counting once it has landed
            TxId t = mode == ReplicationMode.ASYNC
                    ? keyLog.reserve(Op.ASYNC, key, 0, 0, 0)
                    : keyLog.reserve(op, key, len, crc, expireAtMillis);
            txIds.add(t);
            ship(key, t, len);
            return t;
        }

        private void ship(byte[] key, TxId t, int len) {
            keys.add(key);
            valueTxIds.add(t);
            lengths.add(len);
        }

        @Override
        public TxId flush() {
            // a key packet in every mode: no value could carry a flush to the backup
            TxId t = keyLog.reserve(Op.FLUSH, null, 0, 0);
            txIds.add(t);
            return t;
        }

        @Override
        public TxId rename(byte[] source, byte[] key, int valueLength, int checksum, long expireAtMillis) {
            pending.effects().broken(source);
            pending.effects().broken(key);
            if (mode == ReplicationMode.ASYNC) {
                // no RENAME in async mode (nothing is fenced): the delete and the value travel as two
                // async writes, each with its own TxId (acks name TxIds), so the backup may apply one
                // before the other
                TxId deleted = keyLog.reserve(Op.ASYNC, source, 0, 0);
                txIds.add(deleted);
                ship(source, deleted, 0);
                TxId t = keyLog.reserve(Op.ASYNC, key, 0, 0);
                txIds.add(t);
                ship(key, t, valueLength);
                return t;
            }
            TxId t = keyLog.reserve(Op.RENAME, key, valueLength, checksum, expireAtMillis, source);
            txIds.add(t);
            // only the value is shipped, again under its new name at t: the backup may not have the
            // source's value yet (it applies the rename from its own copy when it has; this then arrives
            // superseded). The source's delete needs no value: the backup writes its tombstone at t from
            // the key packet. One value per TxId: value acks name TxIds only.
            ship(key, t, valueLength);
            return t;
        }

        private Replicator replicator() {
            return Replicator.this;
        }

        /**
         * The orders of one EXEC as a unit (see {@link WriteOrder#commitUnit}): the key packets are marked
         * with it before any is committed, the values are tracked at once (bounds, sync waiters) but held
         * ({@link PendingValues#addHeld}) until the unit's last key packet is acknowledged, or its
         * acknowledgement fails (replication stopped): a held value is never lost, it ships then as any
         * other. A structure write in a unit ships its image: the backup holds a unit's values until all
         * are there, and an effect it held might have to be refused.
         */
        @Override
        public List<CompletableFuture<Void>> commitUnit(List<WriteOrder> later) {
            List<Order> unit = new ArrayList<>(1 + later.size());
            unit.add(this);
            for (WriteOrder o : later) {
                if (!(o instanceof Order order) || order.replicator() != Replicator.this) {
                    return WriteOrder.super.commitUnit(later); // not all ours: each on its own
                }
                unit.add(order);
            }
            List<TxId> all = new ArrayList<>();
            for (Order o : unit) all.addAll(o.txIds);
            if (all.size() < 2) return WriteOrder.super.commitUnit(later);
            keyLog.markUnit(all);
            List<byte[]> heldKeys = new ArrayList<>();
            for (Order o : unit) {
                for (int i = 0; i < o.keys.size(); i++) {
                    pending.effects().broken(o.keys.get(i));
                    pending.addHeld(o.keys.get(i), o.valueTxIds.get(i), o.lengths.get(i));
                    heldKeys.add(o.keys.get(i));
                }
            }
            // registered before the packets are committed, so before any can be acknowledged
            keyLog.whenAcked(all.get(all.size() - 1)).whenComplete((v, e) -> {
                for (byte[] k : heldKeys) pending.release(k);
            });
            unitsCommitted.increment();
            List<CompletableFuture<Void>> replies = new ArrayList<>(unit.size());
            for (Order o : unit) {
                try {
                    replies.add(o.commit(true));
                } catch (RuntimeException e) {
                    replies.add(CompletableFuture.failedFuture(e));
                }
            }
            return replies;
        }

        @Override
        public CompletableFuture<Void> commit() {
            return commit(false);
        }

        /** Commits this order; {@code held}: its values were added held, as part of a unit. */
        private CompletableFuture<Void> commit(boolean held) {
            stages.mark(WriteStages.Stage.COMMITTED);
            for (TxId t : txIds) keyLog.commit(t);
            boolean queued = false;
            // sync: each value's waiter is registered with it, so the shipper knows, as soon as it can take
            // the value, that a write waits for it (such a value does not linger)
            CompletableFuture<?>[] applied =
                    mode == ReplicationMode.SYNC ? new CompletableFuture<?>[keys.size() + 1] : null;
            for (int i = 0; i < keys.size(); i++) {
                if (held) {
                    if (applied != null) applied[i] = pending.whenApplied(keys.get(i), valueTxIds.get(i));
                } else if (applied != null) {
                    applied[i] = pending.addAwaited(keys.get(i), valueTxIds.get(i), lengths.get(i));
                    queued = true;
                } else {
                    queued |= pending.addQuietly(keys.get(i), valueTxIds.get(i), lengths.get(i));
                }
            }
            wakeup.committed(queued); // key packets, then values (see wake); from a client loop, once per turn
            if (txIds.isEmpty()) return CompletableFuture.completedFuture(null);
            TxId last = txIds.get(txIds.size() - 1);
            if (mode != ReplicationMode.ASYNC) {
                // the backup's store refuses values: no acknowledgement whose value could not land (the
                // write is on this node, ordered, and its value replicates once the backup has room)
                BackupCannotStoreException refusing = refusals.refusal(last);
                if (refusing != null) return CompletableFuture.failedFuture(refusing);
            }
            CompletableFuture<Void> f;
            switch (mode) {
                case ID_FIRST -> f = keyLog.whenAcked(txIds.get(txIds.size() - 1));
                case ID_FIRST_AFTER_REPLY -> {
                    // answered at once only while key packets flow (streaming, and the oldest unacked one
                    // sent less than a heartbeat interval ago): otherwise answering would make the
                    // undetected-loss window as long as the outage, so wait like id-first
                    if (keyChannel.state() == KeyChannel.State.STREAMING
                            && keyLog.oldestUnackedAgeNanos() < afterReplyWindowNanos)
                        return CompletableFuture.completedFuture(null);
                    f = keyLog.whenAcked(txIds.get(txIds.size() - 1));
                }
                case SYNC -> {
                    // every value applied, and the last key packet acknowledged (a FLUSH has no value:
                    // the backup acknowledges it once its store is flushed)
                    applied[keys.size()] = keyLog.whenAcked(txIds.get(txIds.size() - 1));
                    f = CompletableFuture.allOf(applied);
                }
                default -> {
                    return CompletableFuture.completedFuture(null);
                }
            }
            if (f.isDone() && mayAcknowledge.getAsBoolean()) return f;
            long ms = config.writeTimeout().toMillis();
            return timeouts.watch(f).handle((v, e) -> {
                boolean withdrawn = e instanceof WriteTimeouts.Withdrawn
                        || (e instanceof CompletionException c && c.getCause() instanceof WriteTimeouts.Withdrawn);
                if (withdrawn || (e == null && !mayAcknowledge.getAsBoolean())) {
                    throw new CompletionException(new ReplicationTimeoutException(
                            last,
                            "write " + last + " is on the primary, but this primary may no longer acknowledge"
                                    + " writes (its lease lapsed: it is cut off from ZooKeeper, and its backup"
                                    + " may be promoted); it survives a failover only if its "
                                    + (mode == ReplicationMode.SYNC ? "value" : "key packet")
                                    + " reached the backup"));
                }
                if (e == null) {
                    // a key packet acknowledged while the backup's store refuses values: the value may
                    // never land (a sync write's value did land: it is confirmed)
                    BackupCannotStoreException refusing = mode == ReplicationMode.SYNC ? null : refusals.refusal(last);
                    if (refusing != null) throw new CompletionException(refusing);
                    return null;
                }
                Throwable cause = e instanceof CompletionException ? e.getCause() : e;
                if (cause instanceof TimeoutException) {
                    throw new CompletionException(new ReplicationTimeoutException(
                            last,
                            "write " + last + " is on the primary but the backup did not confirm its "
                                    + (mode == ReplicationMode.SYNC ? "value" : "key packet") + " within " + ms
                                    + " ms; it is replicated when the link heals; if the backup is promoted"
                                    + " before that, failback hands it over or rolls it back (GET /failback)"));
                }
                throw e instanceof CompletionException c ? c : new CompletionException(cause);
            });
        }

        @Override
        public CompletableFuture<Void> confirmed() {
            if (txIds.isEmpty()) return CompletableFuture.completedFuture(null);
            return switch (mode) {
                case ID_FIRST, ID_FIRST_AFTER_REPLY -> keyLog.whenAcked(txIds.get(txIds.size() - 1));
                case SYNC, ASYNC -> {
                    CompletableFuture<?>[] all = new CompletableFuture<?>[txIds.size()];
                    for (int i = 0; i < all.length; i++) all[i] = pending.whenApplied(keys.get(i), txIds.get(i));
                    yield CompletableFuture.allOf(all);
                }
            };
        }

        @Override
        public void abort() {
            for (TxId t : txIds) keyLog.abort(t);
            keyChannel.wakeup();
        }
    }

    @Override
    public boolean hasRoom() {
        return keyLog.hasRoom() && pending.hasRoom();
    }

    @Override
    public boolean hasRoom(long valueBytes) {
        return keyLog.hasRoom() && pending.hasRoom(valueBytes);
    }

    @Override
    public long writeTimeoutMillis() {
        return config.writeTimeout().toMillis();
    }

    @Override
    public TxId lastTxId() {
        return keyLog.lastTxId();
    }

    @Override
    public long epoch() {
        return keyLog.epoch();
    }

    @Override
    public ReplicatorStatus status() {
        int up = (int) valueChannels.stream().filter(ValueChannel::ready).count();
        KeyChannel.State state = keyChannel.state();
        int refusing = refusals.refusing();
        return new ReplicatorStatus(
                state == KeyChannel.State.STREAMING && refusing > 0
                        ? ReplicatorStatus.DEGRADED
                        : state.name().toLowerCase(Locale.ROOT),
                peerText,
                keyLog.lastTxId(),
                keyLog.ackedTxId(),
                keyLog.unacked(),
                pending.count(),
                pending.bytes(),
                pending.conflated(),
                shipper.valuesShipped(),
                shipper.bytesShipped(),
                pending.abandonedCount(),
                staged.boundCount(),
                shipper.failures(),
                up,
                keyChannel.resyncs(),
                keyChannel.connections(),
                keyLog.ackLatencyMicros(),
                pending.oldestAgeMillis(),
                shipper.flowControlStatus(),
                refusing,
                refusals.snapshot(),
                keyChannel.resyncStatus(),
                pending.lagStatus());
    }

    /**
     * Planned switchover: asks the backup to take over as primary in {@code epoch}. Call it only once
     * writes are stopped and {@link #status()} shows every key and value acknowledged.
     *
     * @return true if the request reached a streaming key channel
     */
    @Override
    public boolean handOver(long epoch, Duration timeout) throws InterruptedException {
        return keyChannel.handOver(epoch, timeout.toMillis());
    }

    @Override
    public void close() {
        refusalRetries.cancel(false);
        timeouts.close();
        shipper.stop();
        shipperThread.interrupt();
        keyChannel.close();
        valueChannels.forEach(ValueChannel::close);
        resyncExecutor.shutdownNow();
        // writes still waiting for the backup are answered now: they are on this node only
        ReplicationTimeoutException stopped = new ReplicationTimeoutException(
                keyLog.lastTxId(),
                "replication to " + peerText + " stopped (this node was demoted or is shutting down) before the"
                        + " backup confirmed the write: it is on this node only; if another node is the primary"
                        + " now, failback hands it over or rolls it back (GET /failback)");
        keyLog.failAll(stopped);
        pending.failAll(stopped);
    }
}
