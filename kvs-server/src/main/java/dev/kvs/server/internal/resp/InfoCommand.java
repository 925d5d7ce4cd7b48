package dev.kvs.server.internal.resp;

import dev.kvs.core.StoreStats;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import dev.kvs.server.internal.AdminPortStats;
import dev.kvs.server.internal.KvsVersion;
import dev.kvs.server.internal.NodeStatus;
import dev.kvs.server.internal.pubsub.PubSub;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.script.ScriptEngine;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** INFO [section ...]: Redis-style sections, plus kvs's replication fields. */
final class InfoCommand implements Command {
    /** The Redis version kvs answers as, so tools that check it accept the server. */
    static final String REDIS_COMPAT_VERSION = "7.2.0"; // scripts see it too: RedisLib.REDIS_VERSION

    /** Redis's default sections that kvs has, in Redis's order. */
    private static final List<String> DEFAULT_SECTIONS = List.of(
            "server",
            "clients",
            "memory",
            "persistence",
            "stats",
            "replication",
            "cpu",
            "errorstats",
            "cluster",
            "keyspace");

    /** {@code INFO all}: the default sections and {@code commandstats}, in Redis's order. */
    private static final List<String> ALL_SECTIONS = List.of(
            "server",
            "clients",
            "memory",
            "persistence",
            "stats",
            "replication",
            "cpu",
            "commandstats",
            "errorstats",
            "cluster",
            "keyspace");

    private final CommandContext node;
    private final ClientStats stats;
    private final CommandTable table;
    private final BulkPreallocBudget bulkBudget;
    private final ClientMemory memory;
    private final ClientWarnings warnings;
    /** The script cache, for INFO memory's scripting lines. */
    private final ScriptEngine scripts;
    /** The channels and patterns subscribed, for INFO stats' pubsub lines. */
    private final PubSub pubSub;

    InfoCommand(
            CommandContext node,
            ClientStats stats,
            CommandTable table,
            BulkPreallocBudget bulkBudget,
            ClientMemory memory,
            ClientWarnings warnings,
            ScriptEngine scripts,
            PubSub pubSub) {
        this.node = node;
        this.pubSub = pubSub;
        this.stats = stats;
        this.table = table;
        this.bulkBudget = bulkBudget;
        this.memory = memory;
        this.warnings = warnings;
        this.scripts = scripts;
    }

    static String redisRole(CommandContext node) {
        return node.role() == Role.PRIMARY ? "master" : "slave";
    }

    @Override
    public RedisMessage execute(Session s, byte[][] a) {
        List<String> sections;
        if (a.length == 1) {
            sections = DEFAULT_SECTIONS;
        } else {
            sections = new ArrayList<>();
            for (int i = 1; i < a.length; i++) {
                String sec = Args.text(a[i]).toLowerCase(Locale.ROOT);
                if (sec.equals("all") || sec.equals("everything")) {
                    sections = ALL_SECTIONS;
                    break;
                }
                if (sec.equals("default")) {
                    sections = DEFAULT_SECTIONS;
                    break;
                }
                sections.add(sec);
            }
        }
        StringBuilder b = new StringBuilder(1024);
        for (String sec : sections) {
            int before = b.length();
            if (before > 0) b.append("\r\n");
            int header = b.length();
            switch (sec) {
                case "server" -> server(b);
                case "clients" -> clients(b);
                case "memory" -> memory(b);
                case "persistence" -> persistence(b);
                case "stats" -> stats(b);
                case "replication" -> replication(b);
                case "keyspace" -> keyspace(b);
                case "cpu" -> cpu(b);
                case "commandstats" -> commandstats(b);
                case "errorstats" -> errorstats(b);
                case "cluster" -> cluster(b);
                default -> b.setLength(before); // unknown sections are skipped, as Redis does
            }
            if (b.length() == header) b.setLength(before);
        }
        return new TypedReplies.VerbatimReply(b.toString());
    }

    private static void line(StringBuilder b, String k, Object v) {
        b.append(k).append(':').append(v).append("\r\n");
    }

