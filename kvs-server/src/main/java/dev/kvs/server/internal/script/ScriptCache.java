package dev.kvs.server.internal.script;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The compiled scripts by SHA-1, bounded in count and in body bytes: past either bound the least
 * recently run script is forgotten, and its next {@code EVALSHA} answers {@code NOSCRIPT}, which every
 * client answers by sending the body with {@code EVAL} (Redis 7.0 keeps every script until {@code
 * SCRIPT FLUSH}; an unbounded cache is a memory leak for a client that builds scripts from values).
 * Thread-safe (synchronized: it is used once per script command).
 */
final class ScriptCache {
    private final int maxScripts;
    private final long maxBytes;
    private final LinkedHashMap<String, Script> bySha = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    ScriptCache(int maxScripts, long maxBytes) {
        this.maxScripts = maxScripts;
        this.maxBytes = maxBytes;
    }

    synchronized Script get(String sha) {
        return bySha.get(sha);
    }

    synchronized boolean contains(String sha) {
        return bySha.containsKey(sha);
    }

    /** Keeps {@code script}, forgetting the least recently used ones past the bounds. */
    synchronized void put(Script script) {
        Script old = bySha.put(script.sha(), script);
        if (old != null) return;
        bytes += script.body().length;
        var it = bySha.entrySet().iterator();
        while ((bySha.size() > maxScripts || bytes > maxBytes) && it.hasNext()) {
            Map.Entry<String, Script> eldest = it.next();
            if (eldest.getValue() == script) continue; // the one just added stays
            bytes -= eldest.getValue().body().length;
            it.remove();
        }
    }

    synchronized void clear() {
        bySha.clear();
        bytes = 0;
    }

    synchronized int size() {
        return bySha.size();
    }

    /** The cached scripts' bodies, in bytes. */
    synchronized long bytes() {
        return bytes;
    }
}
