package dev.kvs.server.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The strict parameter readers: what they cannot read exactly is a 400 naming the parameter. */
class AdminRequestTest {
    private static AdminRequest request(String uri) {
        QueryStringDecoder d = new QueryStringDecoder(uri);
        return new AdminRequest("POST", d.path(), d.parameters(), new byte[0]);
    }

    @Test
    void flagsAreExactlyTrueOrFalseAndFalseWhenAbsent() {
        assertThat(request("/p?lost=true").flag("lost")).isTrue();
        assertThat(request("/p?lost=false").flag("lost")).isFalse();
        assertThat(request("/p").flag("lost")).isFalse();
        for (String bad : new String[] {"yes", "1", "TRUE", "True", "", "true "}) {
            assertThatThrownBy(
                            () -> request("/p?lost=" + bad.replace(" ", "%20")).flag("lost"))
                    .isInstanceOf(AdminException.class)
                    .hasMessage("lost is not true or false: \"" + bad + "\"")
                    .satisfies(e -> assertThat(((AdminException) e).status()).isEqualTo(400));
        }
    }

    @Test
    void numbersMustBeDecimalAndInRange() {
        assertThat(request("/p?t=5").number("t", 1, 10, 7)).isEqualTo(5);
        assertThat(request("/p").number("t", 1, 10, 7)).isEqualTo(7);
        assertThat(request("/p?t=-4").number("t")).isEqualTo(OptionalLong.of(-4));
        assertThat(request("/p").number("t")).isEmpty();
        assertThatThrownBy(() -> request("/p?t=11").number("t", 1, 10, 7))
                .isInstanceOf(AdminException.class)
                .hasMessage("t is not in 1..10: 11");
        assertThatThrownBy(() -> request("/p?t=0").number("t", 1, 10, 7)).hasMessage("t is not in 1..10: 0");
        for (String bad : new String[] {"1.5", "1e3", "x", "", "99999999999999999999", "0x10"}) {
            assertThatThrownBy(() -> request("/p?t=" + bad).number("t", 1, 10, 7))
                    .isInstanceOf(AdminException.class)
                    .hasMessage("t is not a number: \"" + bad + "\"");
        }
    }

    @Test
    void unknownAndRepeatedParametersAreRefused() {
        request("/p?lost=true").allowOnly("lost");
        request("/p").allowOnly();
        assertThatThrownBy(() -> request("/p?lsot=true").allowOnly("lost"))
                .isInstanceOf(AdminException.class)
                .hasMessage("unknown parameter \"lsot\" for POST /p (known: [lost])");
        assertThatThrownBy(() -> request("/p?x=1").allowOnly())
                .hasMessage("unknown parameter \"x\" for POST /p (known: none)");
        assertThatThrownBy(() -> request("/p?lost=true&lost=false").allowOnly("lost"))
                .isInstanceOf(AdminException.class)
                .hasMessage("lost is given 2 times");
    }

    @Test
    void longValuesAreCutShortInMessages() {
        String longValue = "a".repeat(500);
        assertThatThrownBy(() -> request("/p?t=" + longValue).number("t"))
                .hasMessage("t is not a number: \"" + "a".repeat(64) + "...\"");
    }

    @Test
    void onlyClientErrorStatusesAreRefusals() {
        assertThat(AdminException.conflict("x").status()).isEqualTo(409);
        assertThatThrownBy(() -> new AdminException(500, "x")).isInstanceOf(IllegalArgumentException.class);
    }
}
