package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.server.internal.AckOnDemandReplication;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SCAN, KEYS, RANDOMKEY and WAIT over RESP, with Redis's reply shapes and error words. */
class KeyspaceCommandsTest {
    private static final String SYNTAX = "-ERR syntax error\r\n";

    private RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    /** Reads one RESP2 reply: a String, a Long, null, an error ("-..."), or a List of those. */
    private static final class Parser {
        final String text;
        int at;

        Parser(String text) {
            this.text = text;
        }

        Object next() {
            char type = text.charAt(at);
            int eol = text.indexOf("\r\n", at);
            String line = text.substring(at + 1, eol);
            at = eol + 2;
            switch (type) {
                case '+':
                    return line;
                case '-':
                    return "-" + line;
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int n = Integer.parseInt(line);
                    if (n < 0) return null;
                    String s = text.substring(at, at + n);
                    at += n + 2;
                    return s;
                }
                case '*': {
                    int n = Integer.parseInt(line);
                    List<Object> out = new ArrayList<>();
                    for (int i = 0; i < n; i++) out.add(next());
                    return out;
                }
                default:
                    throw new IllegalArgumentException("not RESP: " + text);
            }
        }
    }

    private static Object parse(String reply) {
        Parser p = new Parser(reply);
        Object o = p.next();
        assertThat(p.at).as("one reply in %s", reply).isEqualTo(reply.length());
        return o;
    }

    @SuppressWarnings("unchecked")
    private Set<String> scanAll(String... options) {
        Set<String> all = new HashSet<>();
        String cursor = "0";
        int steps = 0;
        do {
            String[] args = new String[2 + options.length];
            args[0] = "SCAN";
            args[1] = cursor;
            System.arraycopy(options, 0, args, 2, options.length);
            List<Object> reply = (List<Object>) parse(resp.command(args));
            assertThat(reply).hasSize(2);
            cursor = (String) reply.get(0);
            for (Object k : (List<Object>) reply.get(1)) {
                assertThat(all.add((String) k)).as("%s returned twice", k).isTrue();
            }
            assertThat(++steps).isLessThan(100_000);
        } while (!cursor.equals("0"));
        return all;
    }

    @Test
    void scanOfAnEmptyStoreIsCursorZeroAndNoKeys() {
        assertThat(resp.command("SCAN", "0")).isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
    }

    @Test
    void scanVisitsEveryKeyOnceAndFiltersByMatchAndType() {
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            resp.command("SET", "key:" + i, "v");
            expected.add("key:" + i);
        }
        resp.command("SET", "other", "v");
        Set<String> withOther = new HashSet<>(expected);
        withOther.add("other");
        assertThat(scanAll()).isEqualTo(withOther);
        assertThat(scanAll("COUNT", "1000")).isEqualTo(withOther);
        assertThat(scanAll("MATCH", "key:*")).isEqualTo(expected);
        assertThat(scanAll("MATCH", "key:1?"))
                .containsExactlyInAnyOrder(
                        "key:10", "key:11", "key:12", "key:13", "key:14", "key:15", "key:16", "key:17", "key:18",
                        "key:19");
        assertThat(scanAll("match", "*", "type", "STRING", "count", "7")).isEqualTo(withOther);
        assertThat(scanAll("TYPE", "hash")).isEmpty();
        resp.command("DEL", "other");
        assertThat(scanAll()).isEqualTo(expected);
    }

    @Test
    void scanRefusesBadArgumentsWithRedisWords() {
        assertThat(resp.command("SCAN", "x")).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(resp.command("SCAN", "-1")).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(resp.command("SCAN", "18446744073709551616")).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(resp.command("SCAN", "0", "COUNT", "0")).isEqualTo(SYNTAX);
        assertThat(resp.command("SCAN", "0", "COUNT", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("SCAN", "0", "MATCH")).isEqualTo(SYNTAX);
        assertThat(resp.command("SCAN", "0", "LIMIT", "3")).isEqualTo(SYNTAX);
        assertThat(resp.command("SCAN")).isEqualTo("-ERR wrong number of arguments for 'scan' command\r\n");
        // the largest cursor parses, and ends the scan
        assertThat(resp.command("SCAN", "18446744073709551615")).isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
    }

    @Test
    @SuppressWarnings("unchecked")
    void keysMatchesAsRedisIoDocuments() {
        assertThat(resp.command("MSET", "firstname", "Jack", "lastname", "Stuntman", "age", "35"))
                .isEqualTo("+OK\r\n");
        assertThat((List<Object>) parse(resp.command("KEYS", "*name*")))
                .containsExactlyInAnyOrder("firstname", "lastname");
        assertThat((List<Object>) parse(resp.command("KEYS", "a??"))).containsExactly("age");
        assertThat((List<Object>) parse(resp.command("KEYS", "*")))
                .containsExactlyInAnyOrder("firstname", "lastname", "age");
        assertThat(resp.command("KEYS", "nothing*")).isEqualTo("*0\r\n");
        assertThat(resp.command("KEYS")).isEqualTo("-ERR wrong number of arguments for 'keys' command\r\n");
    }

    @Test
    void randomKeyIsNilWhenEmptyElseAKeyHeld() {
        assertThat(resp.command("RANDOMKEY")).isEqualTo("$-1\r\n");
        resp.command("MSET", "a", "1", "b", "2");
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) seen.add(parse(resp.command("RANDOMKEY")));
        assertThat(seen).containsExactlyInAnyOrder("a", "b");
        assertThat(resp.command("RANDOMKEY", "x"))
                .isEqualTo("-ERR wrong number of arguments for 'randomkey' command\r\n");
    }

    @Test
    @SuppressWarnings("unchecked")
    void unfinishedAndLostKeysAreListedAsKeysTheNodeHolds() {
        resp.command("SET", "done", "v");
        resp.store.put("waiting".getBytes(), StoredValue.unfinished(TxId.of(1, 50), 0, 7));
        resp.store.put("lost".getBytes(), StoredValue.lost(TxId.of(1, 51), 0, 3));
        resp.store.put("deleted".getBytes(), StoredValue.tombstone(TxId.of(1, 52)));
        assertThat(resp.command("DBSIZE")).isEqualTo(":3\r\n");
        assertThat(scanAll()).containsExactlyInAnyOrder("done", "waiting", "lost");
        assertThat((List<Object>) parse(resp.command("KEYS", "*")))
                .containsExactlyInAnyOrder("done", "waiting", "lost");
        // the length the missing value is expected to have
        assertThat(resp.command("MEMORY", "USAGE", "waiting"))
                .isEqualTo(":" + (7 + 7 + ServerCommands.RECORD_OVERHEAD) + "\r\n");
        assertThat(resp.command("MEMORY", "USAGE", "deleted")).isEqualTo("$-1\r\n");
    }

    @Test
    void memoryUsageEstimatesKeyValueAndRecordBytes() {
        resp.command("SET", "k", "12345");
        assertThat(resp.command("MEMORY", "USAGE", "k"))
                .isEqualTo(":" + (1 + 5 + ServerCommands.RECORD_OVERHEAD) + "\r\n");
        assertThat(resp.command("memory", "usage", "k", "SAMPLES", "0"))
                .isEqualTo(":" + (1 + 5 + ServerCommands.RECORD_OVERHEAD) + "\r\n");
        assertThat(resp.command("MEMORY", "USAGE", "missing")).isEqualTo("$-1\r\n");
        resp.command("DEL", "k");
        assertThat(resp.command("MEMORY", "USAGE", "k")).isEqualTo("$-1\r\n");
        assertThat(resp.command("MEMORY", "USAGE", "k", "SAMPLES")).isEqualTo(SYNTAX);
        assertThat(resp.command("MEMORY", "USAGE", "k", "SAMPLES", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("MEMORY", "USAGE"))
                .isEqualTo("-ERR wrong number of arguments for 'memory|usage' command\r\n");
        assertThat(resp.command("MEMORY", "DOCTOR")).startsWith("-ERR unknown subcommand 'DOCTOR'");
    }

    @Test
    void waitWithoutABackupCountsNoneAfterItsTimeout() {
        assertThat(resp.command("SET", "k", "v")).isEqualTo("+OK\r\n");
        assertThat(resp.command("WAIT", "0", "0")).isEqualTo(":0\r\n");
        assertThat(resp.command("WAIT", "1", "50")).isEmpty(); // waits its timeout
        assertThat(resp.awaitReply()).isEqualTo(":0\r\n");
    }

    @Test
    void waitRefusesBadArgumentsWithRedisWords() {
        assertThat(resp.command("WAIT", "x", "0")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("WAIT", "1", "x")).isEqualTo("-ERR timeout is not an integer or out of range\r\n");
        assertThat(resp.command("WAIT", "1", "-1")).isEqualTo("-ERR timeout is negative\r\n");
        assertThat(resp.command("WAIT", "1")).isEqualTo("-ERR wrong number of arguments for 'wait' command\r\n");
    }

    @Test
    void waitCountsTheBackupOnceItConfirmedThisConnectionsLastWrite() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        // no write yet: the streaming backup counts
        assertThat(resp.command("WAIT", "1", "0")).isEqualTo(":1\r\n");
        // async: answered at once, not yet confirmed
        assertThat(resp.command("KVS.MODE", "async")).isEqualTo("+OK\r\n");
        assertThat(resp.command("SET", "k", "v")).isEqualTo("+OK\r\n");
        assertThat(resp.command("WAIT", "0", "0")).isEqualTo(":0\r\n");
        assertThat(resp.command("WAIT", "1", "30")).isEmpty();
        assertThat(resp.awaitReply()).isEqualTo(":0\r\n");
        // blocks (timeout 0: for ever) until the backup confirms
        assertThat(resp.command("WAIT", "1", "0")).isEmpty();
        backup.ackAll();
        assertThat(resp.awaitReply()).isEqualTo(":1\r\n");
        assertThat(resp.command("WAIT", "1", "0")).isEqualTo(":1\r\n");
        // a write that writes nothing (NX on an existing key) keeps the last write's confirmation
        assertThat(resp.command("SET", "k", "w", "NX")).isEqualTo("$-1\r\n");
        assertThat(resp.command("WAIT", "1", "0")).isEqualTo(":1\r\n");
        // a new write is not confirmed until acknowledged
        assertThat(resp.command("SET", "k2", "v")).isEqualTo("+OK\r\n");
        assertThat(resp.command("WAIT", "2", "20")).isEmpty(); // more than there can be: waits the timeout
        assertThat(resp.awaitReply()).isEqualTo(":0\r\n");
        backup.ackAll();
        assertThat(resp.command("WAIT", "2", "20")).isEmpty();
        assertThat(resp.awaitReply()).isEqualTo(":1\r\n");
    }
}
