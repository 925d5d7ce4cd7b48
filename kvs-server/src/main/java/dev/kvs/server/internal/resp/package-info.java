/**
 * The RESP client port: {@link dev.kvs.server.internal.resp.RespServer}, our own decoder (with
 * limits; inline commands split as Redis splits them, {@code InlineWords}) and reply encoder (RESP2,
 * or RESP3 after {@code HELLO 3}, with the reply types of {@code TypedReplies}); per connection, {@link dev.kvs.server.internal.resp.RespHandler} with its parts (dispatch,
 * the reply queue that keeps replies in request order while writes wait for replication, the held
 * commands, the session's limits); and the commands, one class per Redis command group (strings,
 * counters, hashes (HashCommands: its writes, HashReads: its reads), sets (SetCommands on one key,
 * SetAlgebra over several), keyspace, rename and copy, object, expiry, server, connection, ACL,
 * cluster, and kvs's own), each given what it uses by a
 * {@link dev.kvs.server.internal.resp.CommandContext} that the node builds. Data commands write
 * through {@link dev.kvs.server.internal.write.Writes}; a new group (hashes, sets) is a new class
 * registered in {@code RespServer}. On a clustered node a keyed command's keys pass the slot check
 * ({@link dev.kvs.server.internal.resp.SlotCheck}: {@code -MOVED}, {@code -CROSSSLOT}) first.
 * Transactions ({@code MULTI}/{@code EXEC}, {@link dev.kvs.server.internal.resp.TransactionCommands})
 * queue in the session and run alone behind the {@link dev.kvs.server.internal.resp.ExecBarrier}
 * that every data command passes. Scripts ({@code EVAL}, {@link
 * dev.kvs.server.internal.resp.ScriptCommands}) run alone behind it too, on the scripting package's
 * own thread, their {@code redis.call}s checked and run here. Pub/sub ({@code PubSubCommands}) keeps
 * its registry in the pubsub package; a connection subscribes as a {@code ConnectionSubscriber}, which
 * writes its messages on its event loop and cuts off a subscriber that does not read them.
 */
package dev.kvs.server.internal.resp;
