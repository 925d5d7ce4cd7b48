package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

/**
 * The decoder reads a command that is all in one read in one pass ({@code decodeWhole}), and any other
 * with its state machine: both must decode the same bytes to the same commands and errors. A stream fed
 * whole goes through the one-pass reading wherever it can; fed one byte at a time, no command is ever
 * whole when it starts, so the state machine reads all of it.
 */
class RespWholeCommandsTest {
    private static final int MAX_BULK = 48;
    private static final int MAX_ELEMENTS = 18;
    private static final int MIN_BULK_CHUNK = 24;

    /** What a decoder made of a stream: each command (its arguments, or its error), then how it failed. */
    private static List<String> decode(byte[] stream, boolean byteByByte) {
        EmbeddedChannel channel = new EmbeddedChannel(new RespCommandDecoder(
                MAX_BULK, MAX_ELEMENTS, 64, false, new ClientStats(), new BulkPreallocBudget(0), MIN_BULK_CHUNK, null));
        List<String> out = new ArrayList<>();
        String failure = null;
        try {
            if (byteByByte) {
                for (byte b : stream) channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            } else {
                channel.writeInbound(Unpooled.wrappedBuffer(stream));
            }
        } catch (RespCommandDecoder.RespProtocolException e) {
            failure = "failed: " + e.getMessage();
        }
        for (RespCommand c : RespChannel.decoded(channel)) {
            StringBuilder b = new StringBuilder();
            if (c.error() != null) {
                b.append("error: ").append(c.error());
            } else {
                for (byte[] a : c.args())
                    b.append('[')
                            .append(new String(a, StandardCharsets.ISO_8859_1))
                            .append(']');
            }
            out.add(b.toString());
        }
        if (failure != null) out.add(failure);
        channel.finishAndReleaseAll();
        return out;
    }

    private static void bulk(ByteArrayOutputStream s, Random r, int length, boolean leadingZero) {
        s.writeBytes(("$" + (leadingZero ? "0" : "") + length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < length; i++) s.write('a' + r.nextInt(26));
        s.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** A stream of commands, most of them whole and valid, some of every kind the state machine refuses. */
    private static byte[] stream(Random r) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        int commands = 1 + r.nextInt(30);
        for (int c = 0; c < commands; c++) {
            int kind = r.nextInt(20);
            String raw = switch (kind) {
                case 0 -> "*0\r\n";
                case 1 -> "*-1\r\n";
                case 2 -> "PING\r\n";
                case 3 -> "*2\r\n$3\r\nGET\r\n$-1\r\n";
                case 4 -> "*3\r\n$3\r\nSET\r\n*1\r\n$1\r\nk\r\n$1\r\nv\r\n";
                case 5 -> "*2\r\n$4\r\nECHO\r\n:12\r\n";
                case 6 ->
                    "*2\r\n$4\r\nECHO\r\n$" + (MAX_BULK + 1 + r.nextInt(10)) + "\r\n" + "x".repeat(MAX_BULK + 20)
                            + "\r\n";
                case 7 -> r.nextInt(4) == 0 ? "*1\r\n$2\r\nab\n\n" : "*1\r\n$2\r\nab\r\n"; // a bad end
                case 8 -> r.nextInt(4) == 0 ? "*1\r\n$x\r\n" : "*1\r\n$1\r\nq\r\n";
                case 9 -> "*" + (MAX_ELEMENTS + 1) + "\r\n";
                default -> null;
            };
            if (raw != null) {
                s.writeBytes(raw.getBytes(StandardCharsets.ISO_8859_1));
                continue;
            }
            int n = 1 + r.nextInt(kind == 19 ? MAX_ELEMENTS : 6);
            s.writeBytes(("*" + (r.nextInt(8) == 0 ? "0" : "") + n + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < n; i++)
                bulk(s, r, r.nextInt(r.nextInt(4) == 0 ? MAX_BULK + 1 : 12), r.nextInt(10) == 0);
        }
        if (r.nextBoolean())
            s.writeBytes("*2\r\n$3\r\nGET\r\n$5\r\nhal".getBytes(StandardCharsets.US_ASCII)); // still arriving
        return s.toByteArray();
    }

    @RepeatedTest(200)
    void aStreamDecodesAlikeWholeAndOneByteAtATime(RepetitionInfo info) {
        long seed = Long.getLong("kvs.seed", System.nanoTime()) + info.getCurrentRepetition();
        byte[] stream = stream(new Random(seed));
        List<String> whole = decode(stream, false);
        List<String> bytes = decode(stream, true);
        assertThat(whole)
                .as("seed %d, stream %s", seed, new String(stream, StandardCharsets.ISO_8859_1))
                .isEqualTo(bytes);
    }

    @Test
    void pipelinedWholeCommandsDecodeToThemselves() {
        byte[] stream = ("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$0\r\n\r\n"
                        + "*2\r\n$3\r\nGET\r\n$03\r\nkey\r\n"
                        + "*1\r\n$4\r\nPING\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        assertThat(decode(stream, false)).containsExactly("[SET][key][]", "[GET][key]", "[PING]");
        assertThat(decode(stream, true)).containsExactly("[SET][key][]", "[GET][key]", "[PING]");
    }
}
