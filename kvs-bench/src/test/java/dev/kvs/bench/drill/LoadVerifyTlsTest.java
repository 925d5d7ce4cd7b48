package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cli.InProcessKvs;
import dev.kvs.bench.cluster.RunPki;
import dev.kvs.bench.cluster.SecuredNode;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.TlsPortsConfig.ClientAuth;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvs drill load} and {@code kvs drill verify} against a node whose client port speaks TLS only
 * and has users: with {@code --tls-ca} (and {@code --tls-cert}/{@code --tls-key} where the node
 * requires a client certificate) and {@code --user}/{@code --password}, every acknowledged write is
 * read back complete; without TLS, or as a readonly user, nothing is acknowledged.
 */
class LoadVerifyTlsTest {
    private static final Pattern ACKED = Pattern.compile("([\\d,]+) writes acknowledged");

    @TempDir
    Path dir;

    private final InProcessKvs kvs = new InProcessKvs();

    @Test
    void loadAndVerifyOverTlsAsANamedUser() {
        RunPki pki = SecuredNode.pki(dir, "node");
        try (KvsNode node = SecuredNode.start(pki, "node", ClientAuth.NONE)) {
            String endpoint = "127.0.0.1:" + node.port();
            Path acked = dir.resolve("acked.tsv");
            int load = kvs.run(
                    "drill",
                    "load",
                    "--endpoints",
                    endpoint,
                    "--mode",
                    "async",
                    "--clients",
                    "2",
                    "--duration",
                    "1s",
                    "--value-size",
                    "256",
                    "--out",
                    acked.toString(),
                    "--tls-ca",
                    pki.caFile().toString(),
                    "--user",
                    SecuredNode.APP,
                    "--password",
                    SecuredNode.APP_PASSWORD);
            assertThat(load).as(kvs.toString()).isZero();
            long n = acked(kvs.out());
            assertThat(n).as(kvs.toString()).isPositive();
            assertThat(kvs.out()).contains(", 0 failed {}");

            kvs.clear();
            int verify = kvs.run(
                    "drill",
                    "verify",
                    "--endpoints",
                    endpoint,
                    "--in",
                    acked.toString(),
                    "--tls-ca",
                    pki.caFile().toString(),
                    "--user",
                    SecuredNode.READER,
                    "--password",
                    SecuredNode.READER_PASSWORD);
            assertThat(verify).as(kvs.toString()).isZero();
            assertThat(kvs.out())
                    .containsPattern("async\\s+" + String.format("%,d", n) + "\\s+" + String.format("%,d", n)
                            + " \\(100\\.0%\\)");

            // without TLS nothing is executed: the load acknowledges nothing and verify cannot read back
            kvs.clear();
            Path none = dir.resolve("none.tsv");
            assertThat(kvs.run(
                            "drill",
                            "load",
                            "--endpoints",
                            endpoint,
                            "--mode",
                            "async",
                            "--clients",
                            "1",
                            "--duration",
                            "300ms",
                            "--out",
                            none.toString(),
                            "--user",
                            SecuredNode.APP,
                            "--password",
                            SecuredNode.APP_PASSWORD))
                    .isZero();
            assertThat(acked(kvs.out())).isZero();
            assertThat(kvs.out()).contains("KvsTlsException=");
            kvs.clear();
            assertThat(kvs.run("drill", "verify", "--endpoints", endpoint, "--in", acked.toString()))
                    .as(kvs.toString())
                    .isEqualTo(1);
            assertThat(kvs.err()).contains("cannot read from [" + endpoint + "]: TLSREQUIRED");

            // a readonly user's writes are refused, never acknowledged
            kvs.clear();
            assertThat(kvs.run(
                            "drill",
                            "load",
                            "--endpoints",
                            endpoint,
                            "--mode",
                            "async",
                            "--clients",
                            "1",
                            "--duration",
                            "300ms",
                            "--out",
                            none.toString(),
                            "--tls-ca",
                            pki.caFile().toString(),
                            "--user",
                            SecuredNode.READER,
                            "--password",
                            SecuredNode.READER_PASSWORD))
                    .isZero();
            assertThat(acked(kvs.out())).isZero();
            assertThat(kvs.out()).contains("NoPermissionException=");
        }
    }

    @Test
    void aNodeRequiringClientCertificatesTakesTheLoadWithTlsCertAndKey() {
        RunPki pki = SecuredNode.pki(dir, "node");
        try (KvsNode node = SecuredNode.start(pki, "node", ClientAuth.REQUIRE)) {
            String endpoint = "127.0.0.1:" + node.port();
            Path acked = dir.resolve("acked.tsv");
            assertThat(kvs.run(
                            "drill",
                            "load",
                            "--endpoints",
                            endpoint,
                            "--mode",
                            "async",
                            "--clients",
                            "1",
                            "--duration",
                            "500ms",
                            "--value-size",
                            "64",
                            "--out",
                            acked.toString(),
                            "--tls-ca",
                            pki.caFile().toString(),
                            "--tls-cert",
                            pki.certFile("node").toString(),
                            "--tls-key",
                            pki.keyFile("node").toString(),
                            "--user",
                            SecuredNode.APP,
                            "--password",
                            SecuredNode.APP_PASSWORD))
                    .as(kvs.toString())
                    .isZero();
            assertThat(acked(kvs.out())).as(kvs.toString()).isPositive();
            kvs.clear();
            // the same without the client certificate: the TLS handshake is refused
            assertThat(kvs.run(
                            "drill",
                            "verify",
                            "--endpoints",
                            endpoint,
                            "--in",
                            acked.toString(),
                            "--tls-ca",
                            pki.caFile().toString(),
                            "--user",
                            SecuredNode.APP,
                            "--password",
                            SecuredNode.APP_PASSWORD))
                    .as(kvs.toString())
                    .isEqualTo(1);
            assertThat(kvs.err()).contains("cannot read from [" + endpoint + "]");
        }
    }

    @Test
    void badAccessFlagsAreUsageErrors() {
        assertThat(kvs.run("drill", "load", "--endpoints", "127.0.0.1:1", "--out", "x", "--tls-cert", "a.crt"))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("--tls-cert and --tls-key go together");
        kvs.clear();
        assertThat(kvs.run(
                        "drill", "verify", "--endpoints", "127.0.0.1:1", "--in", "x", "--tls-ca", "/nonexistent.crt"))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("cannot read TLS file /nonexistent.crt");
        kvs.clear();
        assertThat(kvs.run("drill", "verify", "--endpoints", "127.0.0.1:1", "--in", "x", "--user", "app"))
                .isEqualTo(2);
        assertThat(kvs.err()).contains("--user needs a password");
    }

    private static long acked(String out) {
        Matcher m = ACKED.matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
