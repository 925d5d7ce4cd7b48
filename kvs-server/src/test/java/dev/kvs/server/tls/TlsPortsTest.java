package dev.kvs.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.server.KvsNode;
import dev.kvs.server.NodeStartException;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.TlsPortsConfig;
import dev.kvs.server.config.TlsPortsConfig.ClientAuth;
import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on a real node's client and admin ports, spoken to by the JDK's TLS (as redis-cli {@code --tls}
 * or curl would): the ports answer over TLS, refuse plain text before running anything, and with
 * {@code clientAuth: require} refuse a client without a certificate.
 */
class TlsPortsTest {
    private static X509Bundle ca;
    private static X509Bundle otherCa;
    private static X509Bundle server;
    private static X509Bundle client;
    private static X509Bundle strangerClient;

    private final List<KvsNode> nodes = new ArrayList<>();

    @BeforeAll
    static void pki() throws Exception {
        ca = TestPki.authority("CN=kvs test CA");
        otherCa = TestPki.authority("CN=someone else's CA");
        server = TestPki.leaf(ca, "kvs-node");
        client = TestPki.leaf(ca, "app");
        strangerClient = TestPki.leaf(otherCa, "stranger");
    }

    @AfterEach
    void stop() {
        nodes.forEach(KvsNode::close);
    }

    private KvsNode start(boolean clients, boolean admin, ClientAuth auth) throws Exception {
        KvsNode node = KvsNode.start(NodeConfig.builder()
                .name("tls-node")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .tls(TestPki.files(server, ca))
                .tlsPorts(new TlsPortsConfig(clients, admin, auth))
                .build());
        nodes.add(node);
        return node;
    }

    @Test
    void clientPortAnswersOverTls() throws Exception {
        KvsNode node = start(true, false, ClientAuth.NONE);
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, null))) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
            assertThat(c.call("SET", "k", "v")).isEqualTo("+OK");
            assertThat(c.call("GET", "k")).isEqualTo("$1 v");
        }
    }

    @Test
    void plainTextOnTheTlsClientPortIsRefusedAndRunsNothing() throws Exception {
        KvsNode node = start(true, false, ClientAuth.NONE);
        try (Socket plain = new Socket("127.0.0.1", node.port())) {
            plain.setSoTimeout(10_000);
            plain.getOutputStream()
                    .write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n".getBytes(StandardCharsets.US_ASCII));
            // the refusal, then end of stream: the node closed the connection
            assertThat(readToEnd(plain.getInputStream())).startsWith("-TLSREQUIRED ");
        }
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, null))) {
            assertThat(c.call("EXISTS", "k")).isEqualTo(":0");
        }
    }

    @Test
    void aClientTrustingAnotherCaCannotConnect() throws Exception {
        KvsNode node = start(true, false, ClientAuth.NONE);
        assertThatThrownBy(() -> {
                    try (Resp c = Resp.tls(node.port(), TestPki.clientContext(otherCa, null))) {
                        c.call("PING");
                    }
                })
                .isInstanceOf(IOException.class);
    }

    @Test
    void requiredClientCertificateMustComeFromTheCa() throws Exception {
        KvsNode node = start(true, false, ClientAuth.REQUIRE);
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, client))) {
            assertThat(c.call("SET", "k", "v")).isEqualTo("+OK");
        }
        for (X509Bundle identity : new X509Bundle[] {null, strangerClient}) {
            // TLS 1.3: the client's handshake ends before the node checks its certificate, so the refusal
            // shows on the first read; nothing is answered
            assertThatThrownBy(() -> {
                        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, identity))) {
                            c.call("DEL", "k");
                        }
                    })
                    .as("client certificate %s", identity == null ? "none" : "of another CA")
                    .isInstanceOf(IOException.class);
        }
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, client))) {
            assertThat(c.call("GET", "k")).isEqualTo("$1 v");
        }
    }

    @Test
    void optionalClientCertificateMayBeLeftOut() throws Exception {
        KvsNode node = start(true, false, ClientAuth.OPTIONAL);
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, null))) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
        }
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, client))) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
        }
    }

    @Test
    void adminPortSpeaksHttpsOnlyAndTheClientPortStaysPlain() throws Exception {
        KvsNode node = start(false, true, ClientAuth.NONE);
        HttpClient https = HttpClient.newBuilder()
                .sslContext(TestPki.clientContext(ca, null))
                .build();
        HttpResponse<String> health = https.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + node.adminPort() + "/health"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"ok\"");

        HttpResponse<String> plain = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + "/status"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(plain.statusCode()).isEqualTo(400);
        assertThat(plain.body()).contains("HTTPS only");

        try (Resp c = Resp.plain(node.port())) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
        }
    }

    @Test
    void bothPortsShareTheCertificateAndTheClientAuthentication() throws Exception {
        KvsNode node = start(true, true, ClientAuth.REQUIRE);
        try (Resp c = Resp.tls(node.port(), TestPki.clientContext(ca, client))) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
        }
        HttpRequest health = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + node.adminPort() + "/health"))
                .build();
        assertThat(HttpClient.newBuilder()
                        .sslContext(TestPki.clientContext(ca, client))
                        .build()
                        .send(health, HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(200);
        assertThatThrownBy(() -> HttpClient.newBuilder()
                        .sslContext(TestPki.clientContext(ca, null))
                        .build()
                        .send(health, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aKeyThatIsNotAKeyStopsTheNodeFromStarting(@TempDir Path dir) throws Exception {
        Path notAKey = Files.writeString(dir.resolve("key.pem"), "not a key");
        var files = TestPki.files(server, ca);
        NodeConfig config = NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .tls(new dev.kvs.replication.TlsFiles(files.certFile(), notAKey, files.caFile(), files.peerName()))
                .tlsPorts(new TlsPortsConfig(true, false, ClientAuth.NONE))
                .build();
        assertThatThrownBy(() -> KvsNode.start(config))
                .isInstanceOf(NodeStartException.class)
                .hasMessageContaining("not usable for the client ports");
    }

    private static String readToEnd(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out); // returns at end of stream; the socket timeout fails it otherwise
        return out.toString(StandardCharsets.US_ASCII);
    }

    /** A minimal blocking RESP client: one command, one reply line (and a bulk string's data). */
    static final class Resp implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;

        private Resp(Socket socket) throws IOException {
            this.socket = socket;
            socket.setSoTimeout(10_000);
            this.out = socket.getOutputStream();
            this.in = socket.getInputStream();
        }

        static Resp plain(int port) throws IOException {
            return new Resp(new Socket("127.0.0.1", port));
        }

        static Resp tls(int port, SSLContext context) throws IOException {
            SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket();
            s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            var params = s.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS"); // as redis-cli: the name must match
            s.setSSLParameters(params);
            s.startHandshake();
            return new Resp(s);
        }

        /** Sends the command; the reply's first line, with a bulk string's data after a space. */
        String call(String... args) throws IOException {
            StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args)
                b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
            out.write(b.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            String line = line();
            if (line.startsWith("$") && !line.equals("$-1")) return line + " " + line();
            return line;
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) throw new IOException("connection closed after \"" + b + "\"");
                if (c != '\r') b.append((char) c);
            }
            return b.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
