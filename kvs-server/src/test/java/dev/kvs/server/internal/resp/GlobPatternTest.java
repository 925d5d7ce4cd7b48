package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Redis's glob semantics (KEYS' documented examples, and stringmatchlen's corner cases). */
class GlobPatternTest {
    private static boolean matches(String pattern, String subject) {
        return new GlobPattern(pattern.getBytes(StandardCharsets.ISO_8859_1))
                .matches(subject.getBytes(StandardCharsets.ISO_8859_1));
    }

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                // redis.io KEYS
                "h?llo|hello|true",
                "h?llo|hallo|true",
                "h?llo|hxllo|true",
                "h?llo|hllo|false",
                "h*llo|hllo|true",
                "h*llo|heeeello|true",
                "h[ae]llo|hello|true",
                "h[ae]llo|hallo|true",
                "h[ae]llo|hillo|false",
                "h[^e]llo|hallo|true",
                "h[^e]llo|hbllo|true",
                "h[^e]llo|hello|false",
                "h[a-b]llo|hallo|true",
                "h[a-b]llo|hbllo|true",
                "h[a-b]llo|hcllo|false",
                // escapes
                "h\\*llo|h*llo|true",
                "h\\*llo|hello|false",
                "h\\?llo|h?llo|true",
                "\\[x\\]|[x]|true",
                "[\\]]|]|true",
                "[\\-]|-|true",
                "[\\-]|a|false",
                "a\\|a\\|true", // a trailing backslash matches itself
                "a\\|a|false",
                // ranges, reversed ranges, sets
                "[z-a]|m|true",
                "[a-c-e]|-|true", // after a range, '-' is a plain member
                "[a-c-e]|d|false",
                "[a-c-e]|e|true",
                "[abc]|d|false",
                "[^abc]|d|true",
                // an unclosed set ends with the pattern
                "[ab|a|true",
                "[ab|c|false",
                "x[ab|xb|true",
                // stars
                "*|''|true",
                "*|anything|true",
                "a*|a|true",
                "*a|ba|true",
                "*a|ab|false",
                "a**b|ab|true",
                "a*b*c|aXbYc|true",
                "a*b*c|aXbYd|false",
                "**|''|false", // as Redis: only a lone * matches the empty key
                "''|''|true",
                "''|a|false",
                "?|''|false",
                "a?|a|false",
            })
    void matchesAsRedis(String pattern, String subject, boolean expected) {
        assertThat(matches(pattern, subject)).isEqualTo(expected);
    }

    @Test
    void bytesAboveAsciiCompareAsRedisSignedChars() {
        byte[] subject = {(byte) 0xE9};
        assertThat(new GlobPattern(new byte[] {'?'}).matches(subject)).isTrue();
        assertThat(new GlobPattern(new byte[] {(byte) 0xE9}).matches(subject)).isTrue();
        // [\x80-\xff] is the signed range -128..-1 in Redis: 0xE9 (-23) is inside it
        assertThat(new GlobPattern(new byte[] {'[', (byte) 0x80, '-', (byte) 0xFF, ']'}).matches(subject))
                .isTrue();
        // [a-\xff] is 'a'..-1 reversed to -1..97: 0xE9 is outside
        assertThat(new GlobPattern(new byte[] {'[', 'a', '-', (byte) 0xFF, ']'}).matches(subject))
                .isFalse();
    }

    @Test
    void anAbusivePatternFinishesAndDoesNotMatch() {
        String pattern = "a*".repeat(40) + "b";
        String subject = "a".repeat(5000);
        assertThat(matches(pattern, subject)).isFalse(); // polynomial thanks to skipLongerMatches
        assertThat(matches("*".repeat(2000) + "a", "a")).isTrue(); // consecutive stars collapse
        String nested = "a*".repeat(1100);
        assertThat(matches(nested, "a".repeat(1100))).isFalse(); // nesting past 1000 gives up, as Redis
    }
}
