package dev.kvs.server.internal;

import dev.kvs.core.TxId;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.ResyncStatus;
import dev.kvs.replication.ValueLagStatus;
import dev.kvs.replication.ValueRefusals;
import dev.kvs.replication.WriteOrder;
import java.util.Map;

/** A replication that only reports a fixed status: for what {@code INFO}, {@code /status} and metrics show. */
public final class FixedStatusReplication implements ReplicationLink {
    /** A streaming primary whose flow control and bound on the value lag are on, every number distinct. */
    public static final ReplicatorStatus STREAMING_WITH_FLOW_CONTROL = new ReplicatorStatus(
            "streaming",
            "dc2.example:7380",
            TxId.of(3, 9),
            TxId.of(3, 8),
            1,
            5,
            5_242_880,
            2,
            10,
            10_485_760,
            4,
            3,
            6,
            2,
            0,
            1,
            40_000,
            1_250,
            new FlowControlStatus(
                    true, "steady", 262_144, 131_072, 1_000_000, 20_150, 3_500, 2_000, 10_000, 987_654, true, 7),
            0,
            ValueRefusals.none(),
            ResyncStatus.none(),
            new ValueLagStatus(5_000, 3_200, 1_048_576, 12, 3_456));

    /** A streaming primary whose backup's store refuses values: the link is degraded. */
    public static final ReplicatorStatus DEGRADED = new ReplicatorStatus(
            ReplicatorStatus.DEGRADED,
            "dc2.example:7380",
            TxId.of(3, 9),
            TxId.of(3, 9),
            0,
            42,
            43_008,
            0,
            60,
            61_440,
            0,
            0,
            0,
            2,
            0,
            1,
            40_000,
            3_000,
            FlowControlStatus.off(),
            41,
            new ValueRefusals(
                    "store full",
                    "store full: 200 entries (maxEntries 200)",
                    Map.of("store full", 57L, "value too large", 1L, "store error", 0L)),
            ResyncStatus.none(),
            ValueLagStatus.off());

    private final ReplicatorStatus status;

    public FixedStatusReplication(ReplicatorStatus status) {
        this.status = status;
    }

    @Override
    public boolean handOver(long epoch, java.time.Duration timeout) {
        throw new UnsupportedOperationException("reports a status only");
    }

    @Override
    public WriteOrder begin(ReplicationMode mode) {
        throw new UnsupportedOperationException("reports a status only");
    }

    @Override
    public boolean hasRoom() {
        return true;
    }

    @Override
    public long writeTimeoutMillis() {
        return 0;
    }

    @Override
    public TxId lastTxId() {
        return status.lastTxId();
    }

    @Override
    public long epoch() {
        return status.lastTxId().epoch();
    }

    @Override
    public ReplicatorStatus status() {
        return status;
    }

    @Override
    public void close() {}
}
