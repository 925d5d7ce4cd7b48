package dev.kvs.server.internal.resp;

/**
 * Redis's glob-style pattern (KEYS, SCAN MATCH), matched on bytes, case-sensitive, with Redis's
 * semantics (its {@code stringmatchlen}): {@code *} any run of bytes, {@code ?} one byte, {@code
 * [abc]}, {@code [^abc]}, {@code [a-z]} (a reversed range {@code [z-a]} works too) one byte of a set,
 * {@code \x} the byte {@code x} itself (inside brackets too). An unclosed {@code [} matches up to the
 * pattern's end. Bytes compare as signed, as C's {@code char} does on x86, so ranges over bytes above
 * 0x7F behave as in Redis.
 *
 * <p>A star followed by a sub-pattern that cannot match anywhere in the rest of the subject stops the
 * search at once (Redis's {@code skipLongerMatches}), and nesting is capped at 1000 stars (no match
 * beyond), so an abusive pattern such as {@code a*a*a*...b} costs polynomial, not exponential, time.
 * Immutable and thread-safe.
 */
final class GlobPattern {
    private static final int MAX_NESTING = 1000;

    private final byte[] pattern;
    /** True for {@code *}: every subject matches, the empty one too (Redis's KEYS and SCAN skip matching). */
    private final boolean matchesAll;

    GlobPattern(byte[] pattern) {
        this.pattern = pattern;
        this.matchesAll = pattern.length == 1 && pattern[0] == '*'; // as KEYS and SCAN test it
    }

    /** True if the pattern is {@code *}. */
    boolean matchesAll() {
        return matchesAll;
    }

    boolean matches(byte[] subject) {
        return matchesAll || match(0, subject, 0, new boolean[1], 0);
    }

    private boolean match(int p, byte[] s, int i, boolean[] skipLonger, int nesting) {
        if (nesting > MAX_NESTING) return false;
        byte[] pat = pattern;
        int pEnd = pat.length;
        int sEnd = s.length;
        while (p < pEnd && i < sEnd) {
            switch (pat[p]) {
                case '*' -> {
                    while (p + 1 < pEnd && pat[p + 1] == '*') p++;
                    if (p + 1 == pEnd) return true;
                    while (i < sEnd) {
                        if (match(p + 1, s, i, skipLonger, nesting + 1)) return true;
                        if (skipLonger[0]) return false;
                        i++;
                    }
                    // the rest of the pattern matches nowhere in the rest of the subject: an earlier
                    // star taking more bytes cannot help either
                    skipLonger[0] = true;
                    return false;
                }
                case '?' -> i++;
                case '[' -> {
                    p++;
                    boolean not = p < pEnd && pat[p] == '^';
                    if (not) p++;
                    boolean match = false;
                    byte c = s[i];
                    while (true) {
                        if (p >= pEnd) {
                            p--; // unclosed: the set ends with the pattern
                            break;
                        } else if (pat[p] == '\\' && pEnd - p >= 2) {
                            p++;
                            if (pat[p] == c) match = true;
                        } else if (pat[p] == ']') {
                            break;
                        } else if (pEnd - p >= 3 && pat[p + 1] == '-') {
                            int start = pat[p];
                            int end = pat[p + 2];
                            if (start > end) {
                                int t = start;
                                start = end;
                                end = t;
                            }
                            p += 2;
                            if (c >= start && c <= end) match = true;
                        } else if (pat[p] == c) {
                            match = true;
                        }
                        p++;
                    }
                    if (not) match = !match;
                    if (!match) return false;
                    i++;
                }
                default -> {
                    if (pat[p] == '\\' && pEnd - p >= 2) p++;
                    if (pat[p] != s[i]) return false;
                    i++;
                }
            }
            p++;
            if (i == sEnd) {
                while (p < pEnd && pat[p] == '*') p++;
                break;
            }
        }
        return p == pEnd && i == sEnd;
    }
}
