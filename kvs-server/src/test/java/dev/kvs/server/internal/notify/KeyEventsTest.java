package dev.kvs.server.internal.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyEventsTest {
    private final List<String> published = new ArrayList<>();
    private final EventSink sink = (channel, message) -> published.add(
            new String(channel, StandardCharsets.UTF_8) + " " + new String(message, StandardCharsets.UTF_8));

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void offByDefaultPublishesNothing() {
        KeyEvents events = new KeyEvents(sink, EventClasses.parse(""));
        events.emit(EventClasses.STRING, "set", b("k"));
        events.emit(EventClasses.EXPIRED, "expired", b("k"));
        assertThat(published).isEmpty();
    }

    @Test
    void keyspaceChannelCarriesTheEventAndKeyeventChannelTheKeyInThatOrder() {
        KeyEvents events = new KeyEvents(sink, EventClasses.parse("KEA"));
        events.emit(EventClasses.HASH, "hset", b("user:1"));
        assertThat(published).containsExactly("__keyspace@0__:user:1 hset", "__keyevent@0__:hset user:1");
    }

    @Test
    void onlyTheChannelsAndClassesSetArePublished() {
        KeyEvents events = new KeyEvents(sink, EventClasses.parse("Ex"));
        events.emit(EventClasses.STRING, "set", b("k"));
        events.emit(EventClasses.EXPIRED, "expired", b("k"));
        assertThat(published).containsExactly("__keyevent@0__:expired k");
        assertThat(events.on(EventClasses.EXPIRED)).isTrue();
        assertThat(events.on(EventClasses.GENERIC)).isFalse();
    }

    @Test
    void aClassWithoutKOrEPublishesNothing() {
        KeyEvents events = new KeyEvents(sink, EventClasses.parse("A"));
        events.emit(EventClasses.GENERIC, "del", b("k"));
        assertThat(published).isEmpty();
    }

    @Test
    void configSetTakesEffectForTheNextEvent() {
        KeyEvents events = new KeyEvents(sink, 0);
        events.emit(EventClasses.GENERIC, "del", b("a"));
        events.classes(EventClasses.parse("Kg"));
        events.emit(EventClasses.GENERIC, "del", b("b"));
        assertThat(published).containsExactly("__keyspace@0__:b del");
        assertThat(EventClasses.render(events.classes())).isEqualTo("gK");
    }

    @Test
    void keysAreBinarySafe() {
        List<byte[]> raw = new ArrayList<>();
        KeyEvents events = new KeyEvents((channel, message) -> raw.add(message), EventClasses.parse("Eg"));
        byte[] key = {0, (byte) 0xff, '\r', '\n'};
        events.emit(EventClasses.GENERIC, "del", key);
        assertThat(raw).hasSize(1);
        assertThat(raw.get(0)).isEqualTo(key);
    }

    @Test
    void refusesAnUnparsableSettingAndNoSink() {
        assertThatThrownBy(() -> new KeyEvents(sink, -1)).hasMessage("classes < 0: -1");
        assertThatThrownBy(() -> new KeyEvents(null, 0)).hasMessage("sink == null (use EventSink.NONE)");
    }
}
