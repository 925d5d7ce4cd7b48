package dev.kvs.server.internal.resp;

/**
 * A command's name, arity (Redis convention: positive means exact, negative means at least), and what
 * it needs.
 *
 * @param name upper-case name
 * @param arity argument count including the name
 * @param flags {@link #NOAUTH}, {@link #DATA}, {@link #WRITE}
 * @param firstKey index of the first key argument (0: none), for COMMAND INFO
 * @param lastKey index of the last key (-1: last argument), for COMMAND INFO
 * @param keyStep step between keys, for COMMAND INFO
 * @param command the implementation
 */
record CommandSpec(String name, int arity, int flags, int firstKey, int lastKey, int keyStep, Command command) {
    /** Allowed before AUTH. */
    static final int NOAUTH = 1;
    /** Reads or writes data: refused on a backup. */
    static final int DATA = 2;
    /** Writes data. */
    static final int WRITE = 4;

    boolean arityOk(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
