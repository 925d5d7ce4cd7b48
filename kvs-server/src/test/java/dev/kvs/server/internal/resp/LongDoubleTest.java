package dev.kvs.server.internal.resp;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LongDouble} gives what redis-server 7.0.15 (x86-64 Linux) answers to {@code SET k <current>}
 * then {@code INCRBYFLOAT k <by>}: each row's answer was read off a real redis-server (with {@code
 * redis-cli}), and the {@code INCRBYFLOAT} rows of {@code RedisCompatibilityTest} run against one too.
 * A Java {@code double} gets most of the rows wrong (0.1 + 0.2, integers beyond 2^53, sums beyond
 * 1.8e308, 17 decimals of 1/3).
 */
class LongDoubleTest {
    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource({
        "0.1, 0.2, 0.3",
        "0.1, 0.7, 0.8",
        "3.0, -1.1, 1.9",
        "10.50, 0.1, 10.6",
        "5.0e3, 2.0e2, 5200",
        "1, 0.3333333333333333333333, 1.33333333333333333",
        "0, 1e-20, 0",
        "1e-20, 1e-20, 0",
        "-0.0, 0, 0",
        "0.1, -0.1, 0",
        "123456789012345678, 1, 123456789012345679",
        "9223372036854775807, 1, 9223372036854775808",
        "18446744073709551615, 0, 18446744073709551615",
        "18446744073709551617, 0, 18446744073709551616",
        "0.000000000000000005, 0, 0",
        "0.000000000000000015, 0, 0.00000000000000002",
        "2.5e-17, 0, 0.00000000000000002",
        "1e-4940, 0, 0",
        "1e300, 1e300, 2000000000000000000017994648159118387741047888546581495876520164642531293192361871511698304167500994380700745017228549671807185112369345967826192521041497292574654271283687306588168510215212033579453305864740061102765895241989080589545563779241212358535223254194821301134374772211380178849830208012288",
        "1.7976931348623157e308, 1e308, 279769313486231570002352240441350078789299929179619934003987695617693370918830364684014944221042050987341155710361544171686148029276505307138777262321877129888036065002204239033812550598509174132739480498569620043582760541189365866551522561741435317031294527744011878159793174665688773926186886103199182225408",
    })
    void addsAndPrintsAsRedisDoes(String current, String by, String expected) {
        LongDouble sum = LongDouble.parse(b(current)).plus(LongDouble.parse(b(by)));
        assertThat(sum.isFinite()).isTrue();
        assertThat(sum.format()).isEqualTo(expected);
    }

    /** Too long for a row in full: Redis's first 120 digits, its last 20, and its length. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "1.5e400, 149999999999999999997875712581806327576020165562441099464511181004128788377976669396408570237865633710314174821524312470, 51272530901454553088, 401",
        "1.1e4932, 109999999999999999997437310752824181765903086927904340773498800181702414510651311250424750798933487852024830828136103947, 78522323242088136704, 4933",
    })
    void printsTheExactBinaryValueOfNumbersBeyondADouble(String value, String first, String last, int length) {
        String printed = LongDouble.parse(b(value)).format();
        assertThat(printed).startsWith(first).endsWith(last).hasSize(length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e4932"})
    void aSumPastTheLargestLongDoubleIsInfinite(String value) {
        LongDouble d = LongDouble.parse(b(value));
        assertThat(d.isFinite()).isTrue();
        assertThat(d.plus(d).isFinite()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e5000", "1e-5000", "abc", "", " 1", "1 ", "0x10", "1e", "."})
    void outOfRangeOrMalformedIsNotAFloat(String text) {
        assertThat(LongDouble.parse(b(text))).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"inf", "-inf", "Infinity", "+INF"})
    void infinitiesReadButAreNotFinite(String text) {
        LongDouble d = LongDouble.parse(b(text));
        assertThat(d).isNotNull();
        assertThat(d.isFinite()).isFalse();
        assertThat(LongDouble.parse(b("3")).plus(d).isFinite()).isFalse();
    }

    private static byte[] b(String s) {
        return s.getBytes(US_ASCII);
    }
}
