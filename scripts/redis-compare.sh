#!/usr/bin/env bash
# Runs redis-benchmark against kvs and against Redis 7 (persistence off) side by side, on the same
# machine, alternating the two servers, and prints median throughput and the kvs/Redis ratio.
#
#   scripts/redis-compare.sh [rounds] [requests]
#
# Needs redis-server and redis-benchmark (Debian: apt-get install redis-server redis-tools).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-3}
REQUESTS=${2:-200000}
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

bench() { # port pipeline -> "set get" requests/s
  local out
  out=$(redis-benchmark -p "$1" -t set,get -d 1024 -c 50 -n "$REQUESTS" -P "$2" -q 2>&1)
  if grep -qi "warn\|error\|could not" <<<"$out"; then echo "redis-benchmark on $1 printed: $out" >&2; exit 1; fi
  tr '\r' '\n' <<<"$out" | awk -F'[: ]+' '/^SET: .*requests per second/{s=$2} /^GET: .*requests per second/{g=$2} END{print s, g}'
}

# warm up kvs's JIT before measuring
redis-benchmark -p "$KVS_PORT" -t set,get -d 1024 -c 50 -n "$REQUESTS" -P 16 -q >/dev/null 2>&1

echo "pipeline round server set_rps get_rps" > "$OUT/raw.txt"
for P in 1 16; do
  for r in $(seq 1 "$ROUNDS"); do
    echo "$P $r kvs $(bench "$KVS_PORT" "$P")" >> "$OUT/raw.txt"
    echo "$P $r redis $(bench "$REDIS_PORT" "$P")" >> "$OUT/raw.txt"
  done
done

python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
rows=[l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
print(f"{'-P':>3} {'cmd':>4} {'kvs rps (median)':>17} {'redis rps (median)':>19} {'kvs/redis':>10}")
for P in ('1','16'):
    for i,cmd in ((3,'SET'),(4,'GET')):
        k=st.median(float(r[i]) for r in rows if r[0]==P and r[2]=='kvs')
        rd=st.median(float(r[i]) for r in rows if r[0]==P and r[2]=='redis')
        print(f"{P:>3} {cmd:>4} {k:>17.0f} {rd:>19.0f} {k/rd:>10.2f}")
PY
