package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.kvs.server.internal.AckOnDemandReplication;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** INFO commandstats, errorstats and cpu: Redis's field names, with real figures. */
class InfoSectionsTest {
    private RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    /** The fields of an INFO reply. */
    private Map<String, String> info(String... sections) {
        String[] args = new String[sections.length + 1];
        args[0] = "INFO";
        System.arraycopy(sections, 0, args, 1, sections.length);
        String reply = resp.command(args);
        assertThat(reply).startsWith("$");
        Map<String, String> fields = new HashMap<>();
        for (String line : reply.substring(reply.indexOf("\r\n") + 2).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) fields.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return fields;
    }

    private static Map<String, Long> stat(String value) {
        Map<String, Long> out = new HashMap<>();
        for (String kv : value.split(",")) {
            String[] p = kv.split("=");
            out.put(p[0], p[1].contains(".") ? (long) Double.parseDouble(p[1]) : Long.parseLong(p[1]));
        }
        return out;
    }

    @Test
    void theMetricsReadTheSameFiguresAsCommandstats() {
        assertThat(resp.commands.metrics().scrape()).doesNotContain("kvs_commands_seconds_count{command=\"set\"}");
        resp.command("SET", "k", "v");
        resp.command("SET", "k", "v");
        resp.command("GET", "k");
        resp.command("GET"); // wrong arity: rejected, not run
        String scrape = resp.commands.metrics().scrape();
        assertThat(scrape)
                .contains("kvs_commands_seconds_count{command=\"set\"} 2")
                .contains("kvs_commands_seconds_count{command=\"get\"} 1")
                .doesNotContain("command=\"append\"");
        Map<String, String> f = info("commandstats");
        double usec = stat(f.get("cmdstat_set")).get("usec");
        Matcher sum = Pattern.compile("kvs_commands_seconds_sum\\{command=\"set\"} (\\S+)")
                .matcher(scrape);
        assertThat(sum.find()).isTrue();
        assertThat(Double.parseDouble(sum.group(1)) * 1e6).isCloseTo(usec, offset(1.0));
    }

    @Test
    void commandstatsCountsCallsRejectionsAndFailures() {
        resp.command("SET", "k", "v");
        resp.command("SET", "k", "v");
        resp.command("GET", "k");
        resp.command("GET"); // wrong arity: rejected
        resp.command("SET", "n", "x");
        resp.command("INCR", "n"); // not an integer: failed
        String line = resp.command("INFO", "commandstats");
        assertThat(line).contains("# Commandstats\r\n");
        Map<String, String> f = info("commandstats");
        Map<String, Long> set = stat(f.get("cmdstat_set"));
        assertThat(set.get("calls")).isEqualTo(3);
        assertThat(set.get("rejected_calls")).isZero();
        assertThat(set.get("failed_calls")).isZero();
        Map<String, Long> get = stat(f.get("cmdstat_get"));
        assertThat(get.get("calls")).isEqualTo(1);
        assertThat(get.get("rejected_calls")).isEqualTo(1);
        Map<String, Long> incr = stat(f.get("cmdstat_incr"));
        assertThat(incr.get("calls")).isEqualTo(1);
        assertThat(incr.get("failed_calls")).isEqualTo(1);
        assertThat(f.get("cmdstat_set"))
                .matches("calls=3,usec=\\d+,usec_per_call=\\d+\\.\\d\\d,rejected_calls=0,failed_calls=0");
        assertThat(f).doesNotContainKey("cmdstat_append"); // never called: not listed
        assertThat(f.get("cmdstat_info")).startsWith("calls=");
    }

    /** Counts are added to the shared counters per read batch; a command that reads them sees its own connection's. */
    @Test
    void infoPipelinedAfterCommandsCountsThem() {
        String replies = resp.send(RespChannel.encode("SET", "k", "v")
                + RespChannel.encode("SET", "k", "v")
                + RespChannel.encode("GET", "k")
                + RespChannel.encode("INFO", "commandstats")
                + RespChannel.encode("INFO", "stats"));
        assertThat(replies)
                .contains("cmdstat_set:calls=2,")
                .contains("cmdstat_get:calls=1,")
                .contains("total_commands_processed:4\r\n");
        assertThat(resp.commands.metrics().scrape()).contains("kvs_commands_seconds_count{command=\"set\"} 2");
    }

    @Test
    void aWriteThatFailsAfterWaitingCountsAsFailed() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        resp.command("SET", "k", "v"); // waits for the backup's ack
        backup.failAll(new dev.kvs.replication.ReplicationTimeoutException(
                dev.kvs.core.TxId.of(1, 1), "the backup did not confirm"));
        resp.channel.runPendingTasks();
        assertThat(resp.drain()).startsWith("-NOREPLICA");
        Map<String, Long> set = stat(info("commandstats").get("cmdstat_set"));
        assertThat(set.get("calls")).isEqualTo(1);
        assertThat(set.get("failed_calls")).isEqualTo(1);
    }

    @Test
    void errorstatsCountsErrorRepliesByFirstWord() {
        assertThat(info("errorstats")).isEmpty();
        resp.command("NOSUCHCOMMAND");
        resp.command("GET");
        resp.command("SET", "s", "x");
        resp.command("INCR", "s");
        Map<String, String> f = info("errorstats");
        assertThat(f).containsEntry("errorstat_ERR", "count=3");
        assertThat(info()).containsEntry("errorstat_ERR", "count=3"); // a default section, as in Redis
    }

    @Test
    void cpuReportsTheProcessTimesInSeconds() {
        Map<String, String> f = info("cpu");
        assertThat(f.keySet())
                .containsExactlyInAnyOrder(
                        "used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children");
        for (String v : f.values()) assertThat(v).matches("\\d+\\.\\d{6}");
        // this JVM has run code: user time is above zero, and grows with work
        double before = Double.parseDouble(f.get("used_cpu_user")) + Double.parseDouble(f.get("used_cpu_sys"));
        assertThat(before).isPositive();
        long spin = System.nanoTime() + 200_000_000L;
        long x = 0;
        while (System.nanoTime() < spin) x += x * 31 + 7;
        Map<String, String> g = info("cpu");
        double after = Double.parseDouble(g.get("used_cpu_user")) + Double.parseDouble(g.get("used_cpu_sys"));
        assertThat(after).as("after spinning (%d)", x).isGreaterThan(before);
    }

    @Test
    void procStatIsParsedFieldByField() {
        // a command name with a space and a parenthesis, as /proc allows
        String stat = "1234 (java (kvs) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 3 4 20 0 40 0 5 0";
        CpuTimes t = CpuTimes.parseProcStat(stat);
        assertThat(t.user()).isEqualTo(2.5);
        assertThat(t.sys()).isEqualTo(0.75);
        assertThat(t.childrenUser()).isEqualTo(0.03);
        assertThat(t.childrenSys()).isEqualTo(0.04);
    }

    @Test
    void allIncludesCommandstatsAndDefaultDoesNot() {
        resp.command("PING");
        assertThat(info("all")).containsKey("cmdstat_ping").containsKey("used_cpu_user");
        assertThat(info("default")).doesNotContainKey("cmdstat_ping").containsKey("used_cpu_user");
        assertThat(info()).doesNotContainKey("cmdstat_ping");
    }
}
