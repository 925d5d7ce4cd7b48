package dev.kvs.server.internal.admin;

import dev.kvs.server.internal.AdminPortStats;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Decides on each request's head, between the HTTP decoder and the aggregator, before a byte of its body
 * is read or buffered: a request the {@link CrossSiteGuard} or the {@link AdminAccess} policy refuses,
 * or whose body would exceed {@link AdminServer#MAX_BODY_BYTES}, is answered and its connection closed
 * at once, its body never read; so the aggregator never answers {@code 100 Continue} to it. Also closes
 * a connection that sends no whole request head (or body) within {@code headTimeoutMillis} of opening
 * or of its head, or no next request within {@code idleTimeoutMillis} of its last answer, and takes part
 * in the port's {@link AdminConnections cap}. One per connection; runs on its event loop.
 */
final class AdminGate extends ChannelDuplexHandler {
    private final AdminAccess access;
    private final CrossSiteGuard crossSite;
    private final AdminConnections connections;
    private final AdminPortStats stats;
    private final long headTimeoutMillis;
    private final long idleTimeoutMillis;
    private ScheduledFuture<?> timer;
    /** A request was refused: whatever else the client sends is dropped until the connection closes. */
    private boolean refused;

    AdminGate(
            AdminAccess access,
            CrossSiteGuard crossSite,
            AdminConnections connections,
            AdminPortStats stats,
            long headTimeoutMillis,
            long idleTimeoutMillis) {
        this.access = access;
        this.crossSite = crossSite;
        this.connections = connections;
        this.stats = stats;
        this.headTimeoutMillis = headTimeoutMillis;
        this.idleTimeoutMillis = idleTimeoutMillis;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (connections.opened(ctx.channel())) {
            arm(ctx, headTimeoutMillis);
            super.channelActive(ctx);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        disarm();
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused || !ctx.channel().isActive()) { // a head cut short by the close is no request
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest head) {
            AdminResponse refusal = check(ctx, head);
            if (refusal != null) {
                ReferenceCountUtil.release(msg);
                refuse(ctx, head, refusal);
                return;
            }
            connections.busy(ctx.channel());
            arm(ctx, headTimeoutMillis); // now for its body
        }
        if (msg instanceof LastHttpContent) disarm(); // the route has the request: it may take minutes
        ctx.fireChannelRead(msg);
    }

    private AdminResponse check(ChannelHandlerContext ctx, HttpRequest head) {
        if (!head.decoderResult().isSuccess()) {
            return AdminResponse.error(
                    400, "bad request: " + head.decoderResult().cause());
        }
        String method = head.method().name();
        String path;
        try {
            path = new QueryStringDecoder(head.uri()).path();
        } catch (IllegalArgumentException e) {
            return AdminResponse.error(400, "bad request URI: " + e.getMessage());
        }
        HttpHeaders h = head.headers();
        AdminResponse refusal = crossSite.check(
                method, path, h.get(HttpHeaderNames.ORIGIN), h.get(HttpHeaderNames.HOST), h.get(CrossSiteGuard.HEADER));
        if (refusal == null) {
            refusal = access.check(
                    method,
                    path,
                    h.get(HttpHeaderNames.AUTHORIZATION),
                    ctx.channel().remoteAddress());
        }
        if (refusal == null && HttpUtil.getContentLength(head, -1L) > AdminServer.MAX_BODY_BYTES) {
            refusal = AdminResponse.error(
                    413,
                    "request body over " + AdminServer.MAX_BODY_BYTES + " bytes: no admin request has a body"
                            + " (parameters go in the query string)");
        }
        return refusal;
    }

    private void refuse(ChannelHandlerContext ctx, HttpRequest head, AdminResponse refusal) {
        refused = true;
        disarm();
        connections.busy(ctx.channel());
        ctx.channel().config().setAutoRead(false); // its body stays in the socket, unread, until closed
        stats.refusals()
                .warn(
                        "admin {} {} from {} refused ({}) before its body was read",
                        head.method(),
                        printable(head.uri()),
                        ctx.channel().remoteAddress(),
                        refusal.status());
        FullHttpResponse res = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(refusal.status()),
                Unpooled.wrappedBuffer(refusal.body()));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, refusal.contentType());
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, refusal.body().length);
        for (Map.Entry<String, String> e : refusal.headers().entrySet()) {
            res.headers().set(e.getKey(), e.getValue());
        }
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        boolean answer = msg instanceof HttpResponse r && r.status().codeClass() != HttpStatusClass.INFORMATIONAL;
        if (answer) {
            promise = promise.unvoid();
            promise.addListener(f -> {
                if (f.isSuccess() && ctx.channel().isOpen() && !refused) {
                    connections.idle(ctx.channel());
                    arm(ctx, idleTimeoutMillis);
                }
            });
        }
        super.write(ctx, msg, promise);
    }

    private void arm(ChannelHandlerContext ctx, long millis) {
        disarm();
        timer = ctx.executor()
                .schedule(
                        () -> {
                            if (ctx.channel().isOpen()) {
                                stats.timedOut();
                                ctx.close();
                            }
                        },
                        millis,
                        TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** At most 200 characters of what the client sent, without control characters, for the log. */
    private static String printable(String s) {
        String t = s.length() > 200 ? s.substring(0, 200) + "..." : s;
        return t.replaceAll("[^\\x20-\\x7e]", "?");
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        disarm();
    }
}
