package dev.kvs.core.internal;

import java.util.random.RandomGenerator;

/**
 * How {@link MemberPages#random} and {@link MemberPages#pop} draw a member: a page picked by a random
 * hash ({@link PageAddress#pageOf}), so each page with the share of the hash space it covers ({@code
 * 2^-depth}), which is the share of the members it holds on average; then the page's {@code k}
 * members are taken with probability {@code k / cap}, {@code cap} being {@link #spread} times the
 * members that share predicts, and one of them picked. Every member of a page of at most {@code cap}
 * members is then drawn with the same probability, whatever the page's depth; a member of a fuller page
 * {@code k / cap} times as often.
 *
 * <p>A draw of a page uniformly by number (the draw before this one) must set its cap above the fullest
 * pages of the shallowest depth, which hold twice what the deepest hold: four times the mean took about
 * four page lookups per member drawn. Weighted by share, pages of every depth have the same expected
 * fill, so the cap only covers the spread of one page's count around it, and a draw takes 1.5 to 2
 * lookups when pages hold tens of members (SPOP of redis-benchmark's 100,000-member set).
 *
 * <p>Immutable; one per draw, made from the structure's header.
 */
final class PageDraw {
    /** The most {@link #spread} is: as the uniform draw's four times the mean, for a structure of few members a page. */
    static final double MAX_SPREAD = 4;

    private final int pageCount;
    /** {@code spread * count}: the cap of a page that held all the hash space. */
    private final double capOfAll;

    PageDraw(MembersHeader h) {
        pageCount = h.pageCount();
        // one page holds every member: taking one of them at once is uniform
        capOfAll = pageCount == 1 ? 0 : spread(h.count(), pageCount) * h.count();
    }

    /**
     * The cap over a page's expected members, the same for every page (so the draw stays uniform): four
     * standard deviations of a Poisson count above the expectation {@code e} of the deepest pages, {@code
     * 1 + 4 / sqrt(e)}, at most {@link #MAX_SPREAD}.
     */
    static double spread(long count, int pageCount) {
        double deepest = Math.scalb((double) count, -(PageAddress.level(pageCount) + 1));
        return Math.min(MAX_SPREAD, 1 + 4 / Math.sqrt(deepest));
    }

    /** The page a try looks at. */
    int page(RandomGenerator random) {
        return PageAddress.pageOf(random.nextLong(), pageCount);
    }

    /** Whether a try at page {@code p}, found holding {@code k} members, takes one of them. */
    boolean takes(int p, int k, RandomGenerator random) {
        if (k == 0) return false;
        double cap = Math.scalb(capOfAll, -PageAddress.depth(p, pageCount));
        return k >= cap || random.nextDouble() * cap < k;
    }
}
