package dev.kvs.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.client.KvsClient;
import dev.kvs.client.ReplicationMode;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.NodeConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code kvs drill --tls} gives its nodes: {@link NodeYaml} with a {@link RunPki} writes YAML
 * that nodes accept and that makes a working pair: replication over mutual TLS (and the cluster
 * secret), TLS-only client and admin ports that the SDK and the {@link AdminClient} reach with the
 * run's CA.
 */
class DrillTlsConfigTest {
    @TempDir
    Path dir;

    @Test
    void theGeneratedTlsConfigMakesAStreamingPairReachableOnlyOverTls() throws Exception {
        RunPki pki = RunPki.create(dir, List.of("dc-main", "dc-backup"), List.of(TwoDcs.LOOPBACK));
        String token = NodeYaml.newAdminToken();
        NodeYaml yaml = new NodeYaml("kvs-test", "id-first", "store:\n  maxBytes: 256MiB\n", token).withPki(pki);

        Path backupFile = yaml.write(dir, "dc-backup", "backup", TwoDcs.LOOPBACK, 0, 0, 0, null);
        assertThat(Files.readString(backupFile))
                .contains("tls:\n  certFile: \"" + pki.certFile("dc-backup") + "\"\n")
                .contains("  keyFile: \"" + pki.keyFile("dc-backup") + "\"\n")
                .contains("  caFile: \"" + pki.caFile() + "\"\n  clients: true\n  admin: true\n");
        NodeConfig backupConfig = NodeConfigLoader.load(backupFile);
        assertThat(backupConfig.tls()).isPresent();
        assertThat(backupConfig.tlsPorts().clients()).isTrue();
        assertThat(backupConfig.tlsPorts().admin()).isTrue();

        try (KvsNode backup = KvsNode.start(backupConfig);
                KvsNode primary = KvsNode.start(NodeConfigLoader.load(yaml.write(
                        dir,
                        "dc-main",
                        "primary",
                        TwoDcs.LOOPBACK,
                        0,
                        0,
                        0,
                        TwoDcs.LOOPBACK + ":" + backup.replPort())))) {
            AdminClient admin = new AdminClient(token, pki.clientTls());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> admin.get(TwoDcs.LOOPBACK, primary.adminPort(), "/status")
                            .path("replication")
                            .path("state")
                            .asText()
                            .equals("streaming"));

            NodeAccess access = new NodeAccess(pki.clientTls(), null, null);
            try (KvsClient client = access.applyTo(KvsClient.builder())
                    .endpoints(TwoDcs.LOOPBACK + ":" + primary.port())
                    .mode(ReplicationMode.SYNC)
                    .build()) {
                client.put("over-tls", "replicated");
                assertThat(client.get("over-tls")).isEqualTo("replicated");
            }
            // a sync write is acknowledged only once the backup has it: it crossed the mutual-TLS link
            JsonNode status = admin.get(TwoDcs.LOOPBACK, backup.adminPort(), "/status");
            assertThat(status.path("role").asText()).isEqualTo("backup");
            assertThat(status.toString()).containsPattern("\"lastTxId\":\"1:[1-9]");
        }
    }
}
