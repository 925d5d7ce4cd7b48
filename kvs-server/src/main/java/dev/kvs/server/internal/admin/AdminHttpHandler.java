package dev.kvs.server.internal.admin;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatches each aggregated HTTP request, which the {@link AdminGate} let through, to the route table
 * and answers exactly once: with the route's response, a JSON error for a request a route refused
 * ({@link AdminException}), a 500 for anything else that goes wrong in a route (logged), or a 503 if the
 * route has not answered within the deadline. One instance shared by every connection.
 */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);

    private final AdminRoutes routes;
    private final Duration deadline;

    /**
     * @param deadline how long a route may take to answer before the client is told 503
     */
    AdminHttpHandler(AdminRoutes routes, Duration deadline) {
        this.routes = routes;
        this.deadline = deadline;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isSuccess()) {
            respond(
                    ctx,
                    AdminResponse.error(
                            400, "bad request: " + req.decoderResult().cause()),
                    false);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        String method = req.method().name();
        AdminRequest request;
        try {
            QueryStringDecoder uri = new QueryStringDecoder(req.uri());
            request = new AdminRequest(method, uri.path(), uri.parameters(), ByteBufUtil.getBytes(req.content()));
        } catch (IllegalArgumentException e) {
            respond(ctx, AdminResponse.error(400, "bad request URI: " + e.getMessage()), false);
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        CompletionStage<AdminResponse> answer;
        try {
            answer = routes.find(method, request.path()).handle(request);
            if (answer == null) throw new IllegalStateException("the route returned no answer (null)");
        } catch (Throwable e) { // an Error too: the client gets an answer, whatever broke
            answerOnce(ctx, answered, failure(request, e), keepAlive);
            return;
        }
        ScheduledFuture<?> late = ctx.executor()
                .schedule(
                        () -> answerOnce(ctx, answered, tooLate(request), keepAlive),
                        deadline.toMillis(),
                        TimeUnit.MILLISECONDS);
        answer.whenComplete((response, error) -> {
            late.cancel(false);
            if (error == null && response == null) {
                error = new IllegalStateException("the route answered nothing (null)");
            }
            answerOnce(ctx, answered, error != null ? failure(request, error) : response, keepAlive);
        });
    }

    private static void answerOnce(
            ChannelHandlerContext ctx, AtomicBoolean answered, AdminResponse response, boolean keepAlive) {
        if (answered.compareAndSet(false, true)) respond(ctx, response, keepAlive);
    }

    /** The answer to a route that failed: its {@link AdminException}'s status, else 500 (logged). */
    static AdminResponse failure(AdminRequest request, Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof AdminException refused) {
            log.debug("admin {} {} refused: {}", request.method(), request.path(), refused.getMessage());
            return AdminResponse.error(refused.status(), refused.getMessage());
        }
        log.warn("admin {} {} failed", request.method(), request.path(), cause);
        return AdminResponse.error(500, request.method() + " " + request.path() + " failed: " + cause);
    }

    private AdminResponse tooLate(AdminRequest request) {
        log.warn("admin {} {} did not answer within {} ms", request.method(), request.path(), deadline.toMillis());
        return AdminResponse.error(
                503,
                request.method() + " " + request.path() + " did not answer within " + deadline.toMillis()
                        + " ms; it may still finish: see GET /status");
    }

    // Thread-safe: Netty hands writes from other threads to the channel's event loop.
    private static void respond(ChannelHandlerContext ctx, AdminResponse response, boolean keepAlive) {
        FullHttpResponse res = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.status()),
                Unpooled.wrappedBuffer(response.body()));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
        for (Map.Entry<String, String> h : response.headers().entrySet()) {
            res.headers().set(h.getKey(), h.getValue());
        }
        if (keepAlive) {
            ctx.writeAndFlush(res);
        } else {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("admin connection {} failed; closing it", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
