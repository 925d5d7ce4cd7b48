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
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Dispatches aggregated HTTP requests to the route table; one instance shared by every connection. */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);

    private final AdminRoutes routes;

    AdminHttpHandler(AdminRoutes routes) {
        this.routes = routes;
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
        CompletionStage<AdminResponse> answer;
        try {
            answer = routes.find(method, request.path()).handle(request);
        } catch (Exception e) {
            respond(ctx, failure(request, e), keepAlive);
            return;
        }
        answer.whenComplete((response, error) -> {
            if (error != null || response == null) {
                respond(ctx, failure(request, error), keepAlive);
            } else {
                respond(ctx, response, keepAlive);
            }
        });
    }

    private static AdminResponse failure(AdminRequest request, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        log.warn("admin {} {} failed", request.method(), request.path(), cause);
        return AdminResponse.error(500, request.method() + " " + request.path() + " failed: " + cause);
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
