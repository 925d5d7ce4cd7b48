package dev.kvs.bench.latency;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** A minimal authenticated RESP connection for the attacks' bystanders: PING, SET, READONLY, GET. */
final class RespProbe implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;

    RespProbe(InetSocketAddress address, String password) throws IOException {
        socket = new Socket();
        socket.connect(address, 5000);
        socket.setSoTimeout(5000);
        in = socket.getInputStream();
        send(Abuse.command("AUTH", password));
        expectSimple("+OK");
    }

    void ping() throws IOException {
        send(Abuse.command("PING"));
        expectSimple("+PONG");
    }

    void set(String key, byte[] value) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(("*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$" + value.length + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        b.write(value);
        b.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        send(b.toByteArray());
        expectSimple("+OK");
    }

    /** {@code READONLY}: a backup serves reads on this connection. */
    void readOnly() throws IOException {
        send(Abuse.command("READONLY"));
        expectSimple("+OK");
    }

    /** The value, or null if absent or answered with an error (e.g. not yet arrived). */
    byte[] get(String key) throws IOException {
        send(Abuse.command("GET", key));
        String line = line();
        if (!line.startsWith("$") || line.equals("$-1")) return null;
        int n = Integer.parseInt(line.substring(1));
        byte[] v = in.readNBytes(n);
        in.readNBytes(2);
        return v;
    }

    private void send(byte[] b) throws IOException {
        socket.getOutputStream().write(b);
        socket.getOutputStream().flush();
    }

    private void expectSimple(String expected) throws IOException {
        String line = line();
        if (!line.equals(expected)) throw new IOException("expected " + expected + ", got " + line);
    }

    private String line() throws IOException {
        String l = AdminAbuse.statusLine(in);
        if (l.isEmpty()) throw new IOException("connection closed");
        return l;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** {@code PING} every 5 ms on one authenticated connection, reconnecting if it is lost. */
    static final class Pinger implements Runnable {
        private final InetSocketAddress address;
        private final String password;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Double> latencies = new ArrayList<>();
        private int failures;

        Pinger(InetSocketAddress address, String password) {
            this.address = address;
            this.password = password;
        }

        @Override
        public void run() {
            while (running.get()) {
                try (RespProbe r = new RespProbe(address, password)) {
                    while (running.get()) {
                        long start = System.nanoTime();
                        r.ping();
                        double ms = (System.nanoTime() - start) / 1e6;
                        synchronized (this) {
                            latencies.add(ms);
                        }
                        AdminAbuse.pause(5); // the ping schedule
                    }
                } catch (IOException e) {
                    synchronized (this) {
                        failures++;
                    }
                    AdminAbuse.pause(5);
                }
            }
        }

        void stop() {
            running.set(false);
        }

        synchronized double[] latencies() {
            return latencies.stream().mapToDouble(Double::doubleValue).toArray();
        }

        synchronized int failures() {
            return failures;
        }

        Double p99() {
            double[] l = latencies();
            if (l.length == 0) return null;
            Arrays.sort(l);
            return l[Math.min(l.length - 1, (int) Math.ceil(l.length * 0.99) - 1)];
        }
    }
}
