package dev.kvs.server.internal.script;

import java.util.List;
import org.luaj.vm2.Prototype;

/**
 * One library of functions ({@code FUNCTION LOAD}): its name from the {@code #!lua name=} shebang, its
 * code as sent, the compiled chunk (run again on a fresh sandbox at each {@code FCALL}, which registers its
 * functions anew: so no state is shared between calls, and the chunk is known to do nothing but register,
 * since it ran in {@code FUNCTION LOAD}'s bare globals), and its functions in the order registered.
 * Immutable.
 *
 * @param name the library's name
 * @param code the library's code, shebang included, as {@code FUNCTION LIST WITHCODE} and {@code DUMP} give it
 * @param chunk the compiled code after the shebang line
 * @param functions the functions it registered, at least one
 */
public record FunctionLibrary(String name, byte[] code, Prototype chunk, List<Function> functions) {

    /** Redis 7.0's function flags, in the order {@code FUNCTION LIST} names them. */
    static final List<String> FLAGS =
            List.of("no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys");

    public FunctionLibrary {
        functions = List.copyOf(functions);
    }

    /**
     * One function of a library.
     *
     * @param name its name, unique on the node
     * @param description the {@code description} it was registered with, or null
     * @param flags its flags, in {@link #FLAGS}'s order
     */
    public record Function(String name, String description, List<String> flags) {
        public Function {
            flags = List.copyOf(flags);
        }

        /** True if it may run no write command ({@code FCALL_RO} takes only such functions). */
        public boolean noWrites() {
            return flags.contains("no-writes");
        }
    }

    /** The function named {@code name} in this library, or null. */
    public Function function(String name) {
        for (Function f : functions) if (f.name().equals(name)) return f;
        return null;
    }
}
