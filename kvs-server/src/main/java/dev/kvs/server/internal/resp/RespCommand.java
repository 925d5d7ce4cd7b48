package dev.kvs.server.internal.resp;

/**
 * One decoded client command: its arguments, or why it cannot be run (the stream stayed in sync, so
 * only this command is refused).
 *
 * @param args the arguments, {@code args[0]} being the command name; empty for a blank line
 * @param error {@code null}, or the error reply text for a command that was read but is invalid
 */
record RespCommand(byte[][] args, String error) {
    static RespCommand invalid(String error) {
        return new RespCommand(new byte[0][], error);
    }
}
