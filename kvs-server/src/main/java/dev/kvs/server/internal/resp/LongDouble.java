package dev.kvs.server.internal.resp;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A number as Redis's {@code INCRBYFLOAT} and {@code HINCRBYFLOAT} hold it: a C {@code long double},
 * which on x86-64 Linux (where Redis runs) is the x87 80-bit format, with a 64-bit significand, not a
 * Java {@code double}'s 53 bits. Redis reads both operands with {@code strtold}, adds them in that
 * precision and prints the sum with {@code %.17Lf} (17 decimals, trailing zeros dropped), so {@code 0.1}
 * plus {@code 0.2} answers {@code 0.3} (a {@code double} gives {@code 0.30000000000000004}), {@code 1e308 +
 * 1e308} is finite, and integers up to 2^64 stay exact. This class does the same arithmetic exactly
 * with {@link BigDecimal}: each value is held as the exact value of a 64-bit-significand binary number,
 * rounded half to even as the x87 unit rounds (subnormals, below about 3.4e-4932, to a multiple of
 * 2^-16445). Immutable.
 */
final class LongDouble {
    /** What {@code strtold} reads, less hex floats; whitespace is refused, as in Redis. */
    private static final Pattern FLOAT =
            Pattern.compile("[+-]?((\\d+\\.?\\d*)|(\\.\\d+))([eE][+-]?\\d+)?|[+-]?(?i:inf|infinity)");

    private static final int SIGNIFICAND_BITS = 64;
    /** The largest binary exponent of a finite x87 long double (its largest value is just below 2^16384). */
    private static final int MAX_EXPONENT = 16383;
    /** The smallest binary exponent of a normal x87 long double. */
    private static final int MIN_EXPONENT = -16382;

    /** Minus the binary exponent of the smallest subnormal x87 long double, 2^-16445. */
    private static final int SMALLEST_SUBNORMAL_EXPONENT = 16445;

    private static final BigDecimal HALF = new BigDecimal("0.5");

    static final LongDouble ZERO = new LongDouble(BigDecimal.ZERO, 0);

    /** The exact value; null for an infinity. */
    private final BigDecimal exact;
    /** 1 or -1 for an infinity, else 0. */
    private final int infinity;

    private LongDouble(BigDecimal exact, int infinity) {
        this.exact = exact;
        this.infinity = infinity;
    }

    /**
     * The long double {@code text} reads as (Redis's {@code string2ld}): {@code inf} and {@code infinity}
     * read as infinities; null if it is not a float, or it is out of the long double's range.
     */
    static LongDouble parse(byte[] text) {
        if (text.length == 0 || text.length > 5000) return null;
        String s = new String(text, StandardCharsets.ISO_8859_1);
        if (!FLOAT.matcher(s).matches()) return null;
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.endsWith("inf") || lower.endsWith("infinity")) {
            return new LongDouble(null, lower.startsWith("-") ? -1 : 1);
        }
        BigDecimal value;
        try {
            value = new BigDecimal(s);
        } catch (NumberFormatException e) {
            return null; // an exponent beyond an int: far out of range
        }
        LongDouble d = rounded(value);
        // strtold sets ERANGE beyond the range, and on underflow to zero: string2ld refuses both
        if (!d.isFinite() || (d.exact.signum() == 0 && value.signum() != 0)) return null;
        return d;
    }

    /** The long double nearest to the exact sum of this and {@code other}, as the x87 unit adds them. */
    LongDouble plus(LongDouble other) {
        if (!isFinite() || !other.isFinite()) {
            // inf + -inf is NaN: neither finite, so both are refused by the callers alike
            return new LongDouble(null, infinity != 0 ? infinity : other.infinity);
        }
        return rounded(exact.add(other.exact));
    }

    /** False for an infinity (and for what Redis would call NaN). */
    boolean isFinite() {
        return infinity == 0;
    }

    /**
     * As Redis prints it ({@code ld2string} in {@code LD_STR_HUMAN} mode): {@code %.17Lf}, then trailing
     * zeros and a trailing point removed, and {@code -0} as {@code 0}.
     *
     * @throws IllegalStateException for an infinity, which Redis never stores
     */
    String format() {
        if (!isFinite()) throw new IllegalStateException("infinity");
        String s = exact.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        while (s.charAt(end - 1) == '0') end--;
        if (s.charAt(end - 1) == '.') end--;
        s = s.substring(0, end);
        return s.equals("-0") ? "0" : s;
    }

    @Override
    public String toString() {
        return isFinite() ? format() : (infinity > 0 ? "inf" : "-inf");
    }

    /** {@code x} rounded half to even to a 64-bit significand; an infinity past the largest exponent. */
    private static LongDouble rounded(BigDecimal x) {
        if (x.signum() == 0) return ZERO;
        BigDecimal a = x.abs();
        // scale a by 2^k into [2^63, 2^64): start from an estimate of its binary exponent, then correct it
        long estimate = a.unscaledValue().bitLength() - (long) Math.ceil(a.scale() * 3.321928094887362);
        long k = SIGNIFICAND_BITS - 1 - estimate;
        BigDecimal scaled;
        BigInteger q;
        while (true) {
            scaled = timesPowerOfTwo(a, k);
            q = scaled.toBigInteger();
            int bits = q.bitLength();
            if (bits > SIGNIFICAND_BITS) k -= bits - SIGNIFICAND_BITS;
            else if (bits < SIGNIFICAND_BITS) k += SIGNIFICAND_BITS - Math.max(bits, 1);
            else break;
        }
        int half = scaled.subtract(new BigDecimal(q)).compareTo(HALF);
        if (half > 0 || (half == 0 && q.testBit(0))) {
            q = q.add(BigInteger.ONE);
            if (q.bitLength() > SIGNIFICAND_BITS) {
                q = q.shiftRight(1); // 2^64 becomes 2^63: exact
                k--;
            }
        }
        long exponent = SIGNIFICAND_BITS - 1 - k;
        if (exponent > MAX_EXPONENT) return new LongDouble(null, x.signum());
        if (exponent < MIN_EXPONENT) {
            // a subnormal: fewer significant bits, a multiple of the smallest one, 2^-16445
            k = SMALLEST_SUBNORMAL_EXPONENT;
            scaled = timesPowerOfTwo(a, k);
            q = scaled.toBigInteger();
            half = scaled.subtract(new BigDecimal(q)).compareTo(HALF);
            if (half > 0 || (half == 0 && q.testBit(0))) q = q.add(BigInteger.ONE);
            if (q.signum() == 0) return ZERO;
        }
        BigDecimal value = timesPowerOfTwo(new BigDecimal(q), -k);
        return new LongDouble(x.signum() < 0 ? value.negate() : value, 0);
    }

    /** {@code a * 2^k}, exactly. */
    private static BigDecimal timesPowerOfTwo(BigDecimal a, long k) {
        if (k >= 0) return a.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(Math.toIntExact(k))));
        int m = Math.toIntExact(-k);
        // a / 2^m = a * 5^m / 10^m
        return a.multiply(new BigDecimal(BigInteger.valueOf(5).pow(m))).movePointLeft(m);
    }
}
