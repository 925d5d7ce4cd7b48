package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An HTTP request sent to the client port (a browser tricked into posting to it) is a cross-protocol
 * attack: as Redis does for {@code POST} and {@code Host:}, the connection is closed and nothing in it
 * runs.
 */
class CrossProtocolTest {
    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    @Test
    void anHttpPostIsClosedWithoutRunningItsBody() {
        String body = "SET pwned 1\r\n";
        String replies = resp.send("POST /x HTTP/1.1\r\nHost: localhost:6380\r\nContent-Type: text/plain\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body);

        assertThat(replies).isEmpty();
        assertThat(resp.channel.isActive()).isFalse();
        assertThat(resp.store.get("pwned".getBytes())).isNull();
    }

    @Test
    void aHostLineClosesAfterTheRequestLine() {
        String replies = resp.send("GET / HTTP/1.1\r\nhost: localhost:6380\r\nAccept: */*\r\n\r\nSET pwned 1\r\n");

        assertThat(replies).doesNotContain("+OK");
        assertThat(resp.channel.isActive()).isFalse();
        assertThat(resp.store.get("pwned".getBytes())).isNull();
    }

    @Test
    void postAsARespArrayIsRefusedToo() {
        String replies = resp.send(RespChannel.encode("post", "/x") + RespChannel.encode("SET", "pwned", "1"));

        assertThat(replies).isEmpty();
        assertThat(resp.channel.isActive()).isFalse();
        assertThat(resp.store.get("pwned".getBytes())).isNull();
    }

    @Test
    void commandsBeforeTheAttackWereAnsweredAndOtherWordsAreNotMistakenForIt() {
        assertThat(resp.send("SET postal code\r\nGET postal\r\n")).isEqualTo("+OK\r\n$4\r\ncode\r\n");
        assertThat(resp.command("GET", "host:")).isEqualTo("$-1\r\n");
        assertThat(resp.channel.isActive()).isTrue();
    }
}
