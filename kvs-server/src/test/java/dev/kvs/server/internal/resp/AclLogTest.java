package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.config.UserConfig.Role;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@code ACL LOG}: refused logins and commands as Redis 7.2 lists them, repeats merged, at most 128
 * entries, {@code RESET}; and a flood of failed logins writes a bounded number of WARN lines.
 */
class AclLogTest {
    private static final String WRONGPASS = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger respLogger = (Logger) LoggerFactory.getLogger(RespHandler.class);

    @BeforeEach
    void capture() {
        logged.start();
        respLogger.addAppender(logged);
    }

    @AfterEach
    void release() {
        respLogger.detachAppender(logged);
    }

    private static NodeConfig config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder().maxBytes(16 << 20).build())
                .user(UserConfig.withPassword("reader", "r-pass", Role.READONLY))
                .user(UserConfig.withPassword("ops", "o-pass", Role.ADMIN))
                .build();
    }

    @Test
    void aFailedLoginIsListedWithRedisFields() {
        try (RespChannel resp = new RespChannel(config())) {
            assertThat(resp.command("AUTH", "reader", "guess")).isEqualTo(WRONGPASS);
            assertThat(resp.command("AUTH", "ops", "o-pass")).isEqualTo("+OK\r\n");

            assertThat(resp.command("ACL", "LOG"))
                    .startsWith("*1\r\n*20\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$4\r\nauth\r\n"
                            + "$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$4\r\nAUTH\r\n"
                            + "$8\r\nusername\r\n$6\r\nreader\r\n$11\r\nage-seconds\r\n")
                    .containsPattern("\\$11\r\nclient-info\r\n\\$\\d+\r\nid=\\d+ addr=\\S+ ")
                    .contains("$8\r\nentry-id\r\n:0\r\n$17\r\ntimestamp-created\r\n:")
                    .contains("$22\r\ntimestamp-last-updated\r\n:");
        }
    }

    @Test
    void repeatsAreMergedIntoOneEntryWithTheirCountAndResetEmptiesTheLog() {
        try (RespChannel resp = new RespChannel(config())) {
            for (int i = 0; i < 3; i++) resp.command("AUTH", "reader", "guess" + i);
            resp.command("HELLO", "2", "AUTH", "nobody", "x");
            resp.command("AUTH", "ops", "o-pass");

            String log = resp.command("ACL", "LOG");
            assertThat(log).startsWith("*2\r\n"); // newest first: HELLO as nobody, then the three AUTHs as reader
            assertThat(log.indexOf("$6\r\nnobody\r\n")).isLessThan(log.indexOf("$6\r\nreader\r\n"));
            assertThat(log).contains("$5\r\ncount\r\n:3\r\n$6\r\nreason\r\n$4\r\nauth\r\n");
            assertThat(log).contains("$6\r\nobject\r\n$5\r\nHELLO\r\n");
            assertThat(resp.command("ACL", "LOG", "1")).startsWith("*1\r\n");

            assertThat(resp.command("ACL", "LOG", "RESET")).isEqualTo("+OK\r\n");
            assertThat(resp.command("ACL", "LOG")).isEqualTo("*0\r\n");
        }
    }

    @Test
    void theLogKeepsTheNewest128Entries() {
        try (RespChannel resp = new RespChannel(config())) {
            for (int i = 0; i < 300; i++) resp.command("AUTH", "user" + i, "x");
            resp.command("AUTH", "ops", "o-pass");

            assertThat(resp.server.aclLog().size()).isEqualTo(AclLog.MAX_ENTRIES);
            String log = resp.command("ACL", "LOG", "1000");
            assertThat(log).startsWith("*128\r\n").contains("$7\r\nuser299\r\n").doesNotContain("$7\r\nuser171\r\n");
        }
    }

    @Test
    void aCommandRefusedForWantOfPermissionIsLoggedAsRedisDoes() {
        try (RespChannel resp = new RespChannel(config())) {
            resp.command("AUTH", "reader", "r-pass");
            assertThat(resp.command("SET", "k", "v")).startsWith("-NOPERM");
            assertThat(resp.command("ACL", "LOG")).startsWith("-NOPERM"); // an admin's command

            resp.command("AUTH", "ops", "o-pass");
            assertThat(resp.command("ACL", "LOG"))
                    .startsWith("*2\r\n*20\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$7\r\ncommand\r\n")
                    .contains("$6\r\nobject\r\n$7\r\nacl|log\r\n")
                    .contains("$6\r\nobject\r\n$3\r\nset\r\n$8\r\nusername\r\n$6\r\nreader\r\n");
        }
    }

    @Test
    void eventsMoreThanAMinuteApartAreSeparateEntries() {
        AtomicLong now = new AtomicLong(1_000_000);
        AclLog log = new AclLog(now::get);
        log.failedLogin("AUTH", "reader", "id=1");
        now.addAndGet(AclLog.GROUPING_MILLIS);
        log.failedLogin("AUTH", "reader", "id=2");
        assertThat(log.newest(10)).singleElement().satisfies(e -> {
            assertThat(e.count()).isEqualTo(2);
            assertThat(e.clientInfo()).isEqualTo("id=2");
            assertThat(e.createdMillis()).isEqualTo(1_000_000);
        });

        now.addAndGet(AclLog.GROUPING_MILLIS + 1);
        log.failedLogin("AUTH", "reader", "id=3");
        assertThat(log.newest(10)).extracting(AclLog.Entry::entryId).containsExactly(1L, 0L);
    }

    @Test
    void aFloodOfFailedLoginsWritesABoundedNumberOfWarnLines() {
        try (RespChannel resp = new RespChannel(config())) {
            StringBuilder flood = new StringBuilder();
            for (int i = 0; i < 10_000; i++) flood.append(RespChannel.encode("AUTH", "reader", "guess" + i));
            resp.send(flood.toString());
            resp.command("AUTH", "ops", "o-pass");

            long lines = logged.list.stream()
                    .filter(e -> e.getLevel() == Level.WARN)
                    .filter(e -> e.getFormattedMessage().contains("failed login"))
                    .count();
            assertThat(lines).isBetween(1L, 2L); // one per 10 s interval
            assertThat(logged.list.get(0).getFormattedMessage())
                    .contains("failed login from client")
                    .contains("as user 'reader'");
            assertThat(resp.command("INFO", "stats"))
                    .contains("\r\nacl_access_denied_auth:10000\r\n")
                    .contains("\r\nkvs_security_warn_events:10000\r\n");
            assertThat(resp.command("ACL", "LOG")).startsWith("*1\r\n*20\r\n$5\r\ncount\r\n:10000\r\n");
        }
    }
}
