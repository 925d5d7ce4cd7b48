package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An EXEC is atomic for every other client ({@link ExecBarrier}): clients on their own threads (each
 * connection driven by one thread, as an event loop would) run EXECs that write two keys the same
 * value, or increment two counters, while another reads both keys in one command; the reader must
 * never see one written and not the other, and the counters end equal. Seeded: the values and the
 * mix of commands come from {@code -Dkvs.seed} (printed), the interleaving from the threads.
 */
class ExecAtomicityTest {
    private static final int EXECS = 500;

    private final RespChannel resp = RespChannel.withDefaults();
    private final List<EmbeddedChannel> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(EmbeddedChannel::finishAndReleaseAll);
        resp.close();
    }

    private EmbeddedChannel connect() {
        EmbeddedChannel c = new EmbeddedChannel();
        resp.server.configure(c.pipeline());
        c.pipeline().fireChannelActive();
        clients.add(c);
        return c;
    }

    private static String send(EmbeddedChannel c, String... commands) {
        StringBuilder in = new StringBuilder();
        for (String command : commands) in.append(RespChannel.encode(command.split(" ")));
        c.writeInbound(Unpooled.copiedBuffer(in, StandardCharsets.ISO_8859_1));
        c.runPendingTasks();
        StringBuilder out = new StringBuilder();
        ByteBuf b;
        while ((b = c.readOutbound()) != null) {
            out.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return out.toString();
    }

    @Test
    void noClientSeesHalfAnExecAndNoWriteLandsInsideOne() throws Exception {
        long seed = Long.getLong("kvs.seed", System.nanoTime());
        System.out.println("ExecAtomicityTest seed " + seed + " (replay: -Dkvs.seed=" + seed + ")");
        Random seeds = new Random(seed);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            EmbeddedChannel c = connect();
            Random random = new Random(seeds.nextLong());
            threads.add(new Thread(() -> {
                for (int i = 0; i < EXECS; i++) {
                    String v = Long.toString(random.nextLong() >>> 1, 36);
                    String reply = random.nextBoolean()
                            ? send(c, "MULTI", "SET a " + v, "SET b " + v, "EXEC")
                            : send(c, "MULTI", "INCR n", "SET a " + v, "INCR m", "SET b " + v, "EXEC");
                    if (!reply.startsWith("+OK\r\n+QUEUED\r\n")) violations.add("EXEC answered " + reply);
                }
            }));
        }
        EmbeddedChannel r = connect();
        Thread reader = new Thread(() -> {
            while (writing.get()) {
                String[] ab = send(r, "MGET a b").split("\r\n");
                if (ab.length == 5 && !(ab[1] + ab[2]).equals(ab[3] + ab[4]))
                    violations.add("MGET a b saw " + String.join(" ", ab));
                String[] nm = send(r, "MGET n m").split("\r\n");
                if (nm.length == 5 && !(nm[1] + nm[2]).equals(nm[3] + nm[4]))
                    violations.add("MGET n m saw " + String.join(" ", nm));
            }
        });
        reader.start();
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join();
        writing.set(false);
        reader.join();

        assertThat(violations).as("seed %d", seed).isEmpty();
        assertThat(resp.command("MGET", "n", "m"))
                .as("seed %d", seed)
                .matches("\\*2\r\n\\$\\d+\r\n(\\d+)\r\n\\$\\d+\r\n\\1\r\n");
    }
}
