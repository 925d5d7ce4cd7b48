package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.FixedStatusReplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RespServerTest {
    private RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    @Test
    void pingAndEcho() {
        assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
        assertThat(resp.command("ping", "hi")).isEqualTo("$2\r\nhi\r\n");
        assertThat(resp.command("ECHO", "hello world")).isEqualTo("$11\r\nhello world\r\n");
    }

    @Test
    void setGetDelRoundTrip() {
        assertThat(resp.command("SET", "k", "v1")).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo("$2\r\nv1\r\n");
        assertThat(resp.command("STRLEN", "k")).isEqualTo(":2\r\n");
        assertThat(resp.command("EXISTS", "k", "k", "nope")).isEqualTo(":2\r\n");
        assertThat(resp.command("DBSIZE")).isEqualTo(":1\r\n");
        assertThat(resp.command("DEL", "k", "nope")).isEqualTo(":1\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo("$-1\r\n");
        assertThat(resp.command("STRLEN", "k")).isEqualTo(":0\r\n");
        assertThat(resp.command("DEL", "k")).isEqualTo(":0\r\n");
    }

    @Test
    void emptyValueIsStoredAndServed() {
        assertThat(resp.command("SET", "empty", "")).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "empty")).isEqualTo("$0\r\n\r\n");
        assertThat(resp.command("EXISTS", "empty")).isEqualTo(":1\r\n");
    }

    @Test
    void delOfARepeatedKeyCountsItOnce() {
        resp.command("SET", "a", "1");
        resp.command("SET", "b", "2");
        assertThat(resp.command("DEL", "a", "a", "b", "c")).isEqualTo(":2\r\n");
        assertThat(resp.command("DBSIZE")).isEqualTo(":0\r\n");
    }

    @Test
    void msetIsAllOrNothingAndMgetReadsInOrder() {
        assertThat(resp.command("MSET", "a", "1", "b", "2", "a", "3")).isEqualTo("+OK\r\n");
        assertThat(resp.command("MGET", "a", "nope", "b")).isEqualTo("*3\r\n$1\r\n3\r\n$-1\r\n$1\r\n2\r\n");
        assertThat(resp.command("MSET", "a", "1", "b")).startsWith("-ERR wrong number of arguments for 'mset'");
        assertThat(resp.command("GET", "a")).isEqualTo("$1\r\n3\r\n");
    }

    @Test
    void setHonoursNxAndXx() {
        assertThat(resp.command("SET", "k", "1", "XX")).isEqualTo("$-1\r\n");
        assertThat(resp.command("SET", "k", "1", "NX")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SET", "k", "2", "nx")).isEqualTo("$-1\r\n");
        assertThat(resp.command("SET", "k", "3", "XX")).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo("$1\r\n3\r\n");
        assertThat(resp.command("SET", "k", "4", "NX", "XX")).isEqualTo("-ERR syntax error\r\n");
        assertThat(resp.command("SET", "k", "4", "BOGUS")).isEqualTo("-ERR syntax error\r\n");
    }

    @Test
    void setWithABadExpiryWritesNothing() {
        assertThat(resp.command("SET", "k", "1", "EX", "0")).isEqualTo("-ERR invalid expire time in 'set' command\r\n");
        assertThat(resp.command("SET", "k", "1", "PX", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("EXISTS", "k")).isEqualTo(":0\r\n");
    }

    @Test
    void pipelinedCommandsAreAnsweredInOrder() {
        String batch = RespChannel.encode("SET", "p", "1") + RespChannel.encode("GET", "p")
                + RespChannel.encode("INCRBOGUS", "p") + RespChannel.encode("DEL", "p") + "PING\r\n";
        assertThat(resp.send(batch))
                .isEqualTo("+OK\r\n$1\r\n1\r\n-ERR unknown command 'INCRBOGUS', with args beginning with: 'p' \r\n"
                        + ":1\r\n+PONG\r\n");
    }

    @Test
    void inlineCommandsWork() {
        assertThat(resp.send("SET inline yes\r\nGET inline\r\n")).isEqualTo("+OK\r\n$3\r\nyes\r\n");
    }

    @Test
    void unknownCommandAndWrongArityAreErrors() {
        assertThat(resp.command("NOSUCHCMD")).startsWith("-ERR unknown command 'NOSUCHCMD'");
        assertThat(resp.command("GET")).isEqualTo("-ERR wrong number of arguments for 'get' command\r\n");
        assertThat(resp.command("GET", "a", "b")).isEqualTo("-ERR wrong number of arguments for 'get' command\r\n");
        assertThat(resp.channel.isActive()).isTrue();
    }

    @Test
    void truncatedFrameWaitsForTheRest() {
        String cmd = RespChannel.encode("SET", "key", "value");
        assertThat(resp.send(cmd.substring(0, 10))).isEmpty();
        assertThat(resp.send(cmd.substring(10, 20))).isEmpty();
        assertThat(resp.send(cmd.substring(20))).isEqualTo("+OK\r\n");
    }

    @Test
    void oversizedBulkIsRefusedAndTheStreamStaysInSync() {
        resp.close();
        resp = new RespChannel(NodeConfig.builder()
                .maxBulkBytes(16)
                .store(StoreConfig.builder().build())
                .build());
        String big = "x".repeat(17);
        String replies = resp.send(RespChannel.encode("SET", "k", big) + RespChannel.encode("PING"));
        assertThat(replies).startsWith("-ERR Protocol error: bulk string of 17 bytes is longer than max-bulk-bytes 16");
        assertThat(replies).endsWith("+PONG\r\n");
        assertThat(resp.command("EXISTS", "k")).isEqualTo(":0\r\n");
        assertThat(resp.command("SET", "k", "x".repeat(16))).isEqualTo("+OK\r\n");
    }

    @Test
    void oversizedBulkArrivingInPiecesIsDiscardedWithoutBuffering() {
        resp.close();
        resp = new RespChannel(NodeConfig.builder()
                .maxBulkBytes(1024)
                .store(StoreConfig.builder().build())
                .build());
        int size = 1 << 20;
        assertThat(resp.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + size + "\r\n")).isEmpty();
        String chunk = "y".repeat(64 * 1024);
        for (int sent = 0; sent < size; sent += chunk.length())
            assertThat(resp.send(chunk)).isEmpty();
        assertThat(resp.send("\r\n")).startsWith("-ERR Protocol error: bulk string of 1048576 bytes is longer");
        assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
    }

    @Test
    void hugeDeclaredLengthIsAnErrorAndCloses() {
        String replies = resp.send("*2\r\n$3\r\nGET\r\n$99999999999\r\n");
        assertThat(replies).startsWith("-ERR Protocol error:");
        assertFalse(resp.channel.isActive());
    }

    @Test
    void hugeDeclaredArrayIsAnErrorAndCloses() {
        String replies = resp.send("*99999999999\r\n");
        assertThat(replies).startsWith("-ERR Protocol error:");
        assertFalse(resp.channel.isActive());
    }

    @Test
    void wrongTypesAreErrorsAndTheConnectionStaysUsable() {
        assertThat(resp.send(":5\r\n")).startsWith("-ERR unknown command ':5'");
        assertThat(resp.send("*2\r\n$3\r\nGET\r\n:1\r\n")).startsWith("-ERR Protocol error: expected an array");
        assertThat(resp.send("*2\r\n$3\r\nGET\r\n$-1\r\n")).startsWith("-ERR Protocol error: expected a bulk");
        assertThat(resp.send("*2\r\n$3\r\nGET\r\n*1\r\n$1\r\na\r\n")).startsWith("-ERR Protocol error");
        assertThat(resp.send("*-1\r\n*0\r\n")).isEmpty();
        assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
    }

    @Test
    void inlineCommandsTakeRedisQuotesAndCloseOnAnUnbalancedOne() {
        assertThat(resp.send("SET \"two words\" 'v w'\r\nGET \"two words\"\r\n"))
                .isEqualTo("+OK\r\n$3\r\nv w\r\n");
        assertThat(resp.send("set \"\"\"test-key\"\"\" test-value\r\nping\r\n"))
                .isEqualTo("-ERR Protocol error: unbalanced quotes in request\r\n");
    }

    @Test
    void anyNegativeArrayLengthIsAnEmptyRequestAsInRedis() {
        assertThat(resp.send("*-10\r\n*-9999999999999\r\n" + RespChannel.encode("PING")))
                .isEqualTo("+PONG\r\n");
        assertThat(resp.send("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$-10\r\n"))
                .as("a negative bulk length is still an error")
                .isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
    }

    @Test
    void garbageAfterAFatalErrorIsIgnoredWhileClosing() {
        String replies = resp.send("*1\r\n$abc\r\n" + RespChannel.encode("PING"));
        assertThat(replies).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
        assertFalse(resp.channel.isActive());
    }

    @Test
    void largeValueArrivingInPiecesIsAssembled() {
        String value = "z".repeat(200_000);
        String cmd = RespChannel.encode("SET", "big", value);
        for (int i = 0; i < cmd.length(); i += 7919) {
            String part = cmd.substring(i, Math.min(cmd.length(), i + 7919));
            String replies = resp.send(part);
            if (i + 7919 < cmd.length()) assertThat(replies).isEmpty();
            else assertThat(replies).isEqualTo("+OK\r\n");
        }
        assertThat(resp.command("STRLEN", "big")).isEqualTo(":200000\r\n");
        assertThat(resp.command("GET", "big")).isEqualTo("$200000\r\n" + value + "\r\n");
    }

    @Test
    void malformedLengthIsAnErrorAndCloses() {
        assertThat(resp.send("*1\r\n$abc\r\n")).startsWith("-ERR Protocol error:");
        assertFalse(resp.channel.isActive());
    }

    @Test
    void authIsRequiredWhenAPasswordIsConfigured() {
        resp.close();
        resp = new RespChannel(NodeConfig.builder().requirepass("s3cret").build());
        assertThat(resp.command("GET", "k")).isEqualTo("-NOAUTH Authentication required.\r\n");
        assertThat(resp.command("AUTH", "wrong")).startsWith("-WRONGPASS");
        assertThat(resp.command("AUTH", "bob", "s3cret")).startsWith("-WRONGPASS");
        assertThat(resp.command("AUTH", "s3cret")).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo("$-1\r\n");
    }

    @Test
    void authWithoutAConfiguredPasswordIsAnError() {
        assertThat(resp.command("AUTH", "x")).startsWith("-ERR AUTH <password> called without any password");
        assertThat(resp.command("AUTH", "default", "s3cret", "extra")).isEqualTo("-ERR syntax error\r\n");
    }

    @Test
    void quitAnswersThenCloses() {
        assertThat(resp.command("QUIT")).isEqualTo("+OK\r\n");
        resp.channel.runPendingTasks();
        assertFalse(resp.channel.isActive());
    }

    @Test
    void clientNameAndId() {
        assertThat(resp.command("CLIENT", "GETNAME")).isEqualTo("$-1\r\n");
        assertThat(resp.command("CLIENT", "SETNAME", "app-1")).isEqualTo("+OK\r\n");
        assertThat(resp.command("CLIENT", "GETNAME")).isEqualTo("$5\r\napp-1\r\n");
        assertThat(resp.command("CLIENT", "SETNAME", "bad name")).startsWith("-ERR Client names cannot contain");
        assertThat(resp.command("CLIENT", "ID")).matches(":\\d+\r\n");
        assertThat(resp.command("CLIENT", "KILL")).startsWith("-ERR unknown subcommand 'KILL'");
    }

    @Test
    void configGetAnswersWhatRedisBenchmarkAsks() {
        assertThat(resp.command("CONFIG", "GET", "save")).isEqualTo("*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
        assertThat(resp.command("CONFIG", "GET", "appendonly")).isEqualTo("*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
        assertThat(resp.command("CONFIG", "GET", "nothing-like-this")).isEqualTo("*0\r\n");
        assertThat(resp.command("CONFIG", "GET", "max*")).contains("maxmemory").contains("maxclients");
        // a setting kvs takes from its YAML is accepted at the value it has, and only there
        assertThat(resp.command("CONFIG", "SET", "save", "")).isEqualTo("+OK\r\n");
        assertThat(resp.command("CONFIG", "SET", "save", "900 1"))
                .startsWith(
                        "-ERR CONFIG SET failed (possibly related to argument 'save') - kvs takes it from its YAML");
        assertThat(resp.command("CONFIG", "SET", "maxmemory", "bla"))
                .startsWith("-ERR CONFIG SET failed (possibly related to argument 'maxmemory')");
        assertThat(resp.command("CONFIG", "SET", "no-such-setting", "1"))
                .isEqualTo("-ERR Unknown option or number of arguments for CONFIG SET - 'no-such-setting'\r\n");
    }

    @Test
    void selectAcceptsOnlyDbZero() {
        assertThat(resp.command("SELECT", "0")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SELECT", "1")).startsWith("-ERR DB index is out of range");
        assertThat(resp.command("SELECT", "x")).startsWith("-ERR value is not an integer");
    }

    @Test
    void commandDescribesTheCommandTable() {
        assertThat(resp.command("COMMAND", "COUNT")).matches(":\\d+\r\n");
        assertThat(resp.command("COMMAND", "INFO", "get", "nope"))
                .startsWith("*2\r\n*6\r\n$3\r\nget\r\n:2\r\n")
                .endsWith("*-1\r\n");
        assertThat(resp.command("COMMAND", "DOCS")).isEqualTo("*0\r\n");
        assertThat(resp.command("COMMAND")).contains("$4\r\nmset\r\n");
    }

    @Test
    void infoHasEverySectionAndOnlyTheOnesAskedFor() {
        resp.command("SET", "k", "v");
        String all = resp.command("INFO");
        assertThat(all)
                .contains("# Server", "# Clients", "# Memory", "# Stats", "# Replication", "# Keyspace")
                .contains("redis_version:", "connected_clients:", "used_memory:", "db0:keys=1", "kvs_epoch:1")
                .contains("kvs_last_txid:1:1");
        String one = resp.command("INFO", "keyspace");
        assertThat(one).contains("# Keyspace").doesNotContain("# Server");
        // the page directories' slots and their bound (none yet: no large hash or set)
        assertThat(resp.command("INFO", "memory"))
                .contains("\r\nkvs_page_directory_slots:0\r\n")
                .contains("\r\nkvs_page_directory_max_slots:524288\r\n")
                // a store in memory keeps no undo slots: nothing of it survives a kill
                .contains("\r\nkvs_undo_slot_bytes:0\r\n")
                .contains("\r\nkvs_unguarded_writes:0\r\n");
    }

    @Test
    void infoReplicationShowsTheFlowControlAndTheValueLag() {
        resp.close();
        resp = RespChannel.withDefaults(new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL));

        String info = resp.command("INFO", "replication");

        assertThat(info)
                .contains("\r\nkvs_flow_control:on\r\n")
                .contains("\r\nkvs_flow_phase:steady\r\n")
                .contains("\r\nkvs_flow_window_bytes:262144\r\n")
                .contains("\r\nkvs_flow_in_flight_bytes:131072\r\n")
                .contains("\r\nkvs_flow_pacing_rate_bps:1000000\r\n")
                .contains("\r\nkvs_flow_base_delay_us:20150\r\n")
                .contains("\r\nkvs_flow_queueing_delay_us:3500\r\n")
                .contains("\r\nkvs_flow_external_delay_us:2000\r\n")
                .contains("\r\nkvs_flow_target_us:10000\r\n")
                .contains("\r\nkvs_flow_goodput_bps:987654\r\n")
                .contains("\r\nkvs_flow_min_rate_alarm:1\r\n")
                .contains("\r\nkvs_flow_slowdowns:7\r\n")
                .contains("\r\nkvs_value_lag_bytes:5242880\r\n")
                .contains("\r\nkvs_value_lag_oldest_ms:1250\r\n")
                .contains("\r\nkvs_abandoned_values:4\r\n");
    }

    @Test
    void infoReplicationShowsTheAlarmWhileTheBackupsStoreRefusesValues() {
        resp.close();
        resp = RespChannel.withDefaults(new FixedStatusReplication(FixedStatusReplication.DEGRADED));

        String info = resp.command("INFO", "replication");

        assertThat(info)
                .contains("\r\nkvs_link_state:degraded\r\n")
                .contains("\r\nkvs_backup_refusing_values:41\r\n")
                .contains("\r\nkvs_backup_refusal_reason:store full\r\n")
                .contains("\r\nkvs_backup_refusal_detail:store full: 200 entries (maxEntries 200)\r\n")
                .contains("\r\nkvs_backup_refused_values:58\r\n")
                .contains("\r\nconnected_slaves:1\r\n");
    }

    @Test
    void infoReplicationShowsNoRefusalWhileTheBackupStoresEverything() {
        resp.close();
        resp = RespChannel.withDefaults(new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL));

        assertThat(resp.command("INFO", "replication"))
                .contains("\r\nkvs_link_state:streaming\r\n")
                .contains("\r\nkvs_backup_refusing_values:0\r\n")
                .contains("\r\nkvs_backup_refusal_reason:\r\n")
                .contains("\r\nkvs_backup_refused_values:0\r\n");
    }

    @Test
    void infoReplicationShowsTheBoundOnTheValueLagAndTheWritesItHeld() {
        resp.close();
        resp = RespChannel.withDefaults(new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL));

        assertThat(resp.command("INFO", "replication"))
                .contains("\r\nkvs_value_lag_oldest_ms:1250\r\n")
                .contains("\r\nkvs_value_lag_max_ms:5000\r\n")
                .contains("\r\nkvs_value_lag_projected_ms:3200\r\n")
                .contains("\r\nkvs_value_drain_bps:1048576\r\n")
                .contains("\r\nkvs_value_lag_waits:12\r\n")
                .contains("\r\nkvs_value_lag_wait_ms:3456\r\n");
    }

    @Test
    void infoReplicationShowsNoBoundOnTheValueLagWithoutABackup() {
        assertThat(resp.command("INFO", "replication"))
                .contains("\r\nkvs_value_lag_max_ms:0\r\n")
                .contains("\r\nkvs_value_drain_bps:-1\r\n")
                .contains("\r\nkvs_value_lag_waits:0\r\n");
    }

    @Test
    void infoReplicationSaysFlowControlIsOffWithoutABackup() {
        assertThat(resp.command("INFO", "replication"))
                .contains("\r\nkvs_flow_control:off\r\n")
                .contains("\r\nkvs_flow_min_rate_alarm:0\r\n")
                .contains("\r\nkvs_value_lag_oldest_ms:0\r\n");
    }

    @Test
    void helloSwitchesBetweenResp2AndResp3AndRefusesOtherVersions() {
        assertThat(resp.command("HELLO", "4")).isEqualTo("-NOPROTO unsupported protocol version\r\n");
        assertThat(resp.command("HELLO", "3")).startsWith("%7\r\n$6\r\nserver\r\n$3\r\nkvs\r\n");
        assertThat(resp.command("GET", "missing")).isEqualTo("_\r\n");
        assertThat(resp.command("HELLO", "2")).startsWith("*14\r\n$6\r\nserver\r\n$3\r\nkvs\r\n");
        assertThat(resp.command("GET", "missing")).isEqualTo("$-1\r\n");
    }

    @Test
    void kvsModeIsPerConnection() {
        assertThat(resp.command("KVS.MODE")).isEqualTo("$8\r\nid-first\r\n");
        assertThat(resp.command("KVS.MODE", "sync")).isEqualTo("+OK\r\n");
        assertThat(resp.command("KVS.MODE")).isEqualTo("$4\r\nsync\r\n");
        assertThat(resp.command("KVS.MODE", "fast")).startsWith("-ERR mode is not");
    }

    @Test
    void peekShowsTheRecordWithItsTxId() {
        resp.command("SET", "k", "v");
        assertThat(resp.command("KVS.PEEK", "k"))
                .isEqualTo("*6\r\n$8\r\ncomplete\r\n$3\r\n1:1\r\n:1\r\n:"
                        + Integer.toUnsignedLong(dev.kvs.core.Checksums.crc32c(new byte[] {'v'}))
                        + "\r\n$1\r\nv\r\n:0\r\n"); // the expiry (epoch ms) last: 0, none
        assertThat(resp.command("KVS.PEEK", "nope")).isEqualTo("$-1\r\n");
    }

    @Test
    void backupRefusesDataCommandsWithNotPrimary() {
        resp.close();
        resp = new RespChannel(
                NodeConfig.builder().peer("main:7380").insecureReplication(true).build());
        assertThat(resp.commands.roles().demote(2)).isTrue(); // a primary told of a newer one: a backup to clients
        // no primary has advertised its client address to this node: '-' (the peer is a replication address)
        assertThat(resp.command("GET", "k"))
                .isEqualTo("-NOTPRIMARY - this node is a backup; read from the primary\r\n");
        assertThat(resp.command("SET", "k", "v"))
                .isEqualTo("-NOTPRIMARY - this node is a backup; write to the primary\r\n");
        assertThat(resp.command("READONLY")).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "k"))
                .as("a deposed primary serves no reads: failback may roll its writes back")
                .isEqualTo("-NOTPRIMARY - this node is a backup; read from the primary\r\n");
        assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
        assertThat(resp.command("DBSIZE")).as("metadata on a backup").isEqualTo(":0\r\n");
        assertThat(resp.command("KVS.PEEK", "k")).isEqualTo("$-1\r\n");
    }

    @Test
    void fullStoreAnswersOomAndStaysUsable() {
        resp.close();
        resp = new RespChannel(NodeConfig.builder()
                .store(StoreConfig.builder().maxEntries(2).build())
                .build());
        assertThat(resp.command("SET", "a", "1")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SET", "b", "1")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SET", "c", "1")).startsWith("-OOM ");
        assertThat(resp.command("SET", "a", "2")).isEqualTo("+OK\r\n");
        assertThat(resp.command("DEL", "b")).isEqualTo(":1\r\n");
        assertThat(resp.command("SET", "c", "1")).isEqualTo("+OK\r\n");
    }

    @Test
    void binaryValuesRoundTrip() {
        byte[] value = new byte[256];
        for (int i = 0; i < value.length; i++) value[i] = (byte) i;
        String v = new String(value, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(resp.command("SET", "bin", v)).isEqualTo("+OK\r\n");
        assertThat(resp.command("GET", "bin")).isEqualTo("$256\r\n" + v + "\r\n");
    }

    @Test
    void kvsPromoteIsOffUnlessTheAdminConfigEnablesIt() {
        assertThat(resp.command("KVS.PROMOTE")).startsWith("-NOPERM KVS.PROMOTE is disabled");
        resp.close();
        resp = new RespChannel(NodeConfig.builder()
                .admin(dev.kvs.server.config.AdminConfig.defaults().withRespCommands(true))
                .build());
        assertThat(resp.command("KVS.PROMOTE")).startsWith("-ERR this node is already the primary");
    }
}
