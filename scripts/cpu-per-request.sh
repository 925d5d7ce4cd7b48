#!/usr/bin/env bash
# Server CPU time per request (user + system of the node's JVM, from /proc, over the run divided by
# the requests), for one kvs build or two side by side: unlike requests/s it barely moves when other
# processes load the machine, so it shows what a change saves.
#
#   scripts/cpu-per-request.sh [rounds=3]
#
# KVS=./kvs (port KVS_PORT=16380) and, optionally, KVS_B=<another launcher> (port KVS_B_PORT=16381, e.g. a copy of ./kvs
# pointing at an older kvs.jar), one after the other per workload (odd rounds kvs first, even rounds
# kvs-b first), after one warm-up pass each:
#   SET 100 B, 50 clients, -P 16 | SET 1 MiB, 4 clients | SET 100 kB, 4 clients | SET 100 B, 50 clients, -P 1
# or, with MODE=get, GETs of the keys SET (unmeasured) just before each run:
#   GET 1 MiB, 4 clients (-n 2000 -r 100) | GET 100 kB, 4 clients (-n 10000 -r 1000)
# or, with MODE=set-options, 100 kB SETs with options, 4 clients (-n 10000 -r 1000):
#   SET ... EX 1000 | SET ... KEEPTTL | SET ... XX
# Linux only (reads /proc/PID/stat; assumes 100 clock ticks per second).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
OUT=${OUT:-target/cpu-per-request}
KVS_PORT=${KVS_PORT:-16380}
KVS_B_PORT=${KVS_B_PORT:-16381}
mkdir -p "$OUT"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

"${KVS:-./kvs}" server --port "$KVS_PORT" --admin-port 0 --repl-port 0 > "$OUT/kvs.log" 2>&1 &
pids+=($!)
SERVERS=("kvs:$KVS_PORT:$!")
if [[ -n "${KVS_B:-}" ]]; then
  "$KVS_B" server --port "$KVS_B_PORT" --admin-port 0 --repl-port 0 > "$OUT/kvs-b.log" 2>&1 &
  pids+=($!)
  SERVERS+=("kvs-b:$KVS_B_PORT:$!")
fi
for s in "${SERVERS[@]}"; do
  p=$(cut -d: -f2 <<<"$s")
  for _ in $(seq 1 300); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
done

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# name|measured redis-benchmark options|requests|unmeasured options run just before (optional)
if [[ ${MODE:-set} == get ]]; then
  WORKLOADS=(
    "GET-1MiB|-t get -d 1048576 -c 4 -n 2000 -r 100|2000|-t set -d 1048576 -c 4 -n 1000 -r 100"
    "GET-100kB|-t get -d 102400 -c 4 -n 10000 -r 1000|10000|-t set -d 102400 -c 4 -n 10000 -r 1000"
  )
elif [[ ${MODE:-set} == set-options ]]; then
  # redis-benchmark fills no __data__ into a command of its own, so the value is a literal argument:
  # 100,000 base64 characters (one word, no '|')
  V=$(head -c 75000 /dev/urandom | base64 -w0)
  WORKLOADS=(
    "100kB-EX|-c 4 -n 10000 -r 1000 SET key:__rand_int__ $V EX 1000|10000"
    "100kB-KEEPTTL|-c 4 -n 10000 -r 1000 SET key:__rand_int__ $V KEEPTTL|10000"
    "100kB-XX|-c 4 -n 10000 -r 1000 SET key:__rand_int__ $V XX|10000"
  )
else
  WORKLOADS=(
    "100B-P16|-t set -d 100 -c 50 -n 300000 -P 16 -r 100000|300000"
    "1MiB|-t set -d 1048576 -c 4 -n 1000 -r 100|1000"
    "100kB|-t set -d 102400 -c 4 -n 10000 -r 1000|10000"
    "100B-P1|-t set -d 100 -c 50 -n 100000 -r 100000|100000"
  )
fi
run() { # server workload -> "name label us_per_request"
  local label=${1%%:*} rest=${1#*:} port pid args n prep t0 t1
  port=${rest%%:*}; pid=${rest#*:}
  IFS='|' read -r name args n prep <<<"$2"
  # shellcheck disable=SC2086
  [[ -n "$prep" ]] && redis-benchmark -p "$port" -q $prep >/dev/null 2>&1
  t0=$(ticks "$pid")
  # shellcheck disable=SC2086
  redis-benchmark -p "$port" -q $args >/dev/null 2>&1
  t1=$(ticks "$pid")
  echo "$name $label $(( (t1 - t0) * 10000 / n )).$(( (t1 - t0) * 100000 / n % 10 ))"
}
for s in "${SERVERS[@]}"; do for w in "${WORKLOADS[@]}"; do run "$s" "$w" >/dev/null; done; done # warm-up
echo "round workload server cpu_us_per_request" > "$OUT/raw.txt"
for r in $(seq 1 "$ROUNDS"); do
  order=("${SERVERS[@]}")
  if (( r % 2 == 0 && ${#SERVERS[@]} == 2 )); then order=("${SERVERS[1]}" "${SERVERS[0]}"); fi # alternate who goes first
  for w in "${WORKLOADS[@]}"; do for s in "${order[@]}"; do echo "$r $(run "$s" "$w")" >> "$OUT/raw.txt"; done; done
done
python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
servers = sorted({r[2] for r in rows}, key=lambda s: s != "kvs-b")
print("| workload | " + " | ".join(f"{s} CPU µs/request (median; runs)" for s in servers) + " |")
print("|---|" + "---:|" * len(servers))
for w in dict.fromkeys(r[1] for r in rows):
    cells = []
    for s in servers:
        v = [float(r[3]) for r in rows if r[1] == w and r[2] == s]
        cells.append(f"{st.median(v):.1f} ({' / '.join(f'{x:g}' for x in v)})")
    print(f"| {w} | " + " | ".join(cells) + " |")
PY
