/**
 * Keyspace notifications, as Redis's {@code notify-keyspace-events}: {@link
 * dev.kvs.server.internal.notify.EventClasses}, the setting's flags (parsed and rendered in Redis's
 * words and order), and {@link dev.kvs.server.internal.notify.KeyEvents}, which the command groups and
 * active expiry call once per event site and which publishes {@code __keyspace@0__:<key>} and {@code
 * __keyevent@0__:<event>} through an {@link dev.kvs.server.internal.notify.EventSink}: the seam to
 * pub/sub, which this package does not know. Events are emitted where a command changes a key on this
 * node; what replication applies on a backup emits nothing, so a promoted backup emits from its
 * promotion on.
 */
package dev.kvs.server.internal.notify;
