/**
 * {@code ./kvs bench charts}: the paper's Fig. 3(a), 3(b) and 4 as PNG charts (XChart) from the JSON of
 * {@code ./kvs bench jmh} and {@code ./kvs drill}.
 */
package dev.kvs.bench.charts;
