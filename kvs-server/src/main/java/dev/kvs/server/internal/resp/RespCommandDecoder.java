package dev.kvs.server.internal.resp;

import dev.kvs.core.HeapValueStage;
import dev.kvs.core.KvsException;
import dev.kvs.core.ValueStage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.WrappedByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ByteProcessor;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Decodes client requests (RESP2 arrays of bulk strings, or inline commands) straight into {@link
 * RespCommand}s, and passes the commands of one decode on as one message ({@link RespCommands}; one
 * command alone). Measured hot path: it replaces codec-redis's decoder and two aggregators, which
 * allocated several messages per argument (see BENCHMARKS.md).
 *
 * <p>Memory follows the bytes received, never the lengths announced: a bulk string's buffer starts at
 * what has arrived (at least {@link #MIN_BULK_CHUNK}) and doubles as more arrives, up to its length,
 * so a client announcing 64 MiB and sending 16 bytes costs 16 KiB, not 64 MiB. The exception is a
 * bulk string longer than {@link #MIN_BULK_CHUNK} from an authenticated connection, while the node-wide
 * {@link BulkPreallocBudget} has room: it gets its final buffer when its first bytes arrive (as Redis
 * does for big arguments), saving the doubling copies, and the bytes not yet received are charged to
 * the budget until they arrive or the connection closes. {@link ClientStats} counts the bulk strings
 * being received and the bytes held for them.
 *
 * <p>The value of a {@code SET key value [options]} longer than {@link #MIN_BULK_CHUNK}, from an
 * authenticated connection, is instead written into a store stage as it arrives, when the decoder has
 * a stager (the node is a primary and its store stages long values): its CRC32C is taken on the way,
 * and the command carries the stage ({@link RespCommand#staged()}), so the SET commits it without a
 * heap copy or a whole-value copy into the store after its last byte. Whole store chunks are copied
 * straight from the read buffer. The bytes still to come are charged to the budget as for a
 * preallocation (a value that arrived whole in one read charges nothing), and past the budget the value
 * is buffered.
 *
 * <p>Limits: a bulk string longer than {@code maxBulkBytes} is skipped as it streams in (never
 * buffered) and its command answered with an error, so the stream stays in sync; more than {@code
 * maxElements} arguments, a malformed length, or a bulk declared longer than {@link #ABSOLUTE_MAX_BULK}
 * cannot be resynchronised and raise {@link RespProtocolException}, after which the handler answers
 * and closes. Elements of the wrong type (integers, nested arrays...) are read and the command refused.
 *
 * <p>Before authentication (only when a password is required; see {@link #authenticated()}) the limits
 * are Redis's: at most {@link #PRE_AUTH_MAX_ARGS} arguments and bulk strings of at most {@link
 * #PRE_AUTH_MAX_BULK} bytes; more is a protocol error that closes the connection. Meanwhile commands
 * are handed on one at a time, so that an {@code AUTH} lifts the limits for the command right after it.
 *
 * <p>A command named {@code POST} or {@code Host:} is the start of an HTTP request (a browser made to
 * post to this port: cross-protocol scripting). It raises {@link CrossProtocolException} and nothing
 * after it is decoded, as Redis does.
 */
final class RespCommandDecoder extends ByteToMessageDecoder {
    /** Opens the store stage a SET's long value is written into as it arrives. */
    @FunctionalInterface
    interface Stager {
        /**
         * A stage for {@code key}'s value of {@code length} bytes, or null: not now (the value is then
         * buffered). Called on the connection's event loop before the value's first byte is written.
         *
         * @throws KvsException if the store has no room for it now
         */
        ValueStage stage(byte[] key, int length);
    }

    /** Beyond this a declared bulk length is treated as garbage rather than skipped. */
    static final long ABSOLUTE_MAX_BULK = 512L * 1024 * 1024;

    /** Smallest buffer given to a bulk string still arriving. */
    static final int MIN_BULK_CHUNK = 16 * 1024;
    /** Most arguments of a command before authentication (Redis: 10). */
    static final int PRE_AUTH_MAX_ARGS = 10;
    /** Longest bulk string before authentication (Redis: 16 KiB). */
    static final int PRE_AUTH_MAX_BULK = 16 * 1024;

    private static final int MAX_LENGTH_LINE = 32;
    /** Stands in for an argument that was skipped; its command is refused. */
    private static final byte[] SKIPPED = new byte[0];

    private static final byte[] EMPTY = new byte[0];

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
    /** {@link #MIN_BULK_CHUNK}, but smaller in tests, so that fuzzing reaches preallocation with small inputs. */
    private final int minBulkChunk;

    private final ClientStats stats;
    private final BulkPreallocBudget budget;
    /** Opens a store stage for a SET's long value, or returns null; null: never stage. */
    private Stager stager;
    /** Where the bulk string being read goes instead of {@link #bulk}, or null. */
    private ValueStage stage;

    private final CRC32C stageCrc = new CRC32C();
    /** The staged value of the command being read, once its bulk string ended. */
    private RespCommand.Staged staged;

    private State state = State.COMMAND_START;
    /**
     * The arguments of the command being read that arrived whole: the first {@link #argc}; sized for the
     * announced count (up to 16, then doubling), so a complete command's array is usually this one.
     */
    private byte[][] args;
    /** How many of {@link #args} are set. */
    private int argc;
    /** Bytes of {@link #args}: the arguments of the command being read that arrived whole. */
    private long argsBytes;
    /** Where this connection's query buffer is reported (the node-wide bound), or null. */
    private ClientMemory.Account memory;
    /** Run when the commands of a read have been passed on and handled ({@link #afterRead}), or null. */
    private Runnable afterRead;
    /** Bytes read since the query buffer was last reported: reads start small and grow within a batch. */
    private long readSinceReport;

    private long remainingElements;
    /** The bulk string being read: null until its first bytes arrive, then grown as they do. */
    private byte[] bulk;
    /** Its announced length. */
    private int bulkLength;

    private int bulkFilled;
    /** Bytes of the bulk being read that were preallocated and are still to come (charged to {@link #budget}). */
    private long preallocated;
    /** True while a bulk string is being buffered. */
    private boolean buffering;
    /**
     * The bulk string being buffered as last counted in {@link #stats}: whether one, and its buffer's
     * bytes. Counted when a read's decoding ends ({@link #publishHeld}), so a bulk string that arrives
     * whole within one read is never counted, and the shared counters are written once a read at most,
     * not four times a bulk string from both event loops (6% of the samples of a hot key's SET profile,
     * a cache line moving between the two cores; within the noise in a quiet A/B).
     */
    private boolean countedBulk;

    private long countedBulkBytes;

    private long skipRemaining;
    private String commandError;
    private boolean failed;
    private boolean preAuth;

    /**
     * A decoder that neither preallocates nor stages (tests).
     *
     * @param preAuth true if the connection must authenticate first: the pre-auth limits apply until
     *     {@link #authenticated()}
     */
    RespCommandDecoder(int maxBulkBytes, int maxElements, int maxInlineBytes, boolean preAuth, ClientStats stats) {
        this(
                maxBulkBytes,
                maxElements,
                maxInlineBytes,
                preAuth,
                stats,
                new BulkPreallocBudget(0),
                MIN_BULK_CHUNK,
                null);
    }

    /**
     * @param preAuth as above
     * @param budget the node-wide budget of bulk bytes allocated ahead of their arrival
     * @param minBulkChunk {@link #MIN_BULK_CHUNK}, or less in tests, so that fuzzing reaches preallocation
     *     with small inputs
     * @param stager stages a SET's long value (it may return null: not now); null: never stage
     */
    RespCommandDecoder(
            int maxBulkBytes,
            int maxElements,
            int maxInlineBytes,
            boolean preAuth,
            ClientStats stats,
            BulkPreallocBudget budget,
            int minBulkChunk,
            Stager stager) {
        if (minBulkChunk < 1) throw new IllegalArgumentException("minBulkChunk < 1: " + minBulkChunk);
        this.stager = stager;
        this.minBulkChunk = minBulkChunk;
        this.budget = budget;
        this.maxBulkBytes = maxBulkBytes;
        this.maxElements = maxElements;
        this.maxInlineBytes = maxInlineBytes;
        this.preAuth = preAuth;
        this.stats = stats;
    }

    /**
     * The connection must authenticate first: the pre-auth limits apply until {@link #authenticated()}.
     * Called by the handler before any byte is read, when users require a login even though no {@code
     * requirepass} told the constructor so.
     */
    void requireAuthentication() {
        preAuth = true;
    }

    /** Reports the bytes this decoder holds to {@code memory} after every read batch. */
    void memory(ClientMemory.Account memory) {
        this.memory = memory;
    }

    /**
     * Bytes held for requests still arriving: the arguments of the command being read, the buffer of
     * the bulk string being filled, and the received bytes not parsed yet (their whole buffer).
     */
    long queryBufferBytes() {
        long n = argsBytes;
        if (bulk != null) n += bulk.length;
        ByteBuf unparsed = internalBuffer();
        if (unparsed.isReadable()) n += unparsed.capacity();
        return n;
    }

    /**
     * Runs {@code r} after each read whose commands were passed on and handled (the handler ends the
     * timing of those commands there: {@link CommandDispatch#endStretch}).
     */
    void afterRead(Runnable r) {
        this.afterRead = r;
    }

    /**
     * A connection chosen to be closed for memory closes at its next read, before anything more is
     * decoded: else, on a busy event loop, a victim whose close waits behind the reads would keep
     * filling its buffers meanwhile. So does an unauthenticated one that would hold 16 KiB with this
     * read while the sum is over the bound ({@link ClientMemory.Account#closeBeforeRead}).
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (memory != null) {
            readSinceReport += msg instanceof ByteBuf b ? b.readableBytes() : 0;
            if (memory.closeBeforeRead(readSinceReport)) {
                ReferenceCountUtil.release(msg);
                ctx.channel().close();
                return;
            }
        }
        super.channelRead(ctx, msg);
        if (afterRead != null) afterRead.run();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (memory != null) {
            memory.active(); // bytes arrived: not idle, even while a long value is still on its way
            memory.query(queryBufferBytes());
            readSinceReport = 0;
        }
        super.channelReadComplete(ctx);
    }

    /** The connection authenticated: the configured limits apply from the next command on. */
    void authenticated() {
        preAuth = false;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes()); // the connection is closing: ignore what follows
            return;
        }
        RespCommands gathered = new RespCommands();
        try {
            decodeAvailable(unwrapped(in), gathered);
        } catch (RespProtocolException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        } finally {
            gathered.passOn(out); // those before a protocol error too, as Netty passes them on
            publishHeld();
        }
    }

    /** Brings {@link #stats} up to the bulk string held now (see {@link #countedBulk}). */
    private void publishHeld() {
        long bytes = buffering && bulk != null ? bulk.length : 0;
        if (bytes != countedBulkBytes) {
            stats.inputBulkBytes.addAndGet(bytes - countedBulkBytes);
            countedBulkBytes = bytes;
        }
        if (buffering != countedBulk) {
            stats.inputBulks.addAndGet(buffering ? 1 : -1);
            countedBulk = buffering;
        }
    }

    /**
     * The buffer {@code in} wraps, if it is a view that only forwards every call (a leak-detector's
     * sampled buffer, which may stay the cumulation for many reads): the decoder's loop then calls one
     * buffer class directly instead of two through a forwarding layer (3-5% of a pipelined SET's CPU).
     * The two share their indices and content, so reading one reads the other.
     */
    static ByteBuf unwrapped(ByteBuf in) {
        ByteBuf b = in;
        while (b instanceof WrappedByteBuf) b = b.unwrap();
        return b;
    }

    private void decodeAvailable(ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            switch (state) {
                case COMMAND_START -> {
                    if (in.getByte(in.readerIndex()) == '*') {
                        if (!preAuth && decodeWhole(in, out)) continue;
                        long n = readLengthLine(in, '*', maxElements, "multibulk");
                        if (n == Long.MIN_VALUE) return;
                        if (n <= 0) continue; // *0 and *-1 are ignored, as Redis does
                        if (preAuth && n > PRE_AUTH_MAX_ARGS) {
                            throw new RespProtocolException("unauthenticated multibulk length");
                        }
                        startArray(n);
                    } else {
                        RespCommand inline = readInline(in);
                        if (inline == null) return;
                        out.add(inline);
                        if (preAuth) return; // let the handler see it first: it may be AUTH
                    }
                }
                case ELEMENT_START -> {
                    if (!readElementHeader(in)) return;
                    if (state == State.ELEMENT_START && remainingElements == 0) {
                        finishCommand(out);
                        if (preAuth) return;
                    }
                }
                case BULK_DATA -> {
                    int n = Math.min(in.readableBytes(), bulkLength - bulkFilled);
                    if (preallocated > 0) {
                        budget.release(n); // n <= preallocated: the bytes still to come
                        preallocated -= n;
                    } else if (bulk == null && stage == null) {
                        preallocate(n);
                    }
                    if (stage != null) {
                        if (!writeStaged(in, n)) continue; // the store refused: skipping the rest
                    } else {
                        ensureBulkCapacity(bulkFilled + n);
                        in.readBytes(bulk, bulkFilled, n);
                    }
                    bulkFilled += n;
                    if (bulkFilled == bulkLength) state = State.BULK_CRLF;
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
                    if (stage != null) {
                        addArg(RespCommand.STAGED_ARG);
                        staged = new RespCommand.Staged(stage, (int) stageCrc.getValue());
                        stage = null;
                    } else {
                        addArg(bulk);
                        argsBytes += bulk.length;
                    }
                    releaseBulk();
                    state = State.ELEMENT_START;
                    if (remainingElements == 0) {
                        finishCommand(out);
                        if (preAuth) return;
                    }
                }
            }
        }
    }

    /**
     * Grows the bulk buffer to hold {@code needed} bytes: doubling, never past the announced length, and
     * straight to the announced length once at least half of it has arrived (within the same bound of
     * twice what arrived, and it saves the copies of the last doublings: a 100 kB value arriving in a
     * 64 KiB read is allocated once, not as 64 KiB then 100 kB).
     */
    private void ensureBulkCapacity(int needed) {
        int capacity = bulk == null ? 0 : bulk.length;
        if (needed <= capacity) return;
        int grown = 2L * needed >= bulkLength
                ? bulkLength
                : (int) Math.min(bulkLength, Math.max(needed, Math.max(2L * capacity, minBulkChunk)));
        byte[] b = new byte[grown];
        if (bulkFilled > 0) System.arraycopy(bulk, 0, b, 0, bulkFilled);
        bulk = b;
    }

    /**
     * Allocates the whole bulk string at once, when its first {@code arriving} bytes do, if it is large,
     * the connection authenticated, and the budget takes the bytes still to come; otherwise leaves the
     * buffer to {@link #ensureBulkCapacity}. A SET's value gets a store stage instead, also when
     * it arrived whole (nothing to charge then).
     */
    private void preallocate(int arriving) {
        long ahead = (long) bulkLength - arriving;
        if (bulkLength <= minBulkChunk || preAuth) return;
        if (ahead <= 0) { // here whole: staged, or buffered as it is
            if (isSetValue()) stage = openStage();
            return;
        }
        if (!budget.tryCharge(ahead)) return;
        preallocated = ahead;
        if (isSetValue() && (stage = openStage()) != null) return;
        bulk = new byte[bulkLength];
    }

    /** True if the bulk string being read is the value of a {@code SET key value [options]}. */
    private boolean isSetValue() {
        return stager != null
                && commandError == null
                && argc == 2
                && args[0].length == 3
                && equalsIgnoreCase(args[0], "SET");
    }

    /** A store stage for the bulk string, or null (none now, or only on the heap: then buffered as usual). */
    private ValueStage openStage() {
        ValueStage s;
        try {
            s = stager.stage(args[1], bulkLength);
        } catch (KvsException e) {
            return null; // no room in the store now: the SET may still fit (an overwrite needs its growth only)
        }
        if (s instanceof HeapValueStage) {
            s.close();
            return null;
        }
        if (s != null) stageCrc.reset();
        return s;
    }

    /**
     * Writes the next {@code n} bytes of {@code in} into the stage, checksumming them; false if the
     * store refused them: the command is then refused and the rest of its value skipped.
     */
    private boolean writeStaged(ByteBuf in, int n) {
        try {
            for (ByteBuffer b : in.nioBuffers(in.readerIndex(), n)) {
                stageCrc.update(b.duplicate());
                stage.write(b);
            }
        } catch (KvsException e) {
            if (commandError == null) commandError = "ERR " + e.getMessage();
            stage.close();
            stage = null;
            bulk = SKIPPED;
            skipRemaining = (long) bulkLength - bulkFilled; // these n bytes included: not read yet
            state = State.BULK_SKIP;
            return false;
        }
        in.skipBytes(n);
        return true;
    }

    /**
     * Sets the stager, for a stager that needs the connection's handler, made after this decoder (before
     * the first byte is decoded).
     */
    void stager(Stager stager) {
        this.stager = stager;
    }

    /** The bulk string was read (or the connection closed): it no longer counts as input held. */
    private void releaseBulk() {
        if (stage != null) { // the connection closed while the value arrived
            stage.close();
            stage = null;
        }
        if (preallocated > 0) {
            budget.release(preallocated);
            preallocated = 0;
        }
        buffering = false;
        bulk = null;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseBulk();
        publishHeld();
        discardStaged();
        args = null;
        argc = 0;
        argsBytes = 0;
        if (memory != null) memory.query(0);
    }

    private void discardStaged() {
        if (staged != null) {
            staged.stage().close();
            staged = null;
        }
    }

    private void addArg(byte[] arg) {
        if (argc == args.length) args = Arrays.copyOf(args, Math.max(16, args.length * 2));
        args[argc++] = arg;
    }

    private void startArray(long n) {
        args = new byte[(int) Math.min(n, 16)][];
        argc = 0;
        argsBytes = 0;
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
                if (preAuth && len > PRE_AUTH_MAX_BULK) {
                    throw new RespProtocolException("unauthenticated bulk length");
                }
                remainingElements--;
                if (len < 0) {
                    refuse("expected a bulk string, got a null bulk string");
                    addArg(SKIPPED);
                } else if (len > maxBulkBytes) {
                    refuse("bulk string of " + len + " bytes is longer than max-bulk-bytes " + maxBulkBytes
                            + " (the command was discarded)");
                    bulk = SKIPPED;
                    skipRemaining = len;
                    state = len == 0 ? State.BULK_CRLF : State.BULK_SKIP;
                } else if (len == 0) {
                    bulk = EMPTY;
                    state = State.BULK_CRLF;
                } else {
                    bulk = null; // allocated as its bytes arrive
                    bulkLength = (int) len;
                    bulkFilled = 0;
                    buffering = true;
                    state = State.BULK_DATA;
                }
                return true;
            }
            case '*' -> {
                // a nested array: its elements are read (flattened) and the command refused
                long n = readLengthLine(in, '*', maxElements, "multibulk");
                if (n == Long.MIN_VALUE) return false;
                remainingElements--;
                if (n > 0) {
                    if (preAuth && argc + remainingElements + n > PRE_AUTH_MAX_ARGS) {
                        throw new RespProtocolException("unauthenticated multibulk length");
                    }
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

    /** Most arguments of a command {@link #decodeWhole} reads. */
    static final int WHOLE_MAX_ARGS = 16;

    /**
     * Decodes the command at the reader index in one pass if all of it is there and it is of the common
     * kind: an array of at most {@link #WHOLE_MAX_ARGS} bulk strings, each at most {@link #minBulkChunk}
     * bytes (so none is preallocated or staged) and {@code max-bulk-bytes}, every length a plain number.
     * Returns false, having consumed nothing, for anything else, which the state machine then reads
     * (and refuses, if it must, with its own error): a command still arriving, an empty or nested
     * array, a null or long bulk string, a malformed line. A pipelined read holds many whole commands:
     * this reads each with local indices and no state kept between its elements, where the state machine
     * searches every line for its end first (half of a short command's time, issue 36).
     */
    private boolean decodeWhole(ByteBuf in, List<Object> out) {
        int end = in.writerIndex();
        int i = in.readerIndex() + 1; // past '*'
        int n = 0;
        for (int digits = 0; ; i++) {
            if (i >= end) return false;
            byte b = in.getByte(i);
            if (b == '\r') break;
            if (b < '0' || b > '9' || ++digits > 2) return false;
            n = n * 10 + (b - '0');
        }
        if (n == 0 || n > WHOLE_MAX_ARGS || n > maxElements || i + 1 >= end || in.getByte(i + 1) != '\n') {
            return false;
        }
        i += 2;
        int maxLength = Math.min(maxBulkBytes, minBulkChunk);
        byte[][] a = new byte[n][];
        for (int k = 0; k < n; k++) {
            if (i >= end || in.getByte(i) != '$') return false;
            int length = 0;
            int digits = 0;
            for (i++; ; i++) {
                if (i >= end) return false;
                byte b = in.getByte(i);
                if (b == '\r') break;
                if (b < '0' || b > '9' || ++digits > 9) return false;
                length = length * 10 + (b - '0');
            }
            if (digits == 0 || length > maxLength || end - i < 2 + length + 2 || in.getByte(i + 1) != '\n') {
                return false;
            }
            i += 2;
            if (in.getByte(i + length) != '\r' || in.getByte(i + length + 1) != '\n') return false;
            byte[] arg = length == 0 ? EMPTY : new byte[length];
            if (length > 0) in.getBytes(i, arg);
            a[k] = arg;
            i += length + 2;
        }
        in.readerIndex(i);
        if (isHttp(a[0])) throw new CrossProtocolException();
        // the fields are as finishCommand leaves them, and no argument was stored in them: with G1, a store
        // of a new object into this long-lived decoder takes the collector's slow barrier (see RespCommands)
        out.add(new RespCommand(a, null, null));
        return true;
    }

    private void refuse(String why) {
        if (commandError == null) commandError = "ERR Protocol error: " + why;
    }

    private void finishCommand(List<Object> out) {
        if (argc > 0 && isHttp(args[0])) throw new CrossProtocolException();
        if (commandError != null) {
            discardStaged();
            out.add(RespCommand.invalid(commandError));
        } else {
            out.add(new RespCommand(argc == args.length ? args : Arrays.copyOf(args, argc), null, staged));
            staged = null;
        }
        args = null;
        argc = 0;
        argsBytes = 0;
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
        // a request's negative array length is an empty request, as Redis reads any length <= 0 of one
        boolean anyNegative = negative && prefix == '*';
        long limit = anyNegative ? Long.MAX_VALUE / 10 - 9 : max;
        for (; i < eol; i++) {
            byte b = in.getByte(i);
            if (b < '0' || b > '9') throw new RespProtocolException("invalid " + what + " length");
            value = value * 10 + (b - '0');
            if (value > limit) throw new RespProtocolException("invalid " + what + " length");
        }
        in.readerIndex(eol + 2);
        if (negative) return value == 1 || anyNegative ? -1 : invalidNegative(what);
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
        int max = preAuth ? Math.min(maxInlineBytes, PRE_AUTH_MAX_BULK) : maxInlineBytes;
        int searchable = Math.min(in.readableBytes(), max + 1);
        int lf = in.forEachByte(from, searchable, ByteProcessor.FIND_LF);
        if (lf < 0) {
            if (in.readableBytes() > max) {
                throw new RespProtocolException(
                        preAuth ? "unauthenticated inline request too big" : "too big inline request");
            }
            return null;
        }
        int end = lf > from && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        byte[] line = new byte[end - from];
        in.getBytes(from, line);
        in.readerIndex(lf + 1);
        byte[][] a = inlineWords(line);
        if (a.length == 0) return new RespCommand(a, null);
        if (isHttp(a[0])) throw new CrossProtocolException();
        if (preAuth && a.length > PRE_AUTH_MAX_ARGS) {
            throw new RespProtocolException("unauthenticated multibulk length");
        }
        return new RespCommand(a, null);
    }

    /** The words of an inline command, as Redis splits them: {@link InlineWords}. */
    static byte[][] inlineWords(byte[] line) {
        return InlineWords.of(line);
    }

    /** True if {@code name} is {@code POST} or {@code Host:}, in any case: an HTTP request's first words. */
    private static boolean isHttp(byte[] name) {
        return (name.length == 4 && equalsIgnoreCase(name, "POST"))
                || (name.length == 5 && equalsIgnoreCase(name, "HOST:"));
    }

    private static boolean equalsIgnoreCase(byte[] name, String upper) {
        for (int i = 0; i < name.length; i++) {
            byte b = name[i];
            if (b >= 'a' && b <= 'z') b -= 32;
            if (b != upper.charAt(i)) return false;
        }
        return true;
    }

    private static String printable(byte b) {
        return b >= 32 && b < 127 ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xFF);
    }

    /** The byte stream cannot be resynchronised: answer, then close. */
    static class RespProtocolException extends DecoderException {
        RespProtocolException(String message) {
            super(message);
        }
    }

    /** An HTTP request arrived ({@code POST} or {@code Host:}): close without answering or running anything. */
    static final class CrossProtocolException extends RespProtocolException {
        CrossProtocolException() {
            super("POST or Host: sent to the client port: an HTTP request (cross-protocol attack?)");
        }
    }
}
