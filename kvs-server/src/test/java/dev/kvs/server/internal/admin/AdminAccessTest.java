package dev.kvs.server.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.server.config.AdminConfig;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.Test;

/** The admin access policy on its own: who may do what, with and without a token. */
class AdminAccessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "0123456789abcdef-token";
    private static final SocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40000);
    private static final SocketAddress LOOPBACK6 = new InetSocketAddress("::1", 40000);
    private static final SocketAddress REMOTE = new InetSocketAddress("10.1.2.3", 40000);

    private final AdminAccess open = new AdminAccess(AdminConfig.defaults());
    private final AdminAccess closedReads =
            new AdminAccess(AdminConfig.defaults().withOpenReads(false));
    private final AdminAccess withToken = new AdminAccess(AdminConfig.defaults().withToken(TOKEN));

    @Test
    void withoutATokenLoopbackClientsMayDoEverything() {
        for (SocketAddress local : new SocketAddress[] {LOOPBACK, LOOPBACK6}) {
            assertThat(open.check("POST", "/promote", null, local)).isNull();
            assertThat(closedReads.check("POST", "/switchover", null, local)).isNull();
            assertThat(closedReads.check("GET", "/status", null, local)).isNull();
        }
    }

    @Test
    void withoutATokenRemoteClientsMayOnlyReadAndOnlyIfReadsAreOpen() throws Exception {
        assertThat(open.check("GET", "/status", null, REMOTE)).isNull();
        assertThat(open.check("GET", "/metrics", null, REMOTE)).isNull();

        AdminResponse change = open.check("POST", "/promote", null, REMOTE);
        assertThat(change.status()).isEqualTo(403);
        assertThat(error(change))
                .contains("POST /promote from 10.1.2.3 refused", "loopback", "admin.token", "Authorization: Bearer");

        AdminResponse read = closedReads.check("GET", "/lost", null, REMOTE);
        assertThat(read.status()).isEqualTo(403);
        assertThat(error(read)).contains("admin.openReads is false");
        assertThat(closedReads.check("GET", "/health", null, REMOTE)).isNull();
    }

    @Test
    void aClientOfUnknownAddressIsNotLoopback() {
        assertThat(open.check("POST", "/promote", null, null).status()).isEqualTo(403);
        assertThat(AdminAccess.isLoopback(InetSocketAddress.createUnresolved("localhost", 1)))
                .isFalse();
    }

    @Test
    void withATokenEveryRequestButHealthNeedsItFromAnywhere() throws Exception {
        for (SocketAddress client : new SocketAddress[] {LOOPBACK, REMOTE}) {
            AdminResponse none = withToken.check("GET", "/status", null, client);
            assertThat(none.status()).isEqualTo(401);
            assertThat(none.headers()).containsEntry("WWW-Authenticate", AdminAccess.REALM);
            assertThat(error(none)).contains("Authorization: Bearer");
            assertThat(withToken.check("POST", "/promote", "", client).status()).isEqualTo(401);
            assertThat(withToken.check("GET", "/health", null, client)).isNull();
            assertThat(withToken.check("POST", "/promote", "Bearer " + TOKEN, client))
                    .isNull();
        }
    }

    @Test
    void theTokenMustMatchExactlyUnderTheBearerScheme() throws Exception {
        AdminResponse wrong = withToken.check("POST", "/promote", "Bearer " + TOKEN + "0", REMOTE);
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.headers().get("WWW-Authenticate")).contains("invalid_token");
        assertThat(error(wrong)).doesNotContain(TOKEN);
        assertThat(withToken
                        .check("POST", "/promote", "Bearer " + TOKEN.substring(1), REMOTE)
                        .status())
                .isEqualTo(401);
        assertThat(withToken.check("POST", "/promote", "Basic " + TOKEN, REMOTE).status())
                .isEqualTo(401);
        assertThat(withToken.check("POST", "/promote", TOKEN, REMOTE).status()).isEqualTo(401);
        assertThat(withToken.check("POST", "/promote", "Bearer", REMOTE).status())
                .isEqualTo(401);
        assertThat(withToken.check("POST", "/promote", "  bEaReR   " + TOKEN + " ", REMOTE))
                .isNull();
    }

    @Test
    void theBearerCredentialsAreWhatFollowsTheScheme() {
        assertThat(AdminAccess.bearer("Bearer abc")).isEqualTo("abc");
        assertThat(AdminAccess.bearer("bearer  abc ")).isEqualTo("abc");
        assertThat(AdminAccess.bearer("Basic abc")).isNull();
        assertThat(AdminAccess.bearer("Bearer ")).isNull();
        assertThat(AdminAccess.bearer("abc")).isNull();
    }

    private static String error(AdminResponse r) throws Exception {
        assertThat(r.contentType()).isEqualTo(AdminResponse.JSON_TYPE);
        return JSON.readTree(r.body()).path("error").asText();
    }
}
