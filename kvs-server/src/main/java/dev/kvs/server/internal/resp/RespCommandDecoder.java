package dev.kvs.server.internal.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ByteProcessor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes client requests (RESP2 arrays of bulk strings, or inline commands) straight into {@link
 * RespCommand}s. Measured hot path: it replaces codec-redis's decoder and two aggregators, which
 * allocated several messages per argument (see BENCHMARKS.md).
 *
 * <p>Limits: a bulk string longer than {@code maxBulkBytes} is skipped as it streams in (never
 * buffered) and its command answered with an error, so the stream stays in sync; more than {@code
 * maxElements} arguments, a malformed length, or a bulk declared longer than {@link #ABSOLUTE_MAX_BULK}
 * cannot be resynchronised and raise {@link RespProtocolException}, after which the handler answers
 * and closes. Elements of the wrong type (integers, nested arrays...) are read and the command refused.
 */
final class RespCommandDecoder extends ByteToMessageDecoder {
    /** Beyond this a declared bulk length is treated as garbage rather than skipped. */
    static final long ABSOLUTE_MAX_BULK = 512L * 1024 * 1024;

    private static final int MAX_LENGTH_LINE = 32;
    /** Stands in for an argument that was skipped; its command is refused. */
    private static final byte[] SKIPPED = new byte[0];

    private enum State {
        COMMAND_START,
        ELEMENT_START,
        BULK_DATA,
        BULK_SKIP,
        BULK_CRLF
    }

    private final int maxBulkBytes;
    private final int maxElements;
    private final int maxInlineBytes;

    private State state = State.COMMAND_START;
    private List<byte[]> args;
    private long remainingElements;
    private byte[] bulk;
    private int bulkFilled;
    private long skipRemaining;
    private String commandError;
    private boolean failed;

    RespCommandDecoder(int maxBulkBytes, int maxElements, int maxInlineBytes) {
        this.maxBulkBytes = maxBulkBytes;
        this.maxElements = maxElements;
        this.maxInlineBytes = maxInlineBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes()); // the connection is closing: ignore what follows
            return;
        }
        try {
            decodeAvailable(in, out);
        } catch (RespProtocolException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void decodeAvailable(ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            switch (state) {
                case COMMAND_START -> {
                    if (in.getByte(in.readerIndex()) == '*') {
                        long n = readLengthLine(in, '*', maxElements, "multibulk");
                        if (n == Long.MIN_VALUE) return;
                        if (n <= 0) continue; // *0 and *-1 are ignored, as Redis does
                        startArray(n);
                    } else {
                        RespCommand inline = readInline(in);
                        if (inline == null) return;
                        out.add(inline);
                    }
                }
                case ELEMENT_START -> {
                    if (!readElementHeader(in)) return;
                    if (state == State.ELEMENT_START && remainingElements == 0) finishCommand(out);
                }
                case BULK_DATA -> {
                    int n = Math.min(in.readableBytes(), bulk.length - bulkFilled);
                    in.readBytes(bulk, bulkFilled, n);
                    bulkFilled += n;
                    if (bulkFilled == bulk.length) state = State.BULK_CRLF;
                }
                case BULK_SKIP -> {
                    int n = (int) Math.min(in.readableBytes(), skipRemaining);
                    in.skipBytes(n);
                    skipRemaining -= n;
                    if (skipRemaining == 0) state = State.BULK_CRLF;
                }
                case BULK_CRLF -> {
                    if (in.readableBytes() < 2) return;
                    if (in.readByte() != '\r' || in.readByte() != '\n') {
                        throw new RespProtocolException("bulk string not terminated by CRLF");
                    }
                    args.add(bulk);
                    bulk = null;
                    state = State.ELEMENT_START;
                    if (remainingElements == 0) finishCommand(out);
                }
            }
        }
    }

    private void startArray(long n) {
        args = new ArrayList<>((int) Math.min(n, 16));
        remainingElements = n;
        commandError = null;
        state = State.ELEMENT_START;
    }

    /** Reads the next element's header; false if more bytes are needed. */
    private boolean readElementHeader(ByteBuf in) {
        byte type = in.getByte(in.readerIndex());
        switch (type) {
            case '$' -> {
                long len = readLengthLine(in, '$', ABSOLUTE_MAX_BULK, "bulk");
                if (len == Long.MIN_VALUE) return false;
                remainingElements--;
                if (len < 0) {
                    refuse("expected a bulk string, got a null bulk string");
                    args.add(SKIPPED);
                } else if (len > maxBulkBytes) {
                    refuse("bulk string of " + len + " bytes is longer than max-bulk-bytes " + maxBulkBytes
                            + " (the command was discarded)");
                    bulk = SKIPPED;
                    skipRemaining = len;
                    state = len == 0 ? State.BULK_CRLF : State.BULK_SKIP;
                } else {
                    bulk = new byte[(int) len];
                    bulkFilled = 0;
                    state = len == 0 ? State.BULK_CRLF : State.BULK_DATA;
                }
                return true;
            }
            case '*' -> {
                // a nested array: its elements are read (flattened) and the command refused
                long n = readLengthLine(in, '*', maxElements, "multibulk");
                if (n == Long.MIN_VALUE) return false;
                remainingElements--;
                if (n > 0) {
                    if (remainingElements + n > maxElements) {
                        throw new RespProtocolException("invalid multibulk length");
                    }
                    remainingElements += n;
                }
                refuse("expected an array of bulk strings, got a nested array");
                return true;
            }
            case ':', '+', '-' -> {
                int eol = findEndOfLine(in, maxInlineBytes);
                if (eol < 0) return false;
                in.readerIndex(eol + 2);
                remainingElements--;
                refuse("expected an array of bulk strings, got '" + (char) type + "'");
                return true;
            }
            default -> throw new RespProtocolException("expected '$', got '" + printable(type) + "'");
        }
    }

    private void refuse(String why) {
        if (commandError == null) commandError = "ERR Protocol error: " + why;
    }

    private void finishCommand(List<Object> out) {
        if (commandError != null) {
            out.add(RespCommand.invalid(commandError));
        } else {
            out.add(new RespCommand(args.toArray(new byte[0][]), null));
        }
        args = null;
        commandError = null;
        state = State.COMMAND_START;
    }

    /**
     * Reads a {@code <prefix><integer>\r\n} line. Returns {@link Long#MIN_VALUE} if the line is not
     * complete yet.
     */
    private static long readLengthLine(ByteBuf in, char prefix, long max, String what) {
        int eol = findEndOfLine(in, MAX_LENGTH_LINE);
        if (eol < 0) return Long.MIN_VALUE;
        int start = in.readerIndex() + 1;
        long value = 0;
        boolean negative = false;
        int i = start;
        if (i < eol && in.getByte(i) == '-') {
            negative = true;
            i++;
        }
        if (i == eol) throw new RespProtocolException("invalid " + what + " length");
        for (; i < eol; i++) {
            byte b = in.getByte(i);
            if (b < '0' || b > '9') throw new RespProtocolException("invalid " + what + " length");
            value = value * 10 + (b - '0');
            if (value > max) throw new RespProtocolException("invalid " + what + " length");
        }
        in.readerIndex(eol + 2);
        if (negative) return value == 1 ? -1 : invalidNegative(what);
        return value;
    }

    private static long invalidNegative(String what) {
        throw new RespProtocolException("invalid " + what + " length");
    }

    /** Index of the CR of the first CRLF, or -1 if none yet; throws if the line is longer than max. */
    private static int findEndOfLine(ByteBuf in, int max) {
        int from = in.readerIndex();
        int searchable = Math.min(in.readableBytes(), max + 2);
        int lf = in.indexOf(from, from + searchable, (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() > max + 1) throw new RespProtocolException("line too long or not terminated");
            return -1;
        }
        if (lf == from || in.getByte(lf - 1) != '\r') throw new RespProtocolException("line not terminated by CRLF");
        return lf - 1;
    }

    private RespCommand readInline(ByteBuf in) {
        int from = in.readerIndex();
        int searchable = Math.min(in.readableBytes(), maxInlineBytes + 1);
        int lf = in.forEachByte(from, searchable, ByteProcessor.FIND_LF);
        if (lf < 0) {
            if (in.readableBytes() > maxInlineBytes) throw new RespProtocolException("too big inline request");
            return null;
        }
        int end = lf > from && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        String line = in.toString(from, end - from, StandardCharsets.UTF_8);
        in.readerIndex(lf + 1);
        String trimmed = line.trim();
        if (trimmed.isEmpty()) return new RespCommand(new byte[0][], null);
        String[] words = trimmed.split("\\s+");
        byte[][] a = new byte[words.length][];
        for (int i = 0; i < words.length; i++) a[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return new RespCommand(a, null);
    }

    private static String printable(byte b) {
        return b >= 32 && b < 127 ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xFF);
    }

    /** The byte stream cannot be resynchronised: answer, then close. */
    static final class RespProtocolException extends DecoderException {
        RespProtocolException(String message) {
            super(message);
        }
    }
}
