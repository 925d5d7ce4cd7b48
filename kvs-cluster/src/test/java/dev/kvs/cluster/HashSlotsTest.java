package dev.kvs.cluster;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HashSlotsTest {

    @Test
    void crc16IsTheXmodemVariantRedisUses() {
        // The check value of CRC-16/XMODEM, the one Redis's cluster specification quotes.
        assertThat(HashSlots.crc16("123456789".getBytes(US_ASCII), 0, 9)).isEqualTo(0x31C3);
    }

    @ParameterizedTest
    @CsvSource({
        // key, the string whose CRC gives the slot (the cluster specification's examples)
        "'{user1000}.following', user1000",
        "'{user1000}.followers', user1000",
        "'foo{}{bar}', 'foo{}{bar}'",
        "'foo{{bar}}zap', '{bar'",
        "'foo{bar}{zap}', bar",
        "'{', '{'",
        "'a}b{c', 'a}b{c'",
    })
    void onlyANonEmptyFirstHashTagIsHashed(String key, String hashed) {
        byte[] h = hashed.getBytes(US_ASCII);
        assertThat(HashSlots.slot(key.getBytes(US_ASCII))).isEqualTo(HashSlots.crc16(h, 0, h.length) % 16384);
    }

    /**
     * Every key of a file written by a real Redis ({@code scripts/redis-keyslot-golden.py}: seeded random
     * binary keys, many with braces) gets the slot Redis gave it.
     */
    @Test
    void equalsRedisOnItsOwnAnswers() throws IOException {
        List<String> wrong = new ArrayList<>();
        int keys = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Objects.requireNonNull(getClass().getResourceAsStream("keyslots-redis.txt")), US_ASCII))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("#")) continue;
                String[] f = line.split(" ");
                byte[] key = f[0].equals("-") ? new byte[0] : HexFormat.of().parseHex(f[0]);
                int slot = HashSlots.slot(key);
                if (slot != Integer.parseInt(f[1])) wrong.add(f[0] + ": redis " + f[1] + ", ours " + slot);
                keys++;
            }
        }
        assertThat(keys).isEqualTo(4096);
        assertThat(wrong).isEmpty();
    }
}
