package dev.kvs.server.internal.resp;

import dev.kvs.core.ValueStage;

/**
 * One decoded client command: its arguments, or why it cannot be run (the stream stayed in sync, so
 * only this command is refused).
 *
 * @param args the arguments, {@code args[0]} being the command name; empty for a blank line
 * @param error {@code null}, or the error reply text for a command that was read but is invalid
 * @param staged {@code null}, or the value of a {@code SET key value [options]} that the decoder wrote
 *     into the store as it arrived; {@code args[2]} is then {@link #STAGED_ARG}. Whoever handles the
 *     command closes the stage (a no-op once committed).
 */
record RespCommand(byte[][] args, String error, Staged staged) {
    /** Stands in for an argument whose bytes are in {@link #staged()} (compared by identity). */
    static final byte[] STAGED_ARG = new byte[0];

    RespCommand(byte[][] args, String error) {
        this(args, error, null);
    }

    static RespCommand invalid(String error) {
        return new RespCommand(new byte[0][], error);
    }

    /** A value written into a store stage as it arrived, with its CRC32C taken on the way. */
    record Staged(ValueStage stage, int checksum) {}

    /** Closes the staged value, if any: for a command that will not run. */
    void discard() {
        if (staged != null) staged.stage().close();
    }
}
