/**
 * Keys with a TTL on a node: {@link dev.kvs.server.internal.expiry.LiveReads}, the store as commands
 * read it (a key whose absolute expiry has passed on the node's clock is absent: lazy expiry), and
 * {@link dev.kvs.server.internal.expiry.ActiveExpiry}, the bounded background rounds that remove such
 * keys (replicated deletes on a primary, local removals on a backup) and a primary's leftover
 * tombstones. The commands are in {@code internal.resp}: the EXPIRE/TTL family and PERSIST in {@code
 * ExpiryCommands}, SET's EX/PX/KEEPTTL, SETEX, PSETEX and GETEX in {@code StringCommands}; the expiry
 * itself travels with each write (see "Expiry" in {@code docs/design.md}).
 */
package dev.kvs.server.internal.expiry;
