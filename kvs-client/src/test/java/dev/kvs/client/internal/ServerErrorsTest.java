package dev.kvs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.client.AuthenticationException;
import dev.kvs.client.BusyException;
import dev.kvs.client.DataLostException;
import dev.kvs.client.FencedException;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsTlsException;
import dev.kvs.client.NotReplicatedException;
import dev.kvs.client.StoreFullException;
import dev.kvs.client.UnfinishedKeyException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerErrorsTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void notPrimaryNamesThePrimarysClientAddress() {
        assertThat(ServerErrors.primaryNamed("NOTPRIMARY 10.0.0.5:6380 this node is a backup; write to the primary"))
                .isEqualTo(new Endpoint("10.0.0.5", 6380));
        assertThat(ServerErrors.primaryNamed("NOTPRIMARY [fd00::5]:6380 this node is a backup"))
                .isEqualTo(new Endpoint("fd00::5", 6380));
        assertThat(ServerErrors.primaryNamed("NOTPRIMARY - this node is a backup"))
                .isNull();
        assertThat(ServerErrors.primaryNamed("NOTPRIMARY")).isNull();
        assertThat(ServerErrors.primaryNamed("NOTPRIMARY this node is a backup"))
                .isNull();
        assertThat(ServerErrors.primaryNamed("BUSY 10.0.0.5:6380")).isNull();
    }

    @Test
    void firstWordIsTheKind() {
        assertThat(ServerErrors.kind("NOTPRIMARY 127.0.0.1:7381 this node is a backup"))
                .isEqualTo(ServerErrors.Kind.NOTPRIMARY);
        // a backup without a configured peer: the address is "-"
        assertThat(ServerErrors.kind("NOTPRIMARY - this node is a backup; write to the primary"))
                .isEqualTo(ServerErrors.Kind.NOTPRIMARY);
        assertThat(ServerErrors.kind("UNFINISHED k 1:5")).isEqualTo(ServerErrors.Kind.UNFINISHED);
        assertThat(ServerErrors.kind("LOST k 1:5")).isEqualTo(ServerErrors.Kind.LOST);
        assertThat(ServerErrors.kind("BUSY")).isEqualTo(ServerErrors.Kind.BUSY);
        assertThat(ServerErrors.kind("ERR syntax error")).isEqualTo(ServerErrors.Kind.OTHER);
        assertThat(ServerErrors.kind("NOTPRIMARYX y")).isEqualTo(ServerErrors.Kind.OTHER);
        assertThat(ServerErrors.kind("")).isEqualTo(ServerErrors.Kind.OTHER);
    }

    @Test
    void unfinishedCarriesTheRequestKeyAndTheTxId() {
        KvsClientException e = ServerErrors.toException("UNFINISHED k 1:5", List.of(b("k")));
        assertThat(e).isInstanceOf(UnfinishedKeyException.class).hasMessage("UNFINISHED k 1:5");
        UnfinishedKeyException u = (UnfinishedKeyException) e;
        assertThat(u.key()).isEqualTo(b("k"));
        assertThat(u.printableKey()).isEqualTo("k");
        assertThat(u.txId()).isEqualTo("1:5");
    }

    @Test
    void lostCarriesTheKeyAndTheTxId() {
        DataLostException e =
                (DataLostException) ServerErrors.toException("LOST user:42 3:1000", List.of(b("user:42")));
        assertThat(e.key()).isEqualTo(b("user:42"));
        assertThat(e.txId()).isEqualTo("3:1000");
    }

    @Test
    void multiKeyErrorNamesTheMatchingKey() {
        List<byte[]> keys = List.of(b("a"), b("with space"), b("c"));
        UnfinishedKeyException e = (UnfinishedKeyException) ServerErrors.toException("UNFINISHED with space 2:7", keys);
        assertThat(e.key()).isEqualTo(b("with space"));
        assertThat(e.txId()).isEqualTo("2:7");
        DataLostException unknown = (DataLostException) ServerErrors.toException("LOST zz 2:8", keys);
        assertThat(unknown.key()).isEqualTo(b("zz"));
    }

    @Test
    void binaryKeyIsMatchedByItsPrintableForm() {
        byte[] key = {0, (byte) 0xff, 'k'};
        UnfinishedKeyException e =
                (UnfinishedKeyException) ServerErrors.toException("UNFINISHED \\x00\\xffk 1:2", List.of(key, b("x")));
        assertThat(e.key()).isEqualTo(key);
        assertThat(e.printableKey()).isEqualTo("\\x00\\xffk");
    }

    @Test
    void missingTxIdIsAQuestionMark() {
        UnfinishedKeyException e = (UnfinishedKeyException) ServerErrors.toException("UNFINISHED k", List.of(b("k")));
        assertThat(e.key()).isEqualTo(b("k"));
        assertThat(e.txId()).isEqualTo("?");
    }

    @Test
    void everyKindMapsToItsException() {
        assertThat(ServerErrors.toException("FENCED 7", List.of()))
                .isInstanceOfSatisfying(
                        FencedException.class, f -> assertThat(f.epoch()).isEqualTo(7));
        assertThat(ServerErrors.toException("FENCED", List.of()))
                .isInstanceOfSatisfying(
                        FencedException.class, f -> assertThat(f.epoch()).isEqualTo(-1));
        assertThat(ServerErrors.toException("BUSY value bound full", List.of())).isInstanceOf(BusyException.class);
        assertThat(ServerErrors.toException("NOREPLICA not acked in 5000 ms", List.of()))
                .isInstanceOf(NotReplicatedException.class);
        assertThat(ServerErrors.toException("OOM store is full", List.of())).isInstanceOf(StoreFullException.class);
        assertThat(ServerErrors.toException("NOAUTH Authentication required.", List.of()))
                .isInstanceOf(AuthenticationException.class);
        assertThat(ServerErrors.toException("WRONGPASS invalid username-password pair", List.of()))
                .isInstanceOf(AuthenticationException.class);
        assertThat(ServerErrors.toException("NOPERM this user has no permissions to run the 'set' command", List.of()))
                .isInstanceOf(dev.kvs.client.NoPermissionException.class)
                .hasMessageContaining("'set'");
        assertThat(ServerErrors.toException("TLSREQUIRED this port accepts TLS connections only", List.of()))
                .isInstanceOf(KvsTlsException.class)
                .hasMessageStartingWith("TLSREQUIRED this port accepts TLS connections only");
        assertThat(ServerErrors.toException("ERR unknown command 'X'", List.of()))
                .isExactlyInstanceOf(KvsClientException.class)
                .hasMessage("ERR unknown command 'X'");
    }
}
