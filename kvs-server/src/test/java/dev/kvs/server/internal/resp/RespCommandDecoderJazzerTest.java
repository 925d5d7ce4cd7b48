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
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Coverage-guided fuzzing of the RESP request decoder (Jazzer). In {@code mvn verify} each method
 * runs once per committed input under {@code
 * src/test/resources/dev/kvs/server/internal/resp/RespCommandDecoderJazzerTestInputs/METHOD/}
 * (regression); with {@code JAZZER_FUZZ=1} it fuzzes (see {@code docs/development.md}).
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
            for (RespCommand c : RespChannel.decoded(channel)) {
                assertThat(failed)
                        .as("a command from a piece after the failure")
                        .isFalse();
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

    /**
     * Preallocation of large bulk strings ({@link BulkPreallocBudget}), with several connections sharing
     * one budget and a minimum chunk small enough for fuzz inputs to reach it: the budget never goes over
     * its limit or below zero, each connection holds at most twice what it received (at least a chunk)
     * plus what the budget lent, the commands decoded are the ones sent (or refused for their length),
     * and closing every connection, mid-bulk or not, gives back the whole budget and every buffer.
     */
    @FuzzTest(maxDuration = "2m")
    void preallocationStaysWithinItsBudget(FuzzedDataProvider data) {
        checkPreallocation(new Input() {
            @Override
            public int anInt(int min, int max) {
                return data.consumeInt(min, max);
            }

            @Override
            public byte[] bytes(int n) {
                byte[] b = data.consumeBytes(n);
                return b.length == n ? b : java.util.Arrays.copyOf(b, n);
            }
        });
    }

    /** The same property on seeded random inputs, so that every build runs many cases (seed printed). */
    @RepeatedTest(40)
    void preallocationStaysWithinItsBudgetOnRandomInputs() {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("preallocationStaysWithinItsBudgetOnRandomInputs seed " + seed);
        Random random = new Random(seed);
        checkPreallocation(new Input() {
            @Override
            public int anInt(int min, int max) {
                return min + random.nextInt(max - min + 1);
            }

            @Override
            public byte[] bytes(int n) {
                byte[] b = new byte[n];
                random.nextBytes(b);
                return b;
            }
        });
    }

    /** Where a preallocation run takes its choices from. */
    interface Input {
        int anInt(int min, int max);

        byte[] bytes(int n);
    }

    private static void checkPreallocation(Input in) {
        long limit = in.anInt(0, 4096);
        int minChunk = in.anInt(1, 64);
        int maxBulk = in.anInt(1, 4096);
        int n = in.anInt(1, 4);
        BulkPreallocBudget budget = new BulkPreallocBudget(limit);
        EmbeddedChannel[] channels = new EmbeddedChannel[n];
        ClientStats[] stats = new ClientStats[n];
        byte[][] streams = new byte[n][];
        List<List<byte[][]>> sent = new ArrayList<>();
        int[] at = new int[n];
        List<List<RespCommand>> decoded = new ArrayList<>();
        List<ByteBuf> fed = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            stats[c] = new ClientStats();
            channels[c] = new EmbeddedChannel(
                    new RespCommandDecoder(maxBulk, 8, 4096, false, stats[c], budget, minChunk, null));
            List<byte[][]> commands = new ArrayList<>();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int k = in.anInt(0, 4); k > 0; k--) {
                byte[][] args = new byte[in.anInt(1, 3)][];
                out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                for (int a = 0; a < args.length; a++) {
                    args[a] = in.bytes(in.anInt(0, 2 * maxBulk));
                    out.writeBytes(("$" + args[a].length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.writeBytes(args[a]);
                    out.writeBytes(new byte[] {'\r', '\n'});
                }
                commands.add(args);
            }
            sent.add(commands);
            streams[c] = out.toByteArray();
            decoded.add(new ArrayList<>());
        }
        long[] received = new long[n];
        boolean[] closed = new boolean[n];
        while (true) {
            int open = 0;
            for (int c = 0; c < n; c++) if (!closed[c] && at[c] < streams[c].length) open++;
            if (open == 0) break;
            int pick = in.anInt(0, open - 1);
            int c = 0;
            for (; ; c++) if (!closed[c] && at[c] < streams[c].length && pick-- == 0) break;
            if (in.anInt(0, 19) == 0) { // the client goes away, possibly in the middle of a bulk string
                channels[c].finishAndReleaseAll();
                closed[c] = true;
            } else {
                int len = Math.min(in.anInt(1, 700), streams[c].length - at[c]);
                ByteBuf buf = Unpooled.wrappedBuffer(streams[c], at[c], len);
                fed.add(buf);
                channels[c].writeInbound(buf);
                at[c] += len;
                received[c] += len;
                decoded.get(c).addAll(RespChannel.decoded(channels[c]));
            }
            assertThat(budget.charged()).as("bytes charged to the budget").isBetween(0L, limit);
            long held = 0;
            long bound = budget.charged();
            for (int k = 0; k < n; k++) {
                held += stats[k].inputBulkBytes.get();
                bound += Math.max(minChunk, 2 * received[k]);
            }
            assertThat(held).as("bytes held for bulk strings").isLessThanOrEqualTo(bound);
        }
        for (int c = 0; c < n; c++) {
            List<RespCommand> got = decoded.get(c);
            List<byte[][]> expected = sent.get(c);
            if (!closed[c]) assertThat(got).as("commands of connection %d", c).hasSameSizeAs(expected);
            assertThat(got.size()).isLessThanOrEqualTo(expected.size());
            for (int k = 0; k < got.size(); k++) {
                byte[][] args = expected.get(k);
                boolean tooLong = false;
                for (byte[] a : args) tooLong |= a.length > maxBulk;
                if (tooLong) {
                    assertThat(got.get(k).error())
                            .as("command %d of connection %d", k, c)
                            .contains("max-bulk-bytes");
                } else {
                    assertThat(got.get(k).error()).isNull();
                    assertThat(got.get(k).args())
                            .as("command %d of connection %d", k, c)
                            .isDeepEqualTo(args);
                }
            }
            channels[c].finishAndReleaseAll();
            assertThat(stats[c].inputBulks.get()).isZero();
            assertThat(stats[c].inputBulkBytes.get()).isZero();
        }
        assertThat(budget.charged()).as("budget after every connection closed").isZero();
        assertThat(fed)
                .allSatisfy(
                        b -> assertThat(b.refCnt()).as("input buffer released").isZero());
    }
}
