package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Coverage-guided fuzzing of the RESP request decoder (Jazzer). In {@code mvn verify} each method
 * runs once per committed input under {@code
 * src/test/resources/dev/kvs/server/internal/resp/RespCommandDecoderJazzerTestInputs/METHOD/}
 * (regression); with {@code JAZZER_FUZZ=1} it fuzzes (see the README's security section).
 *
 * <p>Properties: fed in arbitrary pieces with arbitrary limits, before or without authentication, the
 * decoder throws nothing but its {@link RespCommandDecoder.RespProtocolException} (once; nothing is
 * decoded after it), never hands on a command beyond its limits (arguments, argument length, the
 * pre-authentication caps), never holds more for a bulk string than it has received (at least its
 * minimum chunk), lets go of everything when the connection closes, and releases every input buffer;
 * a valid command encoded as RESP decodes to itself whatever the pieces.
 */
class RespCommandDecoderJazzerTest {

    /**
     * The fuzzer's first finding (input {@code finding-inline-invalid-utf8-grew-past-the-line-limit}):
     * inline words were decoded as UTF-8 and encoded back, so each invalid byte became three, a word
     * could outgrow the line limit, and binary values sent inline were altered. Words are bytes now.
     */
    @Test
    void inlineWordsAreTheBytesSent() {
        EmbeddedChannel channel = new EmbeddedChannel(new RespCommandDecoder(16, 8, 16, false, new ClientStats()));
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {
            ' ', 'S', 'E', 'T', ' ', 'k', '\t', (byte) 0xFF, (byte) 0xCE, 0x01, (byte) 0xE2, ' ', '\r', '\n'
        }));
        RespCommand c = channel.readInbound();
        assertThat(c.error()).isNull();
        assertThat(c.args()[0]).isEqualTo("SET".getBytes(StandardCharsets.US_ASCII));
        assertThat(c.args()[1]).isEqualTo(new byte[] {'k'});
        assertThat(c.args()[2]).isEqualTo(new byte[] {(byte) 0xFF, (byte) 0xCE, 0x01, (byte) 0xE2});
        assertThat(c.args().length).isEqualTo(3);
        assertThat(RespCommandDecoder.inlineWords(" \u0001 ".getBytes(StandardCharsets.US_ASCII)))
                .isEmpty();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @FuzzTest(maxDuration = "2m")
    void decoderStaysWithinItsLimits(FuzzedDataProvider data) {
        boolean preAuth = data.consumeBoolean();
        int maxBulk = data.consumeInt(1, 4096);
        int maxElements = data.consumeInt(1, 64);
        int maxInline = data.consumeInt(16, 4096);
        ClientStats stats = new ClientStats();
        EmbeddedChannel channel =
                new EmbeddedChannel(new RespCommandDecoder(maxBulk, maxElements, maxInline, preAuth, stats));
        List<ByteBuf> fed = new ArrayList<>();
        long received = 0;
        boolean failed = false;
        while (data.remainingBytes() > 0) {
            byte[] piece = data.consumeBytes(data.consumeInt(1, 512));
            if (piece.length == 0) break;
            ByteBuf buf = Unpooled.wrappedBuffer(piece);
            fed.add(buf);
            received += piece.length;
            boolean failsNow = false;
            try {
                channel.writeInbound(buf);
            } catch (RespCommandDecoder.RespProtocolException e) {
                assertThat(failed).as("a second failure: %s", e).isFalse();
                failsNow = true;
            }
            // commands decoded from this piece before its bad bytes come out with the failure
            for (Object msg; (msg = channel.readInbound()) != null; ) {
                assertThat(failed)
                        .as("a command from a piece after the failure")
                        .isFalse();
                RespCommand c = (RespCommand) msg;
                if (c.error() != null) {
                    assertThat(c.error()).startsWith("ERR Protocol error: ");
                    continue;
                }
                byte[][] args = c.args();
                // an inline command's words come from a line of at most maxInline bytes
                assertThat(args.length).isLessThanOrEqualTo(Math.max(maxElements, maxInline));
                for (byte[] a : args) assertThat(a.length).isLessThanOrEqualTo(Math.max(maxBulk, maxInline));
                if (preAuth) {
                    assertThat(args.length).isLessThanOrEqualTo(RespCommandDecoder.PRE_AUTH_MAX_ARGS);
                    for (byte[] a : args) {
                        assertThat(a.length).isLessThanOrEqualTo(RespCommandDecoder.PRE_AUTH_MAX_BULK);
                    }
                }
            }
            failed |= failsNow;
            assertThat(stats.inputBulks.get()).isBetween(0, 1);
            assertThat(stats.inputBulkBytes.get())
                    .as("bytes held for a bulk string, %d received", received)
                    .isBetween(0L, Math.max(RespCommandDecoder.MIN_BULK_CHUNK, 2 * received));
        }
        channel.finishAndReleaseAll();
        assertThat(stats.inputBulks.get())
                .as("bulk strings held after the close")
                .isZero();
        assertThat(stats.inputBulkBytes.get()).as("bytes held after the close").isZero();
        assertThat(fed)
                .allSatisfy(
                        b -> assertThat(b.refCnt()).as("input buffer released").isZero());
    }

    @FuzzTest(maxDuration = "2m")
    void anEncodedCommandDecodesToItself(FuzzedDataProvider data) {
        int n = data.consumeInt(1, 16);
        List<byte[]> args = new ArrayList<>();
        for (int i = 0; i < n; i++) args.add(data.consumeBytes(data.consumeInt(0, 300)));
        String name = new String(args.get(0), StandardCharsets.ISO_8859_1);
        if (name.equalsIgnoreCase("POST") || name.equalsIgnoreCase("HOST:")) return; // closes, by design
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + n + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(a);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
        byte[] encoded = out.toByteArray();
        ClientStats stats = new ClientStats();
        EmbeddedChannel channel = new EmbeddedChannel(new RespCommandDecoder(300, 16, 4096, false, stats));
        List<ByteBuf> fed = new ArrayList<>();
        for (int at = 0; at < encoded.length; ) {
            int len = data.remainingBytes() > 0 ? data.consumeInt(1, encoded.length - at) : encoded.length - at;
            ByteBuf buf = Unpooled.wrappedBuffer(encoded, at, len);
            fed.add(buf);
            channel.writeInbound(buf);
            at += len;
        }
        RespCommand c = channel.readInbound();
        assertThat(c).isNotNull();
        assertThat(c.error()).isNull();
        assertThat(c.args().length).isEqualTo(n);
        for (int i = 0; i < n; i++) assertThat(c.args()[i]).isEqualTo(args.get(i));
        Object next = channel.readInbound();
        assertThat(next).isNull();
        channel.finishAndReleaseAll();
        assertThat(stats.inputBulkBytes.get()).isZero();
        assertThat(fed).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }
}
