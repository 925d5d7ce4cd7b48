package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Inline commands split as Redis 7.0.15's {@code sdssplitargs} splits them. */
class InlineWordsTest {
    private static List<String> words(String line) {
        return Arrays.stream(InlineWords.of(line.getBytes(StandardCharsets.ISO_8859_1)))
                .map(w -> new String(w, StandardCharsets.ISO_8859_1))
                .toList();
    }

    @Test
    void plainWordsSplitAtRunsOfSpace() {
        assertThat(words("  SET  k\tv \r")).containsExactly("SET", "k", "v");
        assertThat(words("")).isEmpty();
    }

    @Test
    void quotesGroupAndEscape() {
        assertThat(words("SET \"a b\" 'c d'")).containsExactly("SET", "a b", "c d");
        assertThat(words("SET k \"\\x41\\n\\t\\\"\\\\z\"")).containsExactly("SET", "k", "A\n\t\"\\z");
        assertThat(words("SET k 'don\\'t'")).containsExactly("SET", "k", "don't");
        assertThat(words("SET k\"x y\" v")).as("a quote inside a word opens it").containsExactly("SET", "kx y", "v");
        assertThat(words("SET \"\" v")).containsExactly("SET", "", "v");
    }

    @Test
    void anUnbalancedQuoteIsAProtocolError() {
        for (String line : List.of(
                "set \"\"\"test-key\"\"\" test-value", "set \"test-key\" \"test-value", "get 'k", "get \"a\"b")) {
            assertThatThrownBy(() -> InlineWords.of(line.getBytes(StandardCharsets.ISO_8859_1)))
                    .as(line)
                    .isInstanceOf(RespCommandDecoder.RespProtocolException.class)
                    .hasMessage("unbalanced quotes in request");
        }
    }
}
