package dev.kvs.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** A member status read from JSON published by a node of another version. */
class MemberStatusTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WITHOUT_DC = "{\"node\":\"n\",\"shard\":\"s\",\"role\":\"backup\",\"epoch\":3,"
            + "\"streaming\":true,\"resyncing\":false,\"appliedTxId\":7,\"clientAddress\":\"h:1\","
            + "\"replicationAddress\":\"h:2\"";

    @Test
    void aStatusWithoutTheDatacenterReadsAsNone() throws Exception {
        MemberStatus s = JSON.readValue(WITHOUT_DC + "}", MemberStatus.class);
        assertThat(s.dc()).isEmpty();
        assertThat(s.canTakeOver(3)).isTrue();
    }

    @Test
    void theDatacenterRoundTripsAndAnUnknownFieldIsSkipped() throws Exception {
        MemberStatus s = new MemberStatus("n", "s", "backup", 3, true, false, 7, "h:1", "h:2", "east");
        assertThat(JSON.readValue(JSON.writeValueAsBytes(s), MemberStatus.class))
                .isEqualTo(s);
        assertThat(JSON.readValue(WITHOUT_DC + ",\"dc\":\"east\",\"later\":1}", MemberStatus.class))
                .isEqualTo(s);
    }
}
