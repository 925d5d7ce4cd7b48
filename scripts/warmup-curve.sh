#!/usr/bin/env bash
# How fast a fresh kvs node reaches its steady small-SET speed (issue 36: 90% within 5 s of the first
# request). Starts a fresh node (and, for comparison, a fresh redis-server), sends it one long
# `redis-benchmark -t set -d 100 -c 50 -P 16 -r 100000` run at once, and reads the throughput
# redis-benchmark prints every 250 ms. Steady = the median of the run's last 5 s; the time to steady is
# when the 1-s moving average first reaches 90% of it, counted from the first 250-ms window with any
# request in it.
#
#   scripts/warmup-curve.sh [KVS_JAR] [seconds]     (defaults: kvs-cli/target/kvs.jar, 20)
#
# Port: KVS_PORT (16398), REDIS_PORT (16399). SKIP_REDIS=1 runs kvs only. KVS_JAVA_OPTS: more JVM flags. KVS_ARGS: more
# `kvs server` flags (e.g. --warm-up 400000). Prints one line per server:
# "server steady_rps t90_s first_second_rps", then the raw series in $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=${1:-kvs-cli/target/kvs.jar} SECONDS_RUN=${2:-20}
OUT=${OUT:-target/warmup-curve}
mkdir -p "$OUT"
mapfile -t JOPTS < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*')

curve() { # name port -> series file
  timeout $((SECONDS_RUN + 2)) redis-benchmark -p "$2" -t set -d 100 -c 50 -P 16 -r 100000 -n 1000000000 2>&1 \
    | tr '\r' '\n' | grep -o 'rps=[0-9.]*' | cut -d= -f2 > "$OUT/$1.series" || true
  python3 - "$1" "$OUT/$1.series" <<'PY'
import sys, statistics as st
name, path = sys.argv[1], sys.argv[2]
s = [float(x) for x in open(path).read().split()]
while s and s[0] == 0: s.pop(0)          # windows before the first request
if len(s) < 24: sys.exit(f"{name}: only {len(s)} windows of 250 ms")
steady = st.median(s[-20:])               # the last 5 s
avg = [sum(s[i - 3:i + 1]) / 4 for i in range(3, len(s))]
t90 = next(((i + 4) * 0.25 for i, a in enumerate(avg) if a >= 0.9 * steady), None)
print(f"{name} steady_rps {steady:.0f} t90_s {t90} first_second_rps {avg[0]:.0f}")
PY
}

# shellcheck disable=SC2086
java -Xmx512m "${JOPTS[@]}" ${KVS_JAVA_OPTS:-} -jar "$JAR" server --port "${KVS_PORT:-16398}" --admin-port 0 --repl-port 0 \
  --max-entries 2000000 ${KVS_ARGS:-} > "$OUT/kvs.log" 2>&1 &
K=$!
R=
trap 'kill $K $R 2>/dev/null; wait 2>/dev/null || true' EXIT INT TERM
if [[ -z ${SKIP_REDIS:-} ]]; then
  redis-server --port "${REDIS_PORT:-16399}" --dir "$OUT" --save '' --appendonly no > "$OUT/redis.log" 2>&1 &
  R=$!
fi
for p in "${KVS_PORT:-16398}" ${R:+"${REDIS_PORT:-16399}"}; do
  for _ in $(seq 1 300); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null || { echo "server on $p did not start: $OUT" >&2; exit 1; }
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
curve kvs "${KVS_PORT:-16398}"
[[ -n $R ]] && curve redis "${REDIS_PORT:-16399}"
