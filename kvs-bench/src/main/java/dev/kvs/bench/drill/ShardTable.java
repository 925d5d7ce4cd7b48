package dev.kvs.bench.drill;

import java.util.Locale;

/** The per-shard table of a sharded drill ({@link ShardDrill.Result}), as {@code kvs drill --shards} prints it. */
final class ShardTable {
    private ShardTable() {}

    static String render(ShardDrill.Result r) {
        StringBuilder b = new StringBuilder();
        LoadResult l = r.load();
        b.append(String.format(
                Locale.ROOT,
                "%s, %s on %s at %.1f s%s: %,d writes acknowledged in %.1f s (%,.0f w/s over all shards), %,d failed%n",
                r.mode(),
                r.disaster(),
                r.struck(),
                r.disasterAtSeconds(),
                r.healAtSeconds() == null ? "" : String.format(Locale.ROOT, ", healed at %.1f s", r.healAtSeconds()),
                l.acked(),
                l.elapsedSeconds(),
                l.writesPerSecond(),
                l.failed()));
        b.append(String.format(
                Locale.ROOT,
                "%-8s %9s %9s %7s %6s %10s %6s %-21s %11s %11s %11s %9s %-11s %9s %9s%n",
                "shard",
                "acked",
                "complete",
                "fenced",
                "lost",
                "unreadable",
                "epoch",
                "primary",
                "gap ms",
                "strike→new",
                "strike→prom",
                "heal→ack",
                "old primary",
                "overlap",
                "ambig ms"));
        for (ShardDrill.ShardLine s : r.lines()) {
            Classification c = s.outcome();
            b.append(String.format(
                    Locale.ROOT,
                    "%-8s %,9d %,9d %,7d %,6d %,10d %6s %-21s %11s %11s %11s %9s %-11s %9s %9.1f%n",
                    s.shard(),
                    c.acked(),
                    c.complete(),
                    c.errorDetect(),
                    c.dataLoss(),
                    c.unreadable(),
                    s.epochBefore() + "→" + s.epochAfter(),
                    s.primaryBefore().equals(s.primaryAfter())
                            ? s.primaryBefore()
                            : s.primaryBefore() + "→" + s.primaryAfter(),
                    ms(s.gapMs()),
                    ms(s.disasterToNewMs()),
                    ms(s.disasterToPromotedMs()),
                    ms(s.healToAckMs()),
                    s.oldPrimaryRole(),
                    s.overlap().definite() == 0
                            ? "none"
                            : s.overlap().definite() + " " + s.overlap().pairs(),
                    s.overlap().ambiguousMs()));
        }
        return b.toString();
    }

    private static String ms(Double d) {
        return d == null ? "-" : String.format(Locale.ROOT, "%.0f", d);
    }
}
