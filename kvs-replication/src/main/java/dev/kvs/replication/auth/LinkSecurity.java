package dev.kvs.replication.auth;

import dev.kvs.replication.wire.FrameCodec;
import dev.kvs.replication.wire.FrameMac;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * How replication connections are secured: mutual TLS, a cluster secret proven by both sides, both,
 * or (loopback and tests) neither. Installs the handlers in a connection's pipeline: TLS first of all,
 * the secret's challenge-response right after the frame codec. With the secret and no TLS, every frame
 * after the challenge-response carries a MAC under keys of that connection ({@link FrameMac}): nothing
 * altered, injected, replayed, reordered or dropped on the way goes unnoticed. With TLS there is no
 * MAC: TLS already protects every byte. Thread-safe.
 *
 * @param secret the cluster secret, or null
 * @param tls mutual TLS, or null
 */
public record LinkSecurity(ClusterSecret secret, ReplicationTls tls) {
    /** Neither TLS nor a secret. */
    public static final LinkSecurity NONE = new LinkSecurity(null, null);

    /** With the secret and no TLS, frames will carry a MAC: its code is warmed up in the background now. */
    public LinkSecurity {
        if (secret != null && tls == null) FrameMac.warmUpInBackground();
    }

    /** A dialled connection to {@code peer}: TLS, to be added first. */
    public void addDiallerTls(Channel ch, InetSocketAddress peer) {
        if (tls != null) ch.pipeline().addLast(ReplicationTls.NAME, tls.clientHandler(ch, peer));
    }

    /** A dialled connection: the secret's challenge-response, to be added right after the frame codec. */
    public void addDiallerAuth(Channel ch, long timeoutMillis) {
        if (secret == null) return;
        if (tls == null) FrameCodec.addTagger(ch.pipeline());
        ch.pipeline().addLast(DiallerAuth.NAME, new DiallerAuth(secret, timeoutMillis, tls == null));
    }

    /** An accepted connection: TLS, to be added first. */
    public void addListenerTls(Channel ch) {
        if (tls != null) ch.pipeline().addLast(ReplicationTls.NAME, tls.serverHandler(ch));
    }

    /** An accepted connection: the secret's challenge-response, right after the frame codec. */
    public void addListenerAuth(Channel ch, long epoch) {
        if (secret == null) return;
        if (tls == null) FrameCodec.addTagger(ch.pipeline());
        ch.pipeline().addLast(ListenerAuth.NAME, new ListenerAuth(secret, epoch, tls == null));
    }
}
