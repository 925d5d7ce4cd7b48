package dev.kvs.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeYamlTest {
    @TempDir
    Path dir;

    private final NodeYaml yaml = new NodeYaml("kvs-test", "id-first", "store:\n  maxBytes: 2GiB\n");

    @Test
    void thePrimaryNamesItsPeerAndTheTuningComesLast() throws Exception {
        Path file = yaml.write(dir, "dc-main", "primary", "127.0.0.1", 0, 0, 0, "127.0.0.1:7001");

        assertThat(file).isEqualTo(dir.resolve("dc-main.yaml"));
        assertThat(Files.readString(file))
                .isEqualTo("cluster: kvs-test\nname: dc-main\nrole: primary\nbind: 127.0.0.1\nport: 0\nreplPort: 0\n"
                        + "adminPort: 0\npeer: 127.0.0.1:7001\nmode: id-first\nclusterSecret: " + NodeYaml.RUN_SECRET
                        + "\nadmin:\n  token: \"" + yaml.adminToken() + "\"\nstore:\n  maxBytes: 2GiB\n");
    }

    @Test
    void theBackupHasNoPeer() throws Exception {
        Path file = yaml.write(dir, "dc-backup", "backup", "0.0.0.0", 6379, 7000, 8080, null);

        assertThat(Files.readString(file))
                .contains("bind: 0.0.0.0\nport: 6379\nreplPort: 7000\nadminPort: 8080\nmode: id-first\n")
                .doesNotContain("peer");
    }

    @Test
    void everyNodeOfARunSharesOneFreshClusterSecret() throws Exception {
        String a = Files.readString(yaml.write(dir, "a", "primary", "127.0.0.1", 0, 0, 0, "127.0.0.1:7001"));
        String b = Files.readString(
                new NodeYaml("kvs-test", "sync", "").write(dir, "b", "backup", "127.0.0.1", 0, 0, 0, null));

        assertThat(NodeYaml.RUN_SECRET).hasSize(48).isNotEqualTo("0".repeat(48));
        assertThat(a).contains("clusterSecret: " + NodeYaml.RUN_SECRET + "\n");
        assertThat(b).contains("clusterSecret: " + NodeYaml.RUN_SECRET + "\n");
    }

    @Test
    void withoutTheClusterSecretNoNodeGetsOneAndTlsStaysAsItWas() throws Exception {
        NodeYaml without = yaml.withoutClusterSecret();

        String a = Files.readString(without.write(dir, "a", "primary", "127.0.0.1", 0, 0, 0, "127.0.0.1:7001"));

        assertThat(a).doesNotContain("clusterSecret").contains("mode: id-first\n", "store:\n  maxBytes: 2GiB\n");
        assertThat(without.withPki(null).clusterSecret()).isFalse();
        assertThat(yaml.clusterSecret()).isTrue();
    }

    @Test
    void anAdminTokenGoesInTheAdminSectionAndOnlyItsOwnerMayReadTheFile() throws Exception {
        String token = NodeYaml.newAdminToken();
        NodeYaml withToken = new NodeYaml("kvs-test", "id-first", "store:\n  maxBytes: 2GiB\n", token);

        Path file = withToken.write(dir, "dc-main", "primary", "127.0.0.1", 0, 0, 0, null);

        assertThat(Files.readString(file))
                .contains("mode: id-first\n", "\nadmin:\n  token: \"" + token + "\"\nstore:\n  maxBytes: 2GiB\n");
        if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
        }
    }

    @Test
    void withoutATokenTheNodesGetAFreshOneForTheyHaveAClusterSecret() {
        assertThat(yaml.adminToken()).matches("[0-9a-f]{64}");
        assertThat(new NodeYaml("kvs-test", "id-first", "", null).adminToken())
                .matches("[0-9a-f]{64}")
                .isNotEqualTo(yaml.adminToken());
    }

    @Test
    void everyNewAdminTokenIsFreshAndAValidToken() {
        String a = NodeYaml.newAdminToken();
        assertThat(a).matches("[0-9a-f]{64}").isNotEqualTo(NodeYaml.newAdminToken());
    }
}