    private void server(StringBuilder b) {
        b.append("# Server\r\n");
        line(b, "redis_version", REDIS_COMPAT_VERSION);
        line(b, "kvs_version", KvsVersion.get());
        line(b, "redis_mode", node.cluster().enabled() ? "cluster" : "standalone");
        line(
                b,
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        line(b, "arch_bits", 64);
        line(b, "java_version", System.getProperty("java.version"));
        line(b, "process_id", ProcessHandle.current().pid());
        line(b, "tcp_port", node.config().port());
        line(b, "uptime_in_seconds", node.uptimeSeconds());
        line(b, "uptime_in_days", node.uptimeSeconds() / 86400);
        line(b, "kvs_name", node.config().name());
        line(b, "kvs_cluster", node.config().cluster());
    }

    private void clients(StringBuilder b) {
        b.append("# Clients\r\n");
        line(b, "connected_clients", stats.connected.get());
        line(b, "maxclients", node.config().maxClients());
        int[] perLoop = stats.perLoop();
        if (perLoop != null) { // connections each event loop serves, in loop order (ioPackConnections)
            line(
                    b,
                    "kvs_io_thread_clients",
                    Arrays.stream(perLoop).mapToObj(Integer::toString).collect(Collectors.joining(",")));
        }
        line(b, "kvs_input_bulk_bytes", stats.inputBulkBytes.get());
        line(b, "kvs_bulk_prealloc_bytes", bulkBudget.charged()); // preallocated, not yet received
        line(b, "kvs_bulk_prealloc_limit", bulkBudget.limit());
        // maxClientMemory (Redis maxmemory-clients): query buffers plus unsent replies, over connections
        line(b, "kvs_client_memory", memory.used());
        line(b, "kvs_client_query_buffers", memory.queryBytes());
        line(b, "kvs_client_output_buffers", memory.outputBytes());
        line(b, "kvs_client_memory_closing", memory.closingBytes()); // chosen to be closed, not closed yet
        line(b, "maxmemory_clients", memory.bound());
        line(b, "kvs_client_memory_over_bound", memory.overBound() ? 1 : 0);
    }

    private void memory(StringBuilder b) {
        StoreStats st = node.store().stats();
        Runtime rt = Runtime.getRuntime();
        long heapUsed = rt.totalMemory() - rt.freeMemory();
        b.append("# Memory\r\n");
        line(b, "used_memory", st.keyBytes() + st.valueBytes());
        line(b, "used_memory_human", human(st.keyBytes() + st.valueBytes()));
        line(b, "used_memory_dataset", st.valueBytes());
        line(b, "kvs_offheap_bytes", st.offHeapBytes());
        line(b, "kvs_page_directory_slots", st.pageDirectorySlots());
        line(b, "kvs_page_directory_max_slots", st.maxPageDirectorySlots());
        line(b, "kvs_undo_slot_bytes", st.undoSlotBytes());
        line(b, "kvs_unguarded_writes", st.unguardedWrites());
        line(b, "kvs_heap_used_bytes", heapUsed);
        line(b, "kvs_heap_max_bytes", rt.maxMemory());
        line(b, "maxmemory", st.maxBytes());
        line(b, "maxmemory_human", human(st.maxBytes()));
        line(b, "kvs_max_entries", st.maxEntries());
        line(b, "kvs_entries", st.entries());
        line(b, "kvs_tombstones", st.entries() - st.liveEntries());
        line(b, "kvs_tombstone_reserve", node.store().config().tombstoneReserve());
        line(b, "mem_clients_normal", memory.used());
        line(b, "maxmemory_policy", "noeviction");
        line(b, "used_memory_scripts_eval", scripts.cachedBytes());
        line(b, "number_of_cached_scripts", scripts.cachedScripts());
        line(b, "number_of_functions", scripts.functions().functionCount());
        line(b, "number_of_libraries", scripts.functions().libraryCount());
        line(b, "used_memory_functions", scripts.functions().codeBytes());
        line(
                b,
                "used_memory_scripts",
                scripts.cachedBytes() + scripts.functions().codeBytes());
    }

    private void persistence(StringBuilder b) {
        StoreStats st = node.store().stats();
        b.append("# Persistence\r\n");
        line(b, "loading", 0);
        line(b, "kvs_persistent", st.persistent() ? 1 : 0);
        line(
                b,
                "kvs_data_dir",
                node.config().store().dataDir().map(Object::toString).orElse(""));
        line(b, "aof_enabled", 0);
    }

    private void stats(StringBuilder b) {
        b.append("# Stats\r\n");
        line(b, "total_connections_received", stats.connectionsReceived.sum());
        line(b, "total_commands_processed", stats.commandsProcessed.sum());
        line(b, "rejected_connections", stats.rejectedConnections.sum());
        line(b, "total_error_replies", stats.errorReplies.sum());
        line(b, "kvs_protocol_errors", stats.protocolErrors.sum());
        line(b, "kvs_cross_protocol_attacks", stats.crossProtocolAttacks.sum());
        line(b, "client_output_buffer_limit_disconnections", stats.outputBufferLimitDisconnections.sum());
        line(b, "kvs_protected_mode_denials", stats.protectedModeDenials.sum());
        line(b, "acl_access_denied_auth", stats.aclDeniedAuth.sum());
        line(b, "acl_access_denied_cmd", stats.aclDeniedCommands.sum());
        line(b, "kvs_auth_timeouts", stats.authTimeouts.sum());
        line(b, "kvs_idle_timeouts", stats.idleTimeouts.sum());
        AdminPortStats.Snapshot admin = node.adminPort().snapshot();
        line(b, "kvs_admin_connections", admin.connections());
        line(b, "kvs_admin_max_connections", admin.maxConnections());
        line(b, "kvs_admin_refused_requests", admin.refusedRequests());
        line(b, "kvs_admin_timed_out_connections", admin.timedOutConnections());
        line(b, "kvs_admin_cap_dropped_connections", admin.droppedAtCap());
        line(b, "kvs_admin_cap_refused_connections", admin.refusedAtCap());
        line(b, "evicted_clients", memory.evicted());
        line(b, "kvs_security_warn_events", warnings.events() + memory.warnings()); // logged or left out
        line(b, "expired_keys", node.expiredKeys().get() + node.writes().reclaimedKeys());
        // of which a write that found the store full deleted before it was written (not active expiry)
        line(b, "kvs_expired_keys_reclaimed_by_writes", node.writes().reclaimedKeys());
        line(b, "evicted_keys", 0);
        line(b, "pubsub_channels", pubSub.channelCount());
        line(b, "pubsub_patterns", pubSub.patternCount());
        line(b, "pubsubshard_channels", pubSub.shardChannelCount());
        // of client_output_buffer_limit_disconnections: subscribers cut off at the pubsub class's limit
        line(b, "kvs_pubsub_limit_disconnections", pubSub.disconnections());
    }

    private void replication(StringBuilder b) {
        b.append("# Replication\r\n");
        line(b, "role", redisRole(node));
        line(b, "kvs_role", node.role().label());
        line(b, "kvs_epoch", node.roles().current().epoch());
        line(b, "kvs_mode", node.mode().label());
        line(b, "kvs_last_txid", node.roles().current().lastTxId());
        line(b, "kvs_peer", node.config().peer().orElse(""));
        ReplicatorStatus r = node.roles().current().replicationStatus();
        line(b, "kvs_link_state", linkState(r));
        line(b, "kvs_acked_txid", r.ackedTxId());
        line(b, "kvs_unacked_keys", r.unackedKeys());
        line(b, "kvs_key_ack_latency_us", r.keyAckLatencyMicros());
        line(b, "kvs_value_lag_count", r.pendingValues());
        line(b, "kvs_value_lag_bytes", r.pendingValueBytes());
        line(b, "kvs_value_lag_oldest_ms", r.oldestPendingValueMillis());
        line(b, "kvs_value_lag_max_ms", r.valueLag().maxValueLagMillis());
        line(b, "kvs_value_lag_projected_ms", r.valueLag().projectedLagMillis());
        line(b, "kvs_value_drain_bps", r.valueLag().drainBytesPerSecond());
        line(b, "kvs_value_lag_waits", r.valueLag().waits());
        line(b, "kvs_value_lag_wait_ms", r.valueLag().waitMillis());
        line(b, "kvs_conflated_values", r.conflatedValues());
        line(b, "kvs_values_shipped", r.valuesShipped());
        line(b, "kvs_abandoned_values", r.abandonedValues());
        // a read of the store or a send that failed: the value was put back and shipped later
        line(b, "kvs_shipper_failures", r.shipperFailures());
        line(b, "kvs_cut_through_values", r.cutThroughValues());
        line(b, "kvs_value_streams_up", r.valueStreamsUp());
        line(b, "kvs_resyncs", r.resyncs());
        // a full resync ships only the values the backup lacks
        line(b, "kvs_resync_keys_listed", r.resync().keysListed());
        line(b, "kvs_resync_values_shipped", r.resync().valuesWanted());
        line(b, "kvs_resync_value_bytes_shipped", r.resync().valueBytesWanted());
        line(b, "kvs_resync_value_bytes_saved", r.resync().valueBytesSaved());
        // the backup's store refuses values: kvs_link_state is degraded while kvs_backup_refusing_values > 0
        line(b, "kvs_backup_refusing_values", r.refusingValues());
        line(b, "kvs_backup_refusal_reason", r.refusals().reason());
        line(b, "kvs_backup_refusal_detail", r.refusals().detail());
        line(b, "kvs_backup_refused_values", r.refusals().total());
        flowControl(b, r.flowControl());
        line(b, "connected_slaves", r.streaming() ? 1 : 0);
        if (node.gate().active()) {
            line(b, "kvs_lost_keys", node.gate().lost().size());
            line(b, "kvs_blocked_reads", node.gate().blockedReads());
        } else if (node.roles().current() instanceof NodeRole.Backup) {
            line(b, "kvs_blocked_reads", node.readGate().blockedReads()); // READONLY reads of unfinished keys
        }
        line(b, "kvs_failback", node.failover().handbackState());
        node.roles().lease().infoFields().forEach((k, v) -> line(b, k, v)); // a coordinated node's lease
        NodeStatus.LinkIntegrity integrity = NodeStatus.LinkIntegrity.of(node.config());
        // tls, mac (cluster secret without TLS: every frame after the handshake carries a MAC), none
        line(b, "kvs_replication_frame_protection", integrity.frameProtection());
        line(b, "kvs_replication_frames_failed_mac", integrity.framesFailedMac());
        ReplicationServer server = node.roles().current().listener();
        if (server != null) {
            BackupStatus bs = server.status();
            if (!(node.roles().current() instanceof NodeRole.Primary)) {
                // Redis's replica fields: the primary's client address, as it advertised it
                String primary = BackupReadCommands.primaryAddress(node.roles().current());
                int colon = primary.lastIndexOf(':');
                line(b, "master_host", colon > 0 ? primary.substring(0, colon) : "");
                line(b, "master_port", colon > 0 ? primary.substring(colon + 1) : "");
            }
            line(b, "master_link_status", bs.keyChannelConnected() ? "up" : "down");
            line(b, "kvs_backup_contiguous_txid", bs.contiguous());
            line(b, "kvs_backup_resyncing", bs.resyncing() ? 1 : 0);
            line(b, "kvs_unfinished_keys", bs.unfinishedKeys());
            line(b, "kvs_oldest_unfinished_ms", bs.oldestUnfinishedAgeMillis());
            line(b, "kvs_values_applied", bs.valuesApplied());
            line(b, "kvs_values_superseded", bs.valuesSuperseded());
            line(b, "kvs_values_nacked", bs.valuesNacked());
            line(b, "kvs_values_refused", bs.refusals().total()); // by this node's store; why, below
            line(b, "kvs_values_refused_reason", bs.refusals().reason());
            line(b, "kvs_values_refused_detail", bs.refusals().detail());
            line(b, "kvs_value_channels", bs.valueChannels());
            line(b, "kvs_backup_bytes_received", bs.bytesReceived());
            line(b, "kvs_backup_resyncs", bs.resyncs());
            line(b, "kvs_async_values_awaited", bs.asyncValuesAwaited());
            line(b, "kvs_values_not_awaited", bs.valuesNotAwaited());
            line(b, "kvs_tombstones_collected", bs.tombstonesCollected());
            line(b, "kvs_tombstone_sweeps", bs.tombstoneSweeps());
            line(b, "kvs_tombstone_sweep_above", bs.tombstoneSweepAbove());
            line(b, "kvs_deletes_held", bs.deletesHeld());
            line(b, "kvs_units_held", bs.unitsHeld());
            line(b, "kvs_unit_held_bytes", bs.unitHeldBytes());
            line(b, "kvs_units_applied", bs.unitsApplied());
            line(b, "kvs_units_broken", bs.unitsBroken());
            line(b, "kvs_replication_refused_connections", bs.refusedConnections());
            line(b, "kvs_replication_dropped_connections", bs.droppedConnections());
            line(b, "kvs_replication_connections_in_handshake", bs.connectionsInHandshake());
        }
    }

    /**
     * The replication link as this node sees it: a primary's replicator state ({@code none}, {@code
     * connecting}, {@code resyncing}, {@code streaming}, {@code degraded}: streaming, but the backup's
     * store refuses values, {@code diverged}); on a backup its primary's key channel: {@code
     * streaming}, {@code resyncing} or {@code down} (as {@code master_link_status} says up or down).
     */
    private String linkState(ReplicatorStatus r) {
        NodeRole role = node.roles().current();
        if (role instanceof NodeRole.Primary || role.listener() == null) return r.state();
        ReplicationServer server = role.listener();
        if (!server.status().keyChannelConnected()) return "down";
        return server.resyncing() ? "resyncing" : "streaming";
    }

    /** The value traffic's flow control; rates are in bytes per second, as Redis's {@code *_kbps} count bytes. */
    private static void flowControl(StringBuilder b, FlowControlStatus f) {
        line(b, "kvs_flow_control", f.enabled() ? "on" : "off");
        line(b, "kvs_flow_phase", f.phase());
        line(b, "kvs_flow_window_bytes", f.windowBytes());
        line(b, "kvs_flow_in_flight_bytes", f.inFlightBytes());
        line(b, "kvs_flow_pacing_rate_bps", f.pacingRateBytesPerSecond());
        line(b, "kvs_flow_base_delay_us", f.baseDelayMicros());
        line(b, "kvs_flow_queueing_delay_us", f.queueingDelayMicros());
        line(b, "kvs_flow_external_delay_us", f.externalDelayMicros());
        line(b, "kvs_flow_target_us", f.targetMicros());
        line(b, "kvs_flow_goodput_bps", f.goodputBytesPerSecond());
        line(b, "kvs_flow_min_rate_alarm", f.minRateAlarm() ? 1 : 0);
        line(b, "kvs_flow_slowdowns", f.slowdowns());
    }

    private static void cpu(StringBuilder b) {
        CpuTimes t = CpuTimes.now();
        b.append("# CPU\r\n");
        line(b, "used_cpu_sys", seconds(t.sys()));
        line(b, "used_cpu_user", seconds(t.user()));
        line(b, "used_cpu_sys_children", seconds(t.childrenSys()));
        line(b, "used_cpu_user_children", seconds(t.childrenUser()));
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.6f", s);
    }

    /** One line per command run, rejected or failed since start, sorted by name, as Redis prints them. */
    private void commandstats(StringBuilder b) {
        b.append("# Commandstats\r\n");
        List<CommandSpec> specs = new ArrayList<>(table.all());
        specs.sort(java.util.Comparator.comparing(CommandSpec::name));
        for (CommandSpec spec : specs) {
            CommandCounters c = spec.counters();
            if (!c.used()) continue;
            long calls = c.calls.sum();
            long usec = c.nanos.sum() / 1000;
            line(
                    b,
                    "cmdstat_" + spec.name().toLowerCase(Locale.ROOT),
                    "calls=" + calls + ",usec=" + usec + ",usec_per_call="
                            + String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0 : (double) usec / calls)
                            + ",rejected_calls=" + c.rejected.sum() + ",failed_calls=" + c.failed.sum());
        }
    }

    /** Error replies sent since start, by their first word. */
    private void errorstats(StringBuilder b) {
        b.append("# Errorstats\r\n");
        node.metrics().errorCounts().forEach((kind, count) -> line(b, "errorstat_" + kind, "count=" + count));
    }

    private void cluster(StringBuilder b) {
        b.append("# Cluster\r\n");
        line(b, "cluster_enabled", node.cluster().enabled() ? 1 : 0);
    }

    private void keyspace(StringBuilder b) {
        b.append("# Keyspace\r\n");
        long keys = node.store().size();
        if (keys > 0) line(b, "db0", "keys=" + keys + ",expires=" + node.store().keysWithExpiry() + ",avg_ttl=0");
    }

    static String human(long bytes) {
        if (bytes < 1024) return bytes + "B";
        String units = "KMGTPE";
        int u = -1;
        double v = bytes;
        while (v >= 1024 && u < units.length() - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.2f%c", v, units.charAt(u));
    }
}
