package dev.kvs.server.cli;

import dev.kvs.core.KvsException;
import dev.kvs.server.config.ConfigException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns failures of the {@code kvs} commands into one line on stderr and an exit code: 2 for a bad
 * flag or configuration, 1 for a failure to run (port in use, store error). Unexpected exceptions
 * also print their stack trace.
 */
public final class CliErrorHandler implements IParameterExceptionHandler, IExecutionExceptionHandler {
    /** Exit code of a bad flag or configuration. */
    public static final int USAGE = CommandLine.ExitCode.USAGE;

    /** Exit code of a command that could not do its work. */
    public static final int FAILURE = CommandLine.ExitCode.SOFTWARE;

    /** Installs the handler on {@code commandLine} and its subcommands; returns {@code commandLine}. */
    public static CommandLine install(CommandLine commandLine) {
        CliErrorHandler h = new CliErrorHandler();
        commandLine.setParameterExceptionHandler(h);
        commandLine.setExecutionExceptionHandler(h);
        return commandLine;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        String hint = "";
        if (ex instanceof UnmatchedArgumentException u) {
            List<String> suggestions = u.getSuggestions();
            if (!suggestions.isEmpty()) hint = " (did you mean " + String.join(" or ", suggestions) + "?)";
        }
        PrintWriter err = cmd.getErr();
        err.println(name + ": " + ex.getMessage() + hint + "; see '" + name + " --help'");
        err.flush();
        return USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        String name = cmd.getCommandSpec().qualifiedName();
        PrintWriter err = cmd.getErr();
        int code;
        if (ex instanceof ConfigException) {
            err.println(name + ": " + ex.getMessage());
            code = USAGE;
        } else if (ex instanceof KvsException) {
            err.println(name + ": " + ex.getMessage());
            code = FAILURE;
        } else {
            err.println(name + ": unexpected error: " + ex);
            ex.printStackTrace(err);
            code = FAILURE;
        }
        err.flush();
        return code;
    }
}
