package dev.kvs.server.internal.resp;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * RESP2 and RESP3 replies as text, for comparing kvs's with a real Redis's: {@link #call} sends a
 * command on a socket and returns the whole reply's bytes as ISO-8859-1 text; {@link #parse} turns such
 * text into values (bulk, verbatim and simple strings: String, integers: Long, errors: {@link Err},
 * arrays, sets, pushes and maps (keys and values in turn): List, nil and null: null, doubles: Double,
 * booleans: Boolean, big numbers: BigInteger).
 */
final class RespText {
    /** An error reply. */
    record Err(String message) {}

    private RespText() {}

    /** Sends {@code args} to {@code port} on loopback and returns the reply's raw text. */
    static String call(int port, String... args) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            return call(s, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends {@code args} on {@code s} and returns the reply's raw text. */
    static String call(Socket s, String... args) {
        try {
            s.getOutputStream().write(RespChannel.encode(args).getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            StringBuilder raw = new StringBuilder();
            read(s.getInputStream(), raw);
            return raw.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the next reply (or push) on {@code s} and returns its raw text, without sending anything. */
    static String next(Socket s) {
        try {
            StringBuilder raw = new StringBuilder();
            read(s.getInputStream(), raw);
            return raw.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value of one reply's raw text. */
    static Object parse(String raw) {
        try {
            return read(new ByteArrayInputStream(raw.getBytes(StandardCharsets.ISO_8859_1)), new StringBuilder());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Object read(InputStream in, StringBuilder raw) throws IOException {
        String line = line(in);
        raw.append(line).append("\r\n");
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
                return rest;
            case '-':
                return new Err(rest);
            case ':':
                return Long.parseLong(rest);
            case '_':
                return null;
            case ',':
                return Double.parseDouble(rest.replace("inf", "Infinity"));
            case '#':
                return rest.equals("t");
            case '(':
                return new java.math.BigInteger(rest);
            case '$':
            case '=': {
                int n = Integer.parseInt(rest);
                if (n < 0) return null;
                String text = new String(in.readNBytes(n + 2), StandardCharsets.ISO_8859_1);
                raw.append(text);
                return text.substring(0, n);
            }
            case '*':
            case '~':
            case '>':
            case '%': {
                int n = Integer.parseInt(rest);
                if (n < 0) return null;
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < (type == '%' ? 2 * n : n); i++) out.add(read(in, raw));
                return out; // a map: its keys and values one after the other
            }
            default:
                throw new IOException("not a RESP2 or RESP3 reply: " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n' && b.length() > 0 && b.charAt(b.length() - 1) == '\r') return b.substring(0, b.length() - 1);
            b.append((char) c);
        }
        throw new IOException("connection closed after " + b);
    }
}
