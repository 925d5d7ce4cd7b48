package dev.kvs.server.internal.admin;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Answers one admin endpoint. Routes run on a Netty event loop: they must not block; slow work (a
 * promotion, a manifest of millions of keys) runs elsewhere and completes the returned stage ({@link
 * AdminServer#blockingRoute} does that). An {@link AdminException}, thrown or completing the stage,
 * becomes a JSON error with its status; any other exception or error a 500 JSON error.
 */
@FunctionalInterface
public interface AdminRoute {
    CompletionStage<AdminResponse> handle(AdminRequest request) throws Exception;

    /** A route that answers at once. */
    static AdminRoute of(Function<AdminRequest, AdminResponse> answer) {
        return request -> CompletableFuture.completedFuture(answer.apply(request));
    }
}
