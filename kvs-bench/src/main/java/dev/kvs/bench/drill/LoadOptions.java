package dev.kvs.bench.drill;

import dev.kvs.client.ReplicationMode;
import dev.kvs.server.config.ByteSize;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The load options {@code kvs drill}, {@code kvs drill load} and {@code kvs demo} share, with their converters. */
final class LoadOptions {
    /** Most bytes per value: the server's default longest bulk string. */
    static final long MAX_VALUE_SIZE = 64L << 20;

    @Option(
            names = "--clients",
            paramLabel = "N",
            description = "Clients writing at once, one connection each (default: ${DEFAULT-VALUE})")
    int clients = 4;

    @Option(
            names = "--value-size",
            paramLabel = "SIZE",
            converter = SizeConverter.class,
            description = "Bytes per value, like 1KiB, 64KiB, 1MiB (default: 1KiB)")
    long valueSize = 1024;

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            converter = DurationConverter.class,
            description = "How long to write, like 10s, 500ms, 2m (default: 10s)")
    Duration duration = Duration.ofSeconds(10);

    @Option(
            names = "--pipeline",
            paramLabel = "N",
            description = "Writes in flight per client (default: ${DEFAULT-VALUE})")
    int pipeline = 16;

    /** Checks the values picocli cannot; returns an error message or null. */
    String problem() {
        if (clients < 1 || clients > 1024) return "--clients is not in 1..1024: " + clients;
        if (pipeline < 1 || pipeline > 10_000) return "--pipeline is not in 1..10000: " + pipeline;
        return null;
    }

    DrillRun.LoadShape shape() {
        return new DrillRun.LoadShape(clients, (int) valueSize, duration, pipeline);
    }

    /** Modes by name; {@code all} is every mode, strongest first. */
    static List<ReplicationMode> modes(String text) {
        List<ReplicationMode> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.equals("all")) {
                out.addAll(List.of(
                        ReplicationMode.SYNC,
                        ReplicationMode.ID_FIRST,
                        ReplicationMode.ID_FIRST_AFTER_REPLY,
                        ReplicationMode.ASYNC));
            } else {
                out.add(mode(p));
            }
        }
        return out.stream().distinct().toList();
    }

    /** One mode by name (not {@code default}: a drill must know what it measures). */
    static ReplicationMode mode(String text) {
        try {
            ReplicationMode m = ReplicationMode.parse(text);
            if (m != ReplicationMode.SERVER_DEFAULT) return m;
        } catch (IllegalArgumentException e) {
            // reported below with the drill's own list
        }
        throw new IllegalArgumentException("mode is not sync, id-first, id-first-after-reply or async: " + text);
    }

    /** A byte size in 1..64MiB. */
    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long bytes;
            try {
                bytes = ByteSize.parse(value).bytes();
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            if (bytes < 1 || bytes > MAX_VALUE_SIZE) {
                throw new TypeConversionException("size is not in 1B..64MiB: " + value);
            }
            return bytes;
        }
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1.5s}; a bare number is seconds. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String t = value.trim().toLowerCase(Locale.ROOT);
            int end = 0;
            while (end < t.length() && (Character.isDigit(t.charAt(end)) || t.charAt(end) == '.')) end++;
            long unitMillis = switch (t.substring(end).trim()) {
                case "", "s" -> 1000L;
                case "ms" -> 1L;
                case "m", "min" -> 60_000L;
                default -> -1L;
            };
            try {
                if (end == 0 || unitMillis < 0) throw new NumberFormatException();
                long ms = new BigDecimal(t.substring(0, end))
                        .multiply(BigDecimal.valueOf(unitMillis))
                        .longValue();
                if (ms < 100 || ms > 24 * 3600_000L) {
                    throw new TypeConversionException("duration is not in 100ms..24h: " + value);
                }
                return Duration.ofMillis(ms);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("not a duration (e.g. 10s, 500ms, 2m): " + value);
            }
        }
    }

    /** The modes a drill runs, in order. */
    record ModeList(List<ReplicationMode> modes) {
        ModeList {
            modes = List.copyOf(modes);
        }
    }

    /** A comma-separated list of modes, or {@code all}. */
    static final class ModesConverter implements ITypeConverter<ModeList> {
        @Override
        public ModeList convert(String value) {
            try {
                return new ModeList(modes(value));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage() + " (or all)");
            }
        }
    }

    /** One mode. */
    static final class ModeConverter implements ITypeConverter<ReplicationMode> {
        @Override
        public ReplicationMode convert(String value) {
            try {
                return mode(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A disaster name. */
    static final class DisasterConverter implements ITypeConverter<Disaster> {
        @Override
        public Disaster convert(String value) {
            try {
                return Disaster.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
