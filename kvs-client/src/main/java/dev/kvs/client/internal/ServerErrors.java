package dev.kvs.client.internal;

import dev.kvs.client.AuthenticationException;
import dev.kvs.client.BusyException;
import dev.kvs.client.DataLostException;
import dev.kvs.client.FencedException;
import dev.kvs.client.Keys;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsTlsException;
import dev.kvs.client.NoPermissionException;
import dev.kvs.client.NotReplicatedException;
import dev.kvs.client.StoreFullException;
import dev.kvs.client.UnfinishedKeyException;
import dev.kvs.client.WrongTypeException;
import dev.kvs.cluster.HashSlots;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/** Error replies: their first word, and the exception each one is thrown as. */
final class ServerErrors {
    private static final Pattern TX_ID = Pattern.compile("\\d+:\\d+");

    /** The first word of an error reply, the part a client switches on. */
    enum Kind {
        NOTPRIMARY,
        UNFINISHED,
        LOST,
        FENCED,
        BUSY,
        NOREPLICA,
        OOM,
        NOAUTH,
        WRONGPASS,
        NOPERM,
        TLSREQUIRED,
        /** {@code -MOVED slot host:port}: a cluster node that does not serve the key's slot. */
        MOVED,
        /**
         * {@code -CLUSTERDOWN ...}: a cluster node that cannot serve now and executed nothing: a primary
         * whose lease lapsed (cut off from ZooKeeper), or a node with no cluster map yet.
         */
        CLUSTERDOWN,
        /** {@code -WRONGTYPE ...}: the key holds another type; nothing was done. */
        WRONGTYPE,
        OTHER
    }

    /** A key and the TxId an {@code -UNFINISHED} or {@code -LOST} reply names. */
    record KeyedError(byte[] key, String txId) {}

    /** What a {@code -MOVED slot host:port} reply says: the node that serves the slot. */
    record Moved(int slot, Endpoint node) {}

    private ServerErrors() {}

    static Kind kind(String text) {
        String word = firstWord(text);
        for (Kind k : Kind.values()) {
            if (k != Kind.OTHER && k.name().equals(word)) return k;
        }
        return Kind.OTHER;
    }

    /**
     * The exception an error reply is thrown as. {@code keys} are those of the request, so that an
     * {@code -UNFINISHED}/{@code -LOST} exception carries the key's exact bytes.
     */
    static KvsClientException toException(String text, List<byte[]> keys) {
        switch (kind(text)) {
            case UNFINISHED: {
                KeyedError e = keyed(text, keys);
                return new UnfinishedKeyException(text, e.key(), e.txId());
            }
            case LOST: {
                KeyedError e = keyed(text, keys);
                return new DataLostException(text, e.key(), e.txId());
            }
            case FENCED:
                return new FencedException(text, epoch(text));
            case BUSY:
                return new BusyException(text);
            case NOREPLICA:
                return new NotReplicatedException(text);
            case OOM:
                return new StoreFullException(text);
            case NOAUTH:
            case WRONGPASS:
                return new AuthenticationException(text);
            case NOPERM:
                return new NoPermissionException(text);
            case WRONGTYPE:
                return new WrongTypeException(text);
            case TLSREQUIRED:
                return new KvsTlsException(
                        text + " (the client has no TLS configured: KvsClient.builder().tls(caFile))");
            default:
                return new KvsClientException(text);
        }
    }

    /**
     * Parses {@code WORD <key> <txid>}. The key is everything between the first and the last space
     * (a printable key may hold spaces); if it matches one of the request's keys as UTF-8 or as
     * printed, that key's bytes are used, and a single-key request's key is used in any case.
     */
    static KeyedError keyed(String text, List<byte[]> keys) {
        String rest = afterFirstWord(text);
        int lastSpace = rest.lastIndexOf(' ');
        String keyText = rest;
        String txId = "?";
        if (lastSpace > 0 && TX_ID.matcher(rest.substring(lastSpace + 1)).matches()) {
            keyText = rest.substring(0, lastSpace);
            txId = rest.substring(lastSpace + 1);
        } else if (TX_ID.matcher(rest).matches() && keys.size() == 1) {
            keyText = "";
            txId = rest;
        }
        for (byte[] k : keys) {
            if (new String(k, StandardCharsets.UTF_8).equals(keyText)
                    || Keys.printable(k).equals(keyText)) {
                return new KeyedError(k, txId);
            }
        }
        if (keys.size() == 1) return new KeyedError(keys.get(0), txId);
        return new KeyedError(keyText.getBytes(StandardCharsets.UTF_8), txId);
    }

    /**
     * The primary's client address a {@code -NOTPRIMARY host:port ...} reply names (its second word),
     * or null if it names none ({@code -}, a node that does not know it) or the word is not {@code
     * HOST:PORT}.
     */
    static Endpoint primaryNamed(String text) {
        if (kind(text) != Kind.NOTPRIMARY) return null;
        String word = afterFirstWord(text).split(" ", 2)[0];
        if (word.isEmpty() || word.equals("-")) return null;
        try {
            return Endpoint.parse(word);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Parses {@code MOVED slot host:port} (Redis writes an IPv6 host without brackets: the port is
     * after the last colon), or null if the reply is not one.
     */
    static Moved moved(String text) {
        if (kind(text) != Kind.MOVED) return null;
        String[] words = afterFirstWord(text).split(" ");
        if (words.length != 2) return null;
        int colon = words[1].lastIndexOf(':');
        if (colon <= 0) return null;
        String host = words[1].substring(0, colon);
        String hostPort = host.indexOf(':') >= 0 && !host.startsWith("[")
                ? "[" + host + "]" + words[1].substring(colon)
                : words[1];
        try {
            int slot = Integer.parseInt(words[0]);
            if (slot < 0 || slot >= HashSlots.SLOTS) return null;
            return new Moved(slot, Endpoint.parse(hostPort));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static long epoch(String text) {
        String rest = afterFirstWord(text);
        String first = rest.split(" ", 2)[0];
        try {
            return Long.parseLong(first);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String firstWord(String text) {
        int space = text.indexOf(' ');
        return space < 0 ? text : text.substring(0, space);
    }

    private static String afterFirstWord(String text) {
        int space = text.indexOf(' ');
        return space < 0 ? "" : text.substring(space + 1);
    }
}
