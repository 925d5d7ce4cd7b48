package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client's hash and set calls ({@link KvsHashes}, {@link KvsSets}) and {@code expire}, each run
 * against a real redis-server 7 and a kvs node: the same calls must give the same results on both, so
 * the client speaks plain Redis and kvs answers it as Redis does.
 */
class HashesAndSetsTest {
    private static RedisAndKvs servers;

    @BeforeAll
    static void start() {
        servers = RedisAndKvs.start("structures-test");
    }

    @AfterAll
    static void stop() {
        if (servers != null) servers.close();
    }

    private static KvsClient client(String server) {
        return servers.client(server);
    }

    private static byte[] b(String s) {
        return RedisAndKvs.b(s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void hashFieldsAreSetReadAndRemoved(String server) {
        KvsHashes h = client(server).hashes();
        String key = "h:" + server + ":rw";
        assertThat(h.put(key, "name", "alice")).isTrue();
        assertThat(h.put(key, "name", "bob")).isFalse(); // replaced, not new
        Map<String, String> more = new LinkedHashMap<>();
        more.put("cart", "3 items");
        more.put("name", "carol");
        assertThat(h.putAll(key, more)).isEqualTo(1);
        assertThat(h.get(key, "name")).isEqualTo("carol");
        assertThat(h.get(key, "absent")).isNull();
        assertThat(h.getAll(key)).containsOnly(Map.entry("name", "carol"), Map.entry("cart", "3 items"));
        assertThat(h.get(b(key), List.of(b("cart"), b("absent"))))
                .satisfiesExactly(
                        v -> assertThat(v).isEqualTo(b("3 items")),
                        v -> assertThat(v).isNull());
        assertThat(h.putIfAbsent(b(key), b("name"), b("dave"))).isFalse();
        assertThat(h.putIfAbsent(b(key), b("seen"), b("1"))).isTrue();
        assertThat(h.contains(b(key), b("seen"))).isTrue();
        assertThat(h.size(b(key))).isEqualTo(3);
        assertThat(h.delete(b(key), List.of(b("seen"), b("absent")))).isEqualTo(1);
        assertThat(h.delete(key, "cart")).isTrue();
        assertThat(h.delete(key, "name")).isTrue();
        // the last field took the key with it, as in Redis
        assertThat(client(server).exists(b(key))).isFalse();
        assertThat(h.getAll(key)).isEmpty();
        assertThat(h.size(b(key))).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void hashIncrementsAndRefusesNonIntegers(String server) {
        KvsHashes h = client(server).hashes();
        String key = "h:" + server + ":incr";
        assertThat(h.increment(key, "visits", 5)).isEqualTo(5);
        assertThat(h.increment(key, "visits", -2)).isEqualTo(3);
        h.put(key, "name", "alice");
        assertThatThrownBy(() -> h.increment(key, "name", 1))
                .isExactlyInstanceOf(KvsClientException.class)
                .hasMessage("ERR hash value is not an integer");
        assertThat(h.get(key, "visits")).isEqualTo("3");
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void asyncCallsGiveWhatSyncOnesDo(String server) {
        KvsClient c = client(server);
        byte[] key = b("h:" + server + ":async");
        assertThat(c.hashes().putAsync(key, b("f"), b("v")).join()).isTrue();
        assertThat(c.hashes().getAsync(key, b("f")).join()).isEqualTo(b("v"));
        assertThat(c.hashes().putAllAsync(key, Map.of("g", b("w"))).join()).isEqualTo(1);
        assertThat(c.hashes().getAllAsync(key).join()).containsOnlyKeys("f", "g");
        byte[] set = b("s:" + server + ":async");
        assertThat(c.sets().addAsync(set, b("m")).join()).isTrue();
        assertThat(c.sets().containsAsync(set, b("m")).join()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void setMembersAreAddedTestedAndPopped(String server) {
        KvsSets s = client(server).sets();
        String key = "s:" + server + ":rw";
        assertThat(s.add(key, "a")).isTrue();
        assertThat(s.add(key, "a")).isFalse();
        assertThat(s.addAll(b(key), List.of(b("b"), b("c"), b("a")))).isEqualTo(2);
        assertThat(s.members(key)).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(s.contains(key, "b")).isTrue();
        assertThat(s.contains(key, "z")).isFalse();
        assertThat(s.size(b(key))).isEqualTo(3);
        assertThat(s.remove(key, "b")).isTrue();
        assertThat(s.removeAll(b(key), List.of(b("b"), b("c")))).isEqualTo(1);
        byte[] popped = s.pop(b(key));
        assertThat(popped).isEqualTo(b("a"));
        assertThat(s.pop(b(key))).isNull();
        assertThat(client(server).exists(b(key))).isFalse();
        assertThat(s.members(b(key))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void aCallOnAnotherTypeThrowsWrongType(String server) {
        KvsClient c = client(server);
        String str = "t:" + server + ":string";
        String hash = "t:" + server + ":hash";
        c.put(str, "text");
        c.hashes().put(hash, "f", "v");
        List<Runnable> calls = new ArrayList<>();
        calls.add(() -> c.hashes().get(str, "f"));
        calls.add(() -> c.hashes().put(str, "f", "v"));
        calls.add(() -> c.sets().add(hash, "m"));
        calls.add(() -> c.sets().members(hash));
        calls.add(() -> c.get(hash));
        for (Runnable call : calls) {
            assertThatThrownBy(call::run)
                    .isInstanceOf(WrongTypeException.class)
                    .hasMessage("WRONGTYPE Operation against a key holding the wrong kind of value");
        }
        assertThat(c.get(str)).isEqualTo("text"); // nothing written
        assertThat(c.hashes().getAll(hash)).containsOnly(Map.entry("f", "v"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "kvs"})
    void aHashExpires(String server) {
        KvsClient c = client(server);
        String key = "e:" + server + ":session";
        assertThat(c.expire(key, Duration.ofSeconds(5))).isFalse(); // nothing to expire yet
        c.hashes().put(key, "user", "alice");
        assertThat(c.expire(key, Duration.ofMillis(300))).isTrue();
        assertThat(c.hashes().get(key, "user")).isEqualTo("alice"); // a field write keeps the TTL
        await("the hash expires").atMost(Duration.ofSeconds(10)).until(() -> !c.exists(b(key)));
        assertThat(c.hashes().getAll(key)).isEmpty();
        assertThatThrownBy(() -> c.expire(key, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not positive");
    }
}
