package dev.kvs.bench.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespConnectionTest {
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();

    private RespConnection replying(String replies) {
        return new RespConnection(new ByteArrayInputStream(replies.getBytes(StandardCharsets.ISO_8859_1)), sent);
    }

    @Test
    void commandsGoOutAsArraysOfBulkStrings() throws IOException {
        RespConnection c = replying("");
        byte[] big = new byte[100_000];
        c.send("SET", "k", new byte[] {1, 2});
        c.send("PING");
        c.send("SET", "\u00e9", big);

        byte[] expectedHead =
                "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n\u0001\u0002\r\n*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$2\r\n\u00c3\u00a9\r\n$100000\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = sent.toByteArray();
        assertThat(all).hasSize(expectedHead.length + big.length + 2);
        assertThat(java.util.Arrays.copyOf(all, expectedHead.length)).isEqualTo(expectedHead);
        assertThat(new String(all, all.length - 2, 2, StandardCharsets.ISO_8859_1))
                .isEqualTo("\r\n");
    }

    @Test
    void everyReplyTypeIsRead() throws IOException {
        RespConnection c = replying("+OK\r\n-BUSY bound full\r\n:42\r\n$3\r\nabc\r\n$-1\r\n*2\r\n:1\r\n$0\r\n\r\n");

        assertThat(c.read()).isEqualTo("OK");
        assertThat(c.read()).isEqualTo(new RespConnection.ErrorReply("BUSY bound full"));
        assertThat(c.read()).isEqualTo(42L);
        assertThat((byte[]) c.read()).isEqualTo("abc".getBytes(StandardCharsets.US_ASCII));
        assertThat(c.read()).isNull();
        assertThat(c.read()).asList().hasSize(2).first().isEqualTo(1L);
    }

    @Test
    void anErrorsKindIsItsFirstWord() {
        assertThat(new RespConnection.ErrorReply("NOREPLICA not confirmed in 5000 ms").kind())
                .isEqualTo("NOREPLICA");
        assertThat(new RespConnection.ErrorReply("BUSY").kind()).isEqualTo("BUSY");
    }

    @Test
    void callSendsThenReadsTheReply() throws IOException {
        RespConnection c = replying("+PONG\r\n");
        assertThat(c.call("PING")).isEqualTo("PONG");
        assertThat(sent.toString(StandardCharsets.US_ASCII)).isEqualTo("*1\r\n$4\r\nPING\r\n");
    }

    @Test
    void aClosedConnectionOrGarbageIsAnIoError() {
        assertThatThrownBy(() -> replying("").read()).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> replying("$5\r\nab").read())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cut short");
        assertThatThrownBy(() -> replying("?what\r\n").read())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not a RESP reply");
        assertThatThrownBy(() -> replying(":x1\r\n").read())
                .isInstanceOf(IOException.class)
                .hasMessage("not a RESP number: x1");
    }

    @Test
    void onlyStringsAndBytesAreArguments() {
        assertThatThrownBy(() -> replying("").send("SET", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("argument is not a String or byte[]: []");
    }
}
