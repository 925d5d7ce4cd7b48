#!/usr/bin/env bash
# Runs redis-benchmark against kvs and against Redis 7 (persistence off) side by side, on the same
# machine, alternating the two servers, and prints median throughput and the kvs/Redis ratio.
#
#   scripts/redis-compare.sh [rounds] [requests]
#   TESTS=hset,sadd,spop RANDOM_KEYS=100000 scripts/redis-compare.sh 3 1000000
#
# TESTS are redis-benchmark's -t names (default set,get); RANDOM_KEYS, if set, is passed as -r (random
# keys, or random fields and members for hset/sadd, which then grow one hash and one set).
# Needs redis-server and redis-benchmark (Debian: apt-get install redis-server redis-tools).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-3}
REQUESTS=${2:-200000}
TESTS=${TESTS:-set,get}
RANDOM_ARGS=()
[[ -n "${RANDOM_KEYS:-}" ]] && RANDOM_ARGS=(-r "$RANDOM_KEYS")
KVS_PORT=${KVS_PORT:-16380}
REDIS_PORT=${REDIS_PORT:-16379}
OUT=${OUT:-target/redis-compare}
mkdir -p "$OUT"

for tool in redis-server redis-benchmark; do
  command -v $tool >/dev/null || { echo "missing $tool: apt-get install redis-server redis-tools" >&2; exit 1; }
done

cleanup() {
  [[ -n "${KVS_PID:-}" ]] && kill "$KVS_PID" 2>/dev/null || true
  [[ -n "${REDIS_PID:-}" ]] && kill "$REDIS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

./kvs server --port "$KVS_PORT" --admin-port 0 --repl-port 0 --max-entries 2000000 > "$OUT/kvs.log" 2>&1 &
KVS_PID=$!
redis-server --port "$REDIS_PORT" --save '' --appendonly no --daemonize no > "$OUT/redis.log" 2>&1 &
REDIS_PID=$!
for p in "$KVS_PORT" "$REDIS_PORT"; do
  for _ in $(seq 1 300); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null || { echo "server on $p did not start" >&2; exit 1; }
done

bench() { # port pipeline -> requests/s of each of TESTS, in order
  local out
  out=$(redis-benchmark -p "$1" -t "$TESTS" -d 1024 -c 50 -n "$REQUESTS" -P "$2" "${RANDOM_ARGS[@]}" -q 2>&1)
  if grep -qi "warn\|error\|could not" <<<"$out"; then echo "redis-benchmark on $1 printed: $out" >&2; exit 1; fi
  tr '\r' '\n' <<<"$out" | awk -F'[: ]+' -v tests="$TESTS" '
    /requests per second/ { rps[toupper($1)] = $2 }
    END { n = split(toupper(tests), t, ","); line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? " " : "") rps[t[i]]; print line }'
}

# warm up kvs's JIT before measuring
redis-benchmark -p "$KVS_PORT" -t "$TESTS" -d 1024 -c 50 -n "$REQUESTS" -P 16 "${RANDOM_ARGS[@]}" -q >/dev/null 2>&1

echo "pipeline round server ${TESTS//,/ }" > "$OUT/raw.txt"
for P in 1 16; do
  for r in $(seq 1 "$ROUNDS"); do
    if (( r % 2 )); then # A/B in alternating order
      echo "$P $r kvs $(bench "$KVS_PORT" "$P")" >> "$OUT/raw.txt"
      echo "$P $r redis $(bench "$REDIS_PORT" "$P")" >> "$OUT/raw.txt"
    else
      echo "$P $r redis $(bench "$REDIS_PORT" "$P")" >> "$OUT/raw.txt"
      echo "$P $r kvs $(bench "$KVS_PORT" "$P")" >> "$OUT/raw.txt"
    fi
  done
done

python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
lines=open(sys.argv[1]).read().splitlines()
cmds=[c.upper() for c in lines[0].split()[3:]]
rows=[l.split() for l in lines[1:]]
print(f"{'-P':>3} {'cmd':>6} {'kvs rps (median)':>17} {'redis rps (median)':>19} {'kvs/redis':>10}")
for P in ('1','16'):
    for i,cmd in enumerate(cmds, start=3):
        k=st.median(float(r[i]) for r in rows if r[0]==P and r[2]=='kvs')
        rd=st.median(float(r[i]) for r in rows if r[0]==P and r[2]=='redis')
        print(f"{P:>3} {cmd:>6} {k:>17.0f} {rd:>19.0f} {k/rd:>10.2f}")
PY
