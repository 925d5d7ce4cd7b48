/**
 * {@link dev.kvs.bench.resp.RespConnection}: a plain RESP connection (no pooling, no retries) that the
 * latency benchmarks and the JMH set-ups speak to a node, or to Redis, with, so a benchmark sees exactly
 * what the server answered.
 */
package dev.kvs.bench.resp;
