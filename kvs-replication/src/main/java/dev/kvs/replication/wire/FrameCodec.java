package dev.kvs.replication.wire;

import io.netty.channel.ChannelPipeline;

/**
 * Installs the frame codec in a pipeline and tells senders how many bytes a frame will take, so
 * they can cut batches to fit {@code maxFrameBytes}.
 */
public final class FrameCodec {
    /** Name of the {@link FrameDecoder} in the pipeline. */
    public static final String DECODER = "frame-decoder";
    /** Name of the {@link FrameEncoder} in the pipeline. */
    public static final String ENCODER = "frame-encoder";
    /** Name of the handler that writes each frame's {@link FrameMac} tag, if there is one. */
    public static final String TAGGER = "frame-tagger";

    private FrameCodec() {}

    /**
     * Adds a {@link FrameDecoder} named {@value #DECODER} and a {@link FrameEncoder} named {@value
     * #ENCODER} at the end of {@code pipeline}; handlers added after them see {@link Frame}s.
     *
     * @param maxFrameBytes the largest frame either direction carries, length prefix included
     * @throws IllegalArgumentException if {@code maxFrameBytes < 6}
     */
    public static void install(ChannelPipeline pipeline, int maxFrameBytes) {
        pipeline.addLast(DECODER, new FrameDecoder(maxFrameBytes));
        pipeline.addLast(ENCODER, new FrameEncoder(maxFrameBytes));
    }

    /**
     * Changes the largest frame the decoder installed in {@code pipeline} accepts from now on. Call it
     * on the channel's event loop.
     */
    public static void maxFrameBytes(ChannelPipeline pipeline, int maxFrameBytes) {
        ((FrameDecoder) pipeline.get(DECODER)).maxFrameBytes(maxFrameBytes);
    }

    /**
     * Makes room for {@link FrameMac} tags in the codec {@link #install} added to {@code pipeline}: a
     * handler between the socket and the encoder that, once {@link #startMacs} is called, writes each
     * frame's tag after it. Until then frames go as they are.
     */
    public static void addTagger(ChannelPipeline pipeline) {
        pipeline.addBefore(DECODER, TAGGER, new FrameTagger());
    }

    /**
     * From the next frame on in each direction, every frame written is followed by its tag under {@code
     * send}, and every frame read must be followed by its tag under {@code receive}, checked before it is
     * decoded. Call it on the channel's event loop, in the handler that reads the last untagged frame
     * (so the decoder has not yet read the next), between writing the last untagged frame and the first
     * tagged one.
     *
     * @throws IllegalStateException if {@link #addTagger} was not called on {@code pipeline}
     */
    public static void startMacs(ChannelPipeline pipeline, FrameMac send, FrameMac receive) {
        FrameTagger tagger = (FrameTagger) pipeline.get(TAGGER);
        if (tagger == null) throw new IllegalStateException("no " + TAGGER + " in the pipeline: " + pipeline.names());
        tagger.start(send);
        ((FrameDecoder) pipeline.get(DECODER)).startMac(receive);
    }

    /**
     * The exact number of bytes {@code frame} takes on the wire, its 4-byte length prefix included.
     *
     * @throws IllegalArgumentException if the frame cannot be encoded (a string over 65535 UTF-8
     *     bytes, or more than {@code Integer.MAX_VALUE} bytes in all)
     */
    public static int encodedSize(Frame frame) {
        return FrameEncoder.encodedSize(frame);
    }

    /** The bytes {@code packet} adds to a {@link Frame.KeyBatch}. */
    public static int encodedSize(Frame.KeyPacket packet) {
        return checkedSize(Wire.keyPacketSize(packet));
    }

    /** The bytes {@code chunk} adds to a {@link Frame.ValueBatch}. */
    public static int encodedSize(Frame.ValueChunk chunk) {
        return checkedSize(Wire.valueChunkSize(chunk));
    }

    private static int checkedSize(long size) {
        if (size > Integer.MAX_VALUE) throw new IllegalArgumentException("size " + size + " > " + Integer.MAX_VALUE);
        return (int) size;
    }
}
