package dev.kvs.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.KvsNode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.data.redis.RedisIndexedSessionRepository;
import org.springframework.session.data.redis.RedisIndexedSessionRepository.RedisSession;
import org.springframework.session.data.redis.config.ConfigureNotifyKeyspaceEventsAction;
import org.springframework.session.events.AbstractSessionEvent;
import org.springframework.session.events.SessionExpiredEvent;
import redis.clients.jedis.Jedis;

/**
 * Spring Session's {@link RedisIndexedSessionRepository} (issue #37) on Spring Data Redis and Lettuce,
 * assembled as Spring Session's {@code RedisIndexedHttpSessionConfiguration} does, without a Spring
 * context: a session saved (a hash, its expiry key, a set of the minute's expirations, a principal
 * index), found by id and by principal, expired by kvs, and deleted; and, with the keyspace notifications
 * Spring Session turns on ({@code CONFIG SET notify-keyspace-events}) and a listener container as its
 * configuration sets up, the session's created and expired events delivered. Through a failover too: a
 * session saved on the primary is found and saved again on the promoted backup.
 */
class SpringSessionTest {
    private static KvsNode kvs;

    @BeforeAll
    static void start() {
        kvs = KvsNodes.lone();
    }

    @AfterAll
    static void stop() {
        kvs.close();
    }

    /** Runs {@code body} with a started repository on {@code node}, stopped after. */
    static void withRepository(KvsNode node, Consumer<RedisIndexedSessionRepository> body) {
        LettuceConnectionFactory factory =
                new LettuceConnectionFactory(new RedisStandaloneConfiguration(TwoDc.HOST, node.port()));
        factory.afterPropertiesSet();
        factory.start();
        try {
            RedisTemplate<String, Object> template = new RedisTemplate<>();
            template.setConnectionFactory(factory);
            template.setKeySerializer(RedisSerializer.string());
            template.setHashKeySerializer(RedisSerializer.string());
            template.afterPropertiesSet();
            RedisIndexedSessionRepository repository = new RedisIndexedSessionRepository(template);
            repository.afterPropertiesSet();
            try {
                body.accept(repository);
            } finally {
                repository.destroy();
            }
        } finally {
            factory.destroy();
        }
    }

    @Test
    void aSessionIsSavedFoundByIdAndPrincipalAndDeleted() {
        withRepository(kvs, repository -> {
            RedisSession session = repository.createSession();
            session.setAttribute("cart", "3 items");
            session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice");
            repository.save(session);

            RedisSession found = repository.findById(session.getId());
            assertThat(found).isNotNull();
            assertThat(found.<String>getAttribute("cart")).isEqualTo("3 items");
            assertThat(found.getMaxInactiveInterval()).isEqualTo(Duration.ofMinutes(30));
            found.setAttribute("cart", "4 items");
            repository.save(found);
            assertThat(repository.findById(session.getId()).<String>getAttribute("cart"))
                    .isEqualTo("4 items");

            Map<String, RedisSession> alices = repository.findByIndexNameAndIndexValue(
                    FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice");
            assertThat(alices).containsOnlyKeys(session.getId());

            repository.deleteById(session.getId());
            assertThat(repository.findById(session.getId())).isNull();
            assertThat(repository.findByIndexNameAndIndexValue(
                            FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice"))
                    .isEmpty();
        });
    }

    @Test
    void aSessionSavedOnThePrimaryIsFoundAndSavedOnThePromotedBackup() throws Exception {
        try (TwoDc dc = KvsNodes.pair()) {
            String[] id = new String[1];
            withRepository(dc.primary(), repository -> {
                RedisSession session = repository.createSession();
                session.setAttribute("cart", "2 items");
                repository.save(session);
                id[0] = session.getId();
            });
            try (Jedis primary = new Jedis(TwoDc.HOST, dc.primary().port())) {
                primary.set("spring:last", "1");
            }
            KvsNodes.awaitOnBackup(dc, "spring:last", "1");
            KvsNodes.failOver(dc);
            withRepository(dc.backup(), repository -> {
                RedisSession found = repository.findById(id[0]);
                assertThat(found).isNotNull();
                assertThat(found.<String>getAttribute("cart")).isEqualTo("2 items");
                found.setAttribute("cart", "3 items");
                repository.save(found);
                assertThat(repository.findById(id[0]).<String>getAttribute("cart"))
                        .isEqualTo("3 items");
            });
        }
    }

    @Test
    void theSessionExpiredEventIsDeliveredThroughKeyspaceNotifications() throws Exception {
        List<Object> events = new CopyOnWriteArrayList<>();
        withRepository(kvs, repository -> {
            // what RedisIndexedHttpSessionConfiguration does at start: KEA plus Egx, then listen
            RedisConnectionFactory factory =
                    ((RedisTemplate<?, ?>) repository.getSessionRedisOperations()).getConnectionFactory();
            try (RedisConnection connection = factory.getConnection()) {
                new ConfigureNotifyKeyspaceEventsAction().configure(connection);
            }
            repository.setApplicationEventPublisher(events::add);
            RedisMessageListenerContainer container = new RedisMessageListenerContainer();
            container.setConnectionFactory(factory);
            container.addMessageListener(
                    repository,
                    List.of(
                            new ChannelTopic(repository.getSessionDeletedChannel()),
                            new ChannelTopic(repository.getSessionExpiredChannel()),
                            new PatternTopic(repository.getSessionCreatedChannelPrefix() + "*")));
            container.afterPropertiesSet();
            container.start();
            try {
                RedisSession session = repository.createSession();
                session.setMaxInactiveInterval(Duration.ofSeconds(1));
                repository.save(session);
                await("the session's created and expired events")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> events.stream().anyMatch(SessionExpiredEvent.class::isInstance));
                assertThat(events)
                        .filteredOn(e -> e instanceof AbstractSessionEvent a
                                && a.getSessionId().equals(session.getId()))
                        .extracting(e -> e.getClass().getSimpleName())
                        .containsExactly("SessionCreatedEvent", "SessionExpiredEvent");
            } finally {
                container.stop();
                try {
                    container.destroy();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        });
        try (Jedis jedis = new Jedis(TwoDc.HOST, kvs.port())) {
            assertThat(jedis.configGet("notify-keyspace-events"))
                    .as("set by Spring Session")
                    .containsEntry("notify-keyspace-events", "gxE"); // Egx, rendered as redis-server 7.0.15 does
        }
    }

    @Test
    void aSessionPastItsMaxInactiveIntervalIsGoneAndKvsExpiresItsKey() {
        withRepository(kvs, repository -> {
            RedisSession session = repository.createSession();
            session.setMaxInactiveInterval(Duration.ofSeconds(1));
            session.setAttribute("cart", "1 item");
            repository.save(session);
            String expiresKey = "spring:session:sessions:expires:" + session.getId();
            try (Jedis jedis = new Jedis(TwoDc.HOST, kvs.port())) {
                assertThat(jedis.pttl(expiresKey)).isBetween(1L, 1_000L);
                assertThat(jedis.ttl("spring:session:sessions:" + session.getId()))
                        .as("the session's hash outlives it by 5 minutes, for the expired event")
                        .isBetween(300L, 301L);
                assertThat(repository.findById(session.getId())).isNotNull();
                await("the session expires")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> repository.findById(session.getId()) == null);
                await("kvs expires the session's expiry key")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> !jedis.exists(expiresKey));
            }
        });
    }
}
