package dev.kvs.server.internal.resp;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.internal.pubsub.Subscriptions;
import dev.kvs.server.internal.write.LastWrite;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.concurrent.Executor;

/** Per-connection state. Confined to the connection's event loop. */
final class Session {
    final long id;
    final String remoteAddress;
    final long createdAtMillis = System.currentTimeMillis();
    /** The connection's buffer allocator: long values' replies are read into its direct buffers. */
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    /** The connection's event loop, where a read that waited for its key resumes; null in tests. */
    Executor loop;
    /** The user this connection is logged in as; {@code null} until it logs in. */
    UserConfig user;

    String name;
    /**
     * The RESP version this connection asked for with {@code HELLO} (2 until then): what {@code HELLO}
     * and {@code CLIENT INFO} show. The encoder switches at {@code HELLO}'s reply ({@link
     * TypedReplies.Hello}), not here, so replies still to be written keep their protocol.
     */
    int protocol = 2;
    /** Per-connection override of the node's replication mode (KVS.MODE), or null. */
    ReplicationMode mode;
    /** Set by READONLY, cleared by READWRITE: reads may run on a backup. */
    boolean readonly;
    /** This connection's last write that ordered a TxId: what {@code WAIT} waits for the backup to confirm. */
    final LastWrite lastWrite = new LastWrite();

    /**
     * The staged value of the command running now ({@link RespCommand#staged()}), for SET to take; the
     * handler closes it after the command whether or not it was taken.
     */
    RespCommand.Staged staged;

    /** The transaction {@code MULTI} began, until {@code EXEC} or {@code DISCARD}; null outside one. */
    Transaction transaction;

    /** The keys {@code WATCH}ed, until {@code EXEC}, {@code DISCARD} or {@code UNWATCH}; null if none. */
    WatchedKeys watched;

    /**
     * The script this connection runs on the scripts' thread ({@link ScriptCommands}), or the EXEC that
     * waits for its reads' fenced keys before it runs ({@link TransactionCommands}), until it ends; null
     * otherwise. The connection's later commands are held meanwhile.
     */
    java.util.concurrent.CompletableFuture<RedisMessage> script;

    /**
     * True while this connection's EXEC or script runs alone in the barrier (on its thread): a read of a
     * fenced key is refused then, not waited for ({@link KeyGate}).
     */
    boolean alone;

    /**
     * This connection as a pub/sub subscriber: where its messages are queued; set when it opens (null in
     * tests without a connection).
     */
    ConnectionSubscriber subscriber;

    /**
     * The connection's reply encoder, into whose batch a GET reads a short value ({@link DirectValues}),
     * or null without one (tests): set when the connection opens.
     */
    RespReplyEncoder replyEncoder;

    /** The channels and patterns this connection subscribed to; null until its first subscribe. */
    Subscriptions subscriptions;

    /** True while the connection is in RESP2's subscribe mode: subscribed to anything, speaking RESP2. */
    boolean inSubscribeMode() {
        return subscriptions != null && protocol == 2 && subscriptions.any();
    }

    /** {@code CLIENT REPLY OFF}: no replies are written but pub/sub's pushes, until {@code CLIENT REPLY ON}. */
    boolean replyOff;

    /** {@code CLIENT REPLY SKIP} ran: the next command's reply is dropped. */
    boolean replySkipNext;

    /** The reply of the command running now is dropped ({@code CLIENT REPLY SKIP} ran before it). */
    boolean replySkip;

    /**
     * True if the reply of the command that just ran is dropped (pub/sub's pushes excepted), as Redis's
     * {@code CLIENT REPLY}; moves a {@code SKIP} on to the next command. Called once per command.
     */
    boolean silenced() {
        boolean silenced = replyOff || replySkip || replySkipNext;
        replySkip = replySkipNext;
        replySkipNext = false;
        return silenced;
    }

    /** True if {@code CLIENT REPLY} drops the next command's reply, as {@link #silenced} would say; moves nothing. */
    boolean silencing() {
        return replyOff || replySkip || replySkipNext;
    }

    /** Set by QUIT: close the connection once the reply is written. */
    boolean closeAfterReply;

    /** @param user the user the connection starts as ({@code null}: it must log in first) */
    Session(long id, String remoteAddress, UserConfig user) {
        this.id = id;
        this.remoteAddress = remoteAddress;
        this.user = user;
    }

    /** True once the connection has logged in (at once when no login is required). */
    boolean authenticated() {
        return user != null;
    }
}
