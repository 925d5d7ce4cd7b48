package dev.kvs.server.config;

import dev.kvs.core.KvsException;

/**
 * A node configuration (YAML file or command-line flags) that cannot be used. The message is one line
 * that starts with {@code config error: } and names the field and the value, ready to show a user.
 */
public final class ConfigException extends KvsException {
    public ConfigException(String problem) {
        super("config error: " + problem);
    }

    public ConfigException(String problem, Throwable cause) {
        super("config error: " + problem, cause);
    }
}
