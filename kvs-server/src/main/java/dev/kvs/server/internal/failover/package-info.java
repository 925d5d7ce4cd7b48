/**
 * Failover policy: when to promote (operator, switchover, automatic), the loss manifest, resolving
 * lost keys, and failback on both the new and the deposed primary ({@code Failover}; the timer's
 * automatic promotion is {@code AutoPromotion}, the new primary's side of failback {@code TakeBack}; the
 * admin routes are {@code internal.admin.FailoverRoutes}). The role changes themselves are made by the
 * {@link dev.kvs.server.internal.role.RoleMachine}.
 */
package dev.kvs.server.internal.failover;
