package dev.kvs.server.internal.resp;

import dev.kvs.core.Member;
import dev.kvs.core.ValueType;
import dev.kvs.server.internal.write.LastWrite;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Hashes and sets written through {@link dev.kvs.server.internal.write.StructureWrites}, as HSET and
 * SADD will write them, for the tests of the commands that meet them (HSET and SADD are other groups).
 */
final class StructureFixtures {
    private StructureFixtures() {}

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** HSET key field value [field value ...]. */
    static void hset(RespChannel resp, String key, String... fieldsAndValues) {
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < fieldsAndValues.length; i += 2) {
            ms.add(new Member(b(fieldsAndValues[i]), b(fieldsAndValues[i + 1])));
        }
        write(resp, key, ValueType.HASH, ms);
    }

    /** SADD key member [member ...]. */
    static void sadd(RespChannel resp, String key, String... members) {
        List<Member> ms = new ArrayList<>();
        for (String m : members) ms.add(Member.of(b(m)));
        write(resp, key, ValueType.SET, ms);
    }

    private static void write(RespChannel resp, String key, ValueType type, List<Member> ms) {
        resp.commands
                .structures()
                .put(resp.commands.mode(), LastWrite.NONE, b(key), type, ms, false)
                .replicated()
                .join();
    }

    /** The members of the hash or set at {@code key}, as "name=value" (a set's: "name="), sorted. */
    static List<String> members(RespChannel resp, String key, ValueType type) {
        List<String> out = new ArrayList<>();
        for (Member m : resp.store.members(b(key), type)) {
            out.add(new String(m.name(), StandardCharsets.ISO_8859_1) + "="
                    + new String(m.value(), StandardCharsets.ISO_8859_1));
        }
        out.sort(null);
        return out;
    }
}
