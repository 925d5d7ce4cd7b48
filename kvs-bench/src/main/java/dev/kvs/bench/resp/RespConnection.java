package dev.kvs.bench.resp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client connection: one socket, commands written as arrays of bulk strings,
 * replies read in order. Nothing is retried and nothing is hidden (an error reply is a {@link
 * ErrorReply} value, not an exception), so a benchmark sees exactly what the server answered and
 * when. One thread may {@link #send} while another {@link #read}s (pipelining); otherwise not
 * thread-safe.
 */
public final class RespConnection implements AutoCloseable {
    /**
     * An error reply ({@code -KIND message}).
     *
     * @param message the text after the {@code -}
     */
    public record ErrorReply(String message) {
        /** The first word: {@code ERR}, {@code BUSY}, {@code NOREPLICA}, ... */
        public String kind() {
            int space = message.indexOf(' ');
            return space < 0 ? message : message.substring(0, space);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** Over streams, for tests; {@link #close()} closes them. */
    RespConnection(InputStream in, OutputStream out) {
        this.socket = null;
        this.in = in;
        this.out = out;
    }

    private RespConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    }

    /**
     * Connects to {@code host:port} (5 s to connect) and sets the connection's replication mode with
     * {@code KVS.MODE mode}, as every bench writer does before its first write.
     *
     * @throws IOException if the connection cannot be made, or the node does not answer {@code OK}
     */
    public static RespConnection openInMode(String host, int port, Duration readTimeout, String mode)
            throws IOException {
        RespConnection c = open(host, port, Duration.ofSeconds(5), readTimeout);
        Object reply = c.call("KVS.MODE", mode);
        if (!"OK".equals(reply)) {
            c.close();
            throw new IOException("KVS.MODE " + mode + " answered " + describe(reply));
        }
        return c;
    }

    /** A reply as a message quotes it: {@code -message} for an error, a bulk string in quotes. */
    public static String describe(Object reply) {
        if (reply instanceof ErrorReply e) return "-" + e.message();
        if (reply instanceof byte[] b) return "\"" + new String(b, StandardCharsets.UTF_8) + "\"";
        return String.valueOf(reply);
    }

    /**
     * Connects to {@code host:port}.
     *
     * @param readTimeout how long {@link #read()} waits for a reply before it throws {@link
     *     java.net.SocketTimeoutException}
     * @throws IOException if the connection cannot be made
     */
    public static RespConnection open(String host, int port, Duration connectTimeout, Duration readTimeout)
            throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
            s.connect(new InetSocketAddress(host, port), Math.toIntExact(connectTimeout.toMillis()));
            return new RespConnection(s);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Sends one command and waits for its reply. */
    public Object call(Object... args) throws IOException {
        send(args);
        return read();
    }

    /** Writes one command, each argument a {@code String} (UTF-8) or a {@code byte[]}, and flushes. */
    public void send(Object... args) throws IOException {
        out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (Object a : args) {
            byte[] b = bytes(a);
            out.write(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(b); // a body longer than the buffer goes straight to the socket, uncopied
            out.write(CRLF);
        }
        out.flush();
    }

    private static final byte[] CRLF = {'\r', '\n'};

    private static byte[] bytes(Object a) {
        if (a instanceof byte[] b) return b;
        if (a instanceof String s) return s.getBytes(StandardCharsets.UTF_8);
        throw new IllegalArgumentException("argument is not a String or byte[]: " + a);
    }

    /**
     * Reads the next reply: a {@code String} (simple string), an {@link ErrorReply}, a {@code Long}, a
     * {@code byte[]} (bulk string; {@code null} for nil), or a {@code List} of these.
     *
     * @throws java.net.SocketTimeoutException if none came within the read timeout
     * @throws IOException if the connection closed or the bytes are not RESP
     */
    public Object read() throws IOException {
        int type = in.read();
        if (type < 0) throw new EOFException("connection closed by the server");
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ErrorReply(line);
            case ':':
                return number(line);
            case '$': {
                long n = number(line);
                if (n < 0) return null;
                if (n > Integer.MAX_VALUE - 8) throw new IOException("bulk string too long: " + n);
                byte[] body = in.readNBytes((int) n);
                if (body.length < n || in.read() != '\r' || in.read() != '\n') {
                    throw new IOException("bulk string of " + n + " bytes cut short");
                }
                return body;
            }
            case '*': {
                long n = number(line);
                if (n < 0) return null;
                List<Object> items = new ArrayList<>();
                for (long i = 0; i < n; i++) items.add(read());
                return items;
            }
            default:
                throw new IOException("not a RESP reply: type byte " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("connection closed in the middle of a reply");
            if (c == '\r') {
                if (in.read() != '\n') throw new IOException("reply line without \\n after \\r: " + b);
                return b.toString();
            }
            if (b.length() > 64 * 1024) throw new IOException("reply line longer than 64 KiB");
            b.append((char) c);
        }
    }

    private static long number(String line) throws IOException {
        try {
            return Long.parseLong(line);
        } catch (NumberFormatException e) {
            throw new IOException("not a RESP number: " + line);
        }
    }

    /** Closes the connection; a thread blocked in {@link #read()} gets an exception. Idempotent. */
    @Override
    public void close() {
        try {
            if (socket != null) {
                socket.close();
            } else {
                in.close();
                out.close();
            }
        } catch (IOException e) {
            // closing: nothing left to do with it
        }
    }
}
