package dev.kvs.bench.drill;

import java.util.List;

/**
 * How the acknowledged writes of one run fared on the new primary, the paper's three outcomes plus
 * the writes that could not be read at all.
 *
 * @param acked acknowledged writes checked
 * @param complete the new primary serves the acknowledged value
 * @param errorDetect the new primary fences the key ({@code -UNFINISHED} or {@code -LOST}): it knows
 *     the value is missing
 * @param dataLoss the new primary serves nothing or another value, and does not know: silent loss
 * @param unreadable reads that failed for another reason (no answer, connection refused); not
 *     classified
 * @param lossExamples a few keys lost silently, for the report
 */
record Classification(
        long acked, long complete, long errorDetect, long dataLoss, long unreadable, List<String> lossExamples) {
    Classification {
        lossExamples = List.copyOf(lossExamples);
    }

    /** The outcome of one acknowledged write. */
    enum Outcome {
        COMPLETE,
        ERROR_DETECT,
        DATA_LOSS,
        UNREADABLE
    }
}
