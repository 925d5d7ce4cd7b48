package dev.kvs.server.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of kvs this code belongs to, for {@code /status}, {@code INFO} and {@code --version}. */
public final class KvsVersion {
    private static final String VERSION = find();

    private KvsVersion() {}

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}; {@code dev} when run from class directories. */
    public static String get() {
        return VERSION;
    }

    // The jar manifest (fat jar), then the pom.properties maven-jar-plugin puts in each jar.
    private static String find() {
        String v = KvsVersion.class.getPackage().getImplementationVersion();
        if (v != null && !v.isBlank()) return v;
        try (InputStream in =
                KvsVersion.class.getResourceAsStream("/META-INF/maven/dev.kvs/kvs-server/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                v = p.getProperty("version");
                if (v != null && !v.isBlank()) return v;
            }
        } catch (IOException e) {
            // fall through
        }
        return "dev";
    }
}
