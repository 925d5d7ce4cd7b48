/**
 * A WAN link emulator: a TCP proxy that makes a loopback connection behave like a link between two
 * datacenters, for tests, drills and benchmarks on machines without {@code tc netem}.
 *
 * <p>Start one with {@link dev.kvs.wan.WanLink#builder()}; point clients at {@link
 * dev.kvs.wan.WanLink#port()} instead of the target. Every accepted connection gets its
 * own connection to the target, and bytes are relayed both ways through the model below.
 *
 * <h2>The model</h2>
 *
 * Each direction (client to target, target to client) is one <em>wire</em> shared by every
 * connection through the link, like one physical link between two routers:
 *
 * <ul>
 *   <li><b>Chunks.</b> Bytes are read from a sender in chunks of at most 16 KiB (less if the buffer is
 *       smaller). A chunk is the unit the wire serializes, so connections interleave at that grain.
 *   <li><b>Serialization.</b> With a bandwidth of {@code B} bits/s, a chunk of {@code n} bytes occupies
 *       the wire for {@code n * 8 / B} seconds; the next chunk starts when the wire is free. A chunk
 *       that arrives at time {@code t} therefore leaves at {@code max(t, wireFree) + n * 8 / B}. No
 *       bandwidth (0) means serialization takes no time.
 *   <li><b>Propagation.</b> A chunk is delivered to the receiver one {@code delay} after it leaves
 *       the wire, never earlier. Per connection and direction bytes arrive in the order they were
 *       sent (if the delay is lowered at run time, later bytes wait for earlier ones).
 *   <li><b>Queueing</b> decides which waiting chunk goes on the wire next. {@link
 *       dev.kvs.wan.WanLink.Queueing#FIFO} (the default, like {@code tc netem} and a
 *       drop-tail router) sends chunks in arrival order: a small packet waits behind every byte
 *       queued before it, so a connection that fills the buffer delays all the others by up to
 *       {@code bufferBytes * 8 / B}. {@link dev.kvs.wan.WanLink.Queueing#FAIR} (like
 *       {@code fq_codel}, the Linux default qdisc) takes turns between connections, one chunk each:
 *       a small packet waits for at most one chunk per other busy connection.
 *   <li><b>Buffer and backpressure.</b> Bytes read but not yet handed to the receiver's socket are
 *       queued in the link, and each direction holds at most {@code bufferBytes} of them. When a read
 *       leaves no room for another chunk, the link stops reading from that sender (TCP flow control
 *       then pushes back on it) and resumes every stopped sender once the queue drains to half.
 *       Bytes are never dropped. With one connection the queue never exceeds {@code bufferBytes};
 *       with several, it may exceed it by one chunk per connection that was mid-read when the buffer
 *       filled, and on native epoll by what a stopped sender's socket holds when it closes (epoll
 *       reads a closed connection to its end at once). Under {@code FAIR} a connection holding less
 *       than its fair share ({@code bufferBytes} divided by the busy connections) keeps reading, as
 *       {@code fq_codel} drops from the fattest flow rather than from a thin one, so the queue may
 *       reach twice {@code bufferBytes}.
 *   <li><b>Cut and pause.</b> A cut resets every connection (queued bytes are discarded) and refuses
 *       new ones until healed. A pause stops delivery, as a partition during which TCP stays up:
 *       connections stay open, bytes queue until backpressure stops the senders, and on resume
 *       whatever is due is delivered at once and the wire carries on.
 * </ul>
 *
 * <p>Not modelled: packet loss, jitter, reordering, the TCP handshake's round trip (a connection to
 * the link is open at once, the one to the target opens without delay), and half-closed connections
 * (when one side closes, the other is closed after the bytes in flight towards it are delivered).
 * The kernel socket buffers of the proxy's own sockets add some queueing outside the model.
 *
 * <p>Accuracy: bytes are never delivered before the model's time, so lower bounds (a round trip
 * takes at least twice the delay, {@code n} bytes take at least {@code n * 8 / B}) hold exactly. They
 * arrive a little later; {@link dev.kvs.wan.WanLinkStats.Lateness} reports how much, per
 * direction. On Linux the link runs on Netty's native epoll transport, which sleeps until the
 * nanosecond it is asked to, so what remains is the time to wake a sleeping thread. Measured on a
 * two-core VM with 4.6 and 5 ms delays: 0.10 to 0.15 ms at the median, idle or under two parallel
 * Maven builds, of which 0.05 ms is the thread's timer slack that {@code epoll_pwait2}, Netty's way
 * to sleep under 10 ms, adds. A timerfd adds none: with {@code
 * -Dio.netty.channel.epoll.epollWaitThreshold=0} Netty uses one for every sleep and the median is
 * 0.07 to 0.09 ms idle, 0.04 ms under load (busy cores wake faster). That setting is JVM-wide, so a
 * link leaves it alone and {@code kvs wan}, a process of its own, sets it. A PING through {@code kvs
 * wan --delay-ms 5} takes 10.2 to 10.4 ms at the median. The p99 is about 0.2 ms idle and 1 to 30 ms
 * on a busy machine, where the event loop waits for a core.
 *
 * <p>Elsewhere (other platforms, {@code -Dkvs.transport=nio}, or an external NIO event loop) the link
 * runs on NIO, whose selector sleeps whole milliseconds rounded to the nearest: a delivery is up to
 * 0.5 ms later, depending on the delay's fraction of a millisecond (0.54 ms at the median with a 4.6
 * ms delay, 0.12 ms with 5 ms), and the event loop polls without sleeping for the last half
 * millisecond before each.
 *
 * <p>A link runs on a single event loop thread. On a small two-core machine that relays a few hundred
 * MB/s (several Gbit/s) with the sender and receiver on the same cores: enough for emulated WAN
 * rates, not for 10 Gbit/s and up.
 */
package dev.kvs.wan;
