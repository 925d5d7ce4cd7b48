package dev.kvs.bench.jmh;

import dev.kvs.bench.resp.RespConnection;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Redis baseline for {@link ReplicationLatencyBenchmark}: what a Redis user does today for the
 * same protection. A real {@code redis-server} primary and a replica ({@code --replicaof}) whose
 * replication connection goes through the same emulated WAN (FIFO {@link WanLink}, 5 ms one way, 1000
 * Mbit/s); one client sends {@code SET} and {@code WAIT 1 0} (both written before the first reply is
 * read, as a pipelining client would) and waits for both replies: {@code WAIT} answers once the
 * replica has acknowledged the write's replication offset, so the value is on the replica too (Fig.
 * 3(a) and an upper bound for Fig. 3(b)).
 *
 * <p>Needs {@code redis-server} on {@code PATH}: without it the set-up fails with {@link
 * RedisServer#NOT_INSTALLED}, and {@code kvs bench jmh} leaves this benchmark out with that message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 2, time = 2)
public class RedisWaitBenchmark {
    @Param({"100", "100000", "1048576", "10485760"})
    public int valueSize;

    /** As {@link ReplicationLatencyBenchmark#clientBitsPerSecond}: the client's own link to the primary. */
    @Param({"0"})
    public long clientBitsPerSecond;

    private WanLink clientLink;

    private RedisServer primary;
    private WanLink link;
    private RedisServer replica;
    private RespConnection client;
    private final String key = "jmh-redis-wait";
    private byte[] value;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        RedisServer.requireOnPath();
        primary = RedisServer.start("primary", List.of());
        link = WanLink.builder()
                .target("127.0.0.1", primary.port)
                .delay(ReplicationLatencyBenchmark.ONE_WAY_DELAY)
                .bandwidthBitsPerSecond(ReplicationLatencyBenchmark.BITS_PER_SECOND)
                .queueing(WanLink.Queueing.FIFO)
                .build();
        replica = RedisServer.start("replica", List.of("--replicaof", "127.0.0.1", Integer.toString(link.port())));
        replica.awaitInfo("master_link_status", "up", Duration.ofSeconds(30));
        primary.awaitInfo("connected_slaves", "1", Duration.ofSeconds(30));
        clientLink = ReplicationLatencyBenchmark.clientLink(primary.port, clientBitsPerSecond);
        client = RespConnection.open(
                "127.0.0.1",
                clientLink != null ? clientLink.port() : primary.port,
                Duration.ofSeconds(5),
                ReplicationLatencyBenchmark.TIMEOUT);
        value = new byte[valueSize];
        new Random(valueSize).nextBytes(value);
        setThenWait(); // the replica's first acknowledgement; not measured
    }

    /** {@code SET} then {@code WAIT 1 0}, until both replies. */
    @Benchmark
    public Object setThenWait() throws IOException {
        client.send("SET", key, value);
        client.send("WAIT", "1", "0");
        ReplicationLatencyBenchmark.expect("OK", client.read(), "SET of " + valueSize + " bytes");
        Object replicas = client.read();
        if (!Long.valueOf(1).equals(replicas)) {
            throw new IllegalStateException("WAIT 1 0 answered " + replicas + ", expected 1");
        }
        return replicas;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (client != null) client.close();
        if (clientLink != null) clientLink.close();
        if (replica != null) replica.close();
        if (link != null) link.close();
        if (primary != null) primary.close();
    }
}
