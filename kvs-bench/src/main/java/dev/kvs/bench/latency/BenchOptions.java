package dev.kvs.bench.latency;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.ByteSize;
import dev.kvs.wan.WanLink;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The converters of the {@code kvs bench} commands' options. */
final class BenchOptions {
    /** Most bytes per value: the server's default longest bulk string. */
    static final long MAX_VALUE_SIZE = 64L << 20;

    private BenchOptions() {}

    /** A byte size: {@code 100}, {@code 100B}, {@code 100kB}, {@code 1MiB}, {@code 10MiB}. */
    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return ByteSize.parse(value).bytes();
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Value sizes separated by commas, each in 1B..64MiB: {@code 100B,100kB,1MiB,10MiB}. */
    static final class SizesConverter implements ITypeConverter<SizeList> {
        @Override
        public SizeList convert(String value) {
            List<Long> sizes = new ArrayList<>();
            for (String part : value.split(",")) {
                long bytes;
                try {
                    bytes = ByteSize.parse(part.trim()).bytes();
                } catch (IllegalArgumentException e) {
                    throw new TypeConversionException(e.getMessage());
                }
                if (bytes < 1 || bytes > MAX_VALUE_SIZE) {
                    throw new TypeConversionException("size is not in 1B..64MiB: " + part.trim());
                }
                sizes.add(bytes);
            }
            return new SizeList(sizes);
        }
    }

    /** Value sizes, in the order given. */
    record SizeList(List<Long> sizes) {
        SizeList {
            sizes = List.copyOf(sizes);
        }
    }

    /** {@code fifo} or {@code fair}. */
    static final class QueueingConverter implements ITypeConverter<WanLink.Queueing> {
        @Override
        public WanLink.Queueing convert(String value) {
            try {
                return WanLink.Queueing.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("queueing is not fifo or fair: " + value);
            }
        }
    }

    /** {@code on} or {@code off}, as the primary's {@code --flow-control} takes it. */
    static final class OnOffConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            if (!v.equals("on") && !v.equals("off")) throw new TypeConversionException("not on or off: " + value);
            return v;
        }
    }

    /** A replication mode's label: {@code sync}, {@code id-first}, {@code id-first-after-reply}, {@code async}. */
    static final class ModeConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                return ReplicationMode.parse(value.trim()).label();
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A length of time in seconds: {@code 90}, {@code 90s}, {@code 10m}, {@code 1h}, {@code 2.5m}. */
    static final class SecondsConverter implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            double unit = 1;
            if (v.endsWith("h")) unit = 3600;
            else if (v.endsWith("m")) unit = 60;
            if (v.endsWith("h") || v.endsWith("m") || v.endsWith("s")) v = v.substring(0, v.length() - 1);
            try {
                double d = Double.parseDouble(v) * unit;
                if (!Double.isFinite(d)) throw new NumberFormatException();
                return d;
            } catch (NumberFormatException e) {
                throw new TypeConversionException("not a duration like 90s, 10m or 1h: " + value);
            }
        }
    }
}
