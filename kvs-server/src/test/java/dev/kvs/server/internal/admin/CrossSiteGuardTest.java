package dev.kvs.server.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The Origin, Host and X-Kvs-Admin rules on their own. */
class CrossSiteGuardTest {
    private final CrossSiteGuard guard =
            new CrossSiteGuard(List.of("0.0.0.0", "kvs1.example.com.", "::1"), false, true);

    @Test
    void hostHeadersAreReadWithoutTheirPort() {
        assertThat(CrossSiteGuard.hostOf("KVS1.example.com:8380")).isEqualTo("kvs1.example.com");
        assertThat(CrossSiteGuard.hostOf("[::1]:8380")).isEqualTo("[::1]");
        assertThat(CrossSiteGuard.hostOf("example.com.")).isEqualTo("example.com");
        assertThat(CrossSiteGuard.hostOf("::1"))
                .as("a bare IPv6 literal is no Host")
                .isEmpty();
        assertThat(CrossSiteGuard.hostOf("[::1")).isEmpty();
    }

    @Test
    void ownNamesAndLiteralsPassOthersAreRefused() {
        for (String host :
                List.of("10.1.2.3:8380", "[fe80::1]", "localhost", "kvs1.example.com", "KVS1.EXAMPLE.COM.:1")) {
            assertThat(guard.check("GET", "/status", null, host, null)).as(host).isNull();
        }
        for (String host : List.of("0.0.0.0.evil.example", "evil.example", "10.1.2.3.nip.io", "", "::1")) {
            assertThat(guard.check("GET", "/status", null, host, null)).as(host).isNotNull();
        }
    }

    @Test
    void onlyLoopbackAndOwnOriginsPass() {
        for (String origin :
                List.of("http://localhost:3000", "http://127.0.0.2", "https://[::1]:8443", "http://kvs1.example.com")) {
            assertThat(guard.check("POST", "/promote", origin, "localhost", "1"))
                    .as(origin)
                    .isNull();
        }
        for (String origin : List.of(
                "http://evil.example",
                "null",
                "http://10.1.2.3",
                "file://",
                "http://127.0.0.1.evil.example",
                "garbage")) {
            assertThat(guard.check("POST", "/promote", origin, "localhost", "1").status())
                    .as(origin)
                    .isEqualTo(403);
        }
    }

    @Test
    void anHttpsPortLeavesHostToTheCertificateButStillChecksOrigin() {
        CrossSiteGuard https = new CrossSiteGuard(List.of(), true, false);
        assertThat(https.check("GET", "/status", null, "kvs2.example.com", null))
                .isNull();
        assertThat(https.check("POST", "/promote", "https://evil.example", "kvs2.example.com", null))
                .isNotNull();
        assertThat(https.check("POST", "/promote", null, "kvs2.example.com", null))
                .as("with a token the Authorization header is the proof")
                .isNull();
    }
}
