package dev.kvs.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
    private final StringWriter err = new StringWriter();

    @Test
    void barIsTwentyWideAndFullAtTheEnd() {
        assertThat(ProgressLine.bar(0, 10)).isEqualTo("[....................]");
        assertThat(ProgressLine.bar(2.5, 10)).isEqualTo("[#####...............]");
        assertThat(ProgressLine.bar(10, 10)).isEqualTo("[####################]");
        assertThat(ProgressLine.bar(12, 10)).as("past the end").isEqualTo("[####################]");
        assertThat(ProgressLine.bar(0, 0)).as("nothing to wait for").isEqualTo("[####################]");
    }

    @Test
    void closeShowsTheLastStateAsAPlainLineWhenNotOnATerminal() {
        new ProgressLine(new PrintWriter(err), false, Duration.ofHours(1), () -> "loaded 3/3").close();

        assertThat(err.toString()).isEqualTo("loaded 3/3" + System.lineSeparator());
    }

    @Test
    void onATerminalTheLineIsRedrawnInPlaceAndEndedOnClose() {
        new ProgressLine(new PrintWriter(err), true, Duration.ofHours(1), () -> "ramp 1/1").close();

        assertThat(err.toString()).startsWith("\r").endsWith("\rramp 1/1" + System.lineSeparator());
    }
}
