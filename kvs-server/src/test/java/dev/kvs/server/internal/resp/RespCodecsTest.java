package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The codec facade the JMH suite measures decodes and encodes as the client port does. */
class RespCodecsTest {
    @Test
    void theDecoderYieldsTheCommandAndTheEncoderItsReply() {
        byte[] value = new byte[100_000];
        value[0] = 'v';
        value[value.length - 1] = 'z';
        byte[] head = ("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        EmbeddedChannel decoder = RespCodecs.decoder();
        decoder.writeInbound(Unpooled.wrappedBuffer(head, value, "\r\n".getBytes(StandardCharsets.US_ASCII)));
        RespCommand c = decoder.readInbound();
        assertThat(c.error()).isNull();
        assertThat(c.args().length).isEqualTo(3);
        assertThat(c.args()[2]).isEqualTo(value);

        EmbeddedChannel encoder = RespCodecs.encoder();
        encoder.writeOutbound(RespCodecs.bulkReply(value));
        ByteBuf all = Unpooled.buffer();
        for (Object o; (o = encoder.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            all.writeBytes(b);
            b.release();
        }
        byte[] header = ("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        assertThat(all.readableBytes()).isEqualTo(header.length + value.length + 2);
        byte[] got = new byte[header.length];
        all.readBytes(got);
        assertThat(got).isEqualTo(header);
        byte[] body = new byte[value.length];
        all.readBytes(body);
        assertThat(body).isEqualTo(value);
        assertThat(decoder.finishAndReleaseAll()).isFalse();
        assertThat(encoder.finishAndReleaseAll()).isFalse();
    }
}
