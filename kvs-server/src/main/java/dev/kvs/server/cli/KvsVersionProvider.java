package dev.kvs.server.cli;

import dev.kvs.server.internal.KvsVersion;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the kvs version from the jar manifest, and the JVM it runs on. */
public final class KvsVersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {
            "kvs " + KvsVersion.get(),
            "JVM: ${java.version} (${java.vendor} ${java.vm.name} ${java.vm.version})",
            "OS: ${os.name} ${os.version} ${os.arch}"
        };
    }
}
