package dev.kvs.server.internal.notify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventClassesTest {
    /** What {@code CONFIG GET notify-keyspace-events} answered after {@code CONFIG SET} of each (redis 7.0.15). */
    @ParameterizedTest
    @CsvSource(
            value = {
                "KEA|AKE",
                "$gxE|g$xE",
                "Kx|xK",
                "An|A",
                "AKEm|AKEm",
                "nmlK|lnKm",
                "ghzlsxetdn|glshzxetdn",
                "''|''",
                "g$lshzxetdKE|AKE",
                "Ex|xE"
            },
            delimiter = '|')
    void rendersTheLettersAsRedisWritesThemBack(String set, String got) {
        int flags = EventClasses.parse(set);
        assertThat(flags).isNotNegative();
        assertThat(EventClasses.render(flags)).isEqualTo(got);
    }

    @ParameterizedTest
    @ValueSource(strings = {"KEAq", "k", " ", "KE,A", "\u00e9"})
    void aLetterRedisDoesNotKnowMakesTheWholeSettingInvalid(String letters) {
        assertThat(EventClasses.parse(letters)).isEqualTo(-1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"A", "KEA", "gx"})
    void newKeysAndKeyMissesAreNotPartOfA(String letters) {
        int flags = EventClasses.parse(letters);
        assertThat(flags & EventClasses.NEW).isZero();
        assertThat(flags & EventClasses.KEY_MISS).isZero();
    }
}
