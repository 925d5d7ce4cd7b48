package dev.kvs.client;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A blocking one-command-at-a-time RESP2 connection for tests, to ask a node directly (not through
 * the client under test). Replies: a String for simple and bulk strings ({@code null} for a null
 * bulk), {@code "-" + text} for an error, a Long, or a List.
 */
final class RespProbe implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespProbe(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(5_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends one command and reads its reply. */
    Object call(String... args) {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String a : args) {
                byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
                b.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                b.write(bytes);
                b.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(b.toByteArray());
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #call} for a reply known to be text. */
    String text(String... args) {
        return (String) call(args);
    }

    private Object read() throws IOException {
        String line = line();
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
                return rest;
            case '-':
                return "-" + rest;
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int n = Integer.parseInt(rest);
                if (n < 0) return null;
                byte[] bytes = in.readNBytes(n + 2);
                return new String(bytes, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(rest);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < n; i++) items.add(read());
                return items;
            }
            default:
                throw new IOException("unexpected RESP line: " + line);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) throw new IOException("connection closed");
            b.write(c);
        }
        in.read(); // '\n'
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a test connection
        }
    }
}
