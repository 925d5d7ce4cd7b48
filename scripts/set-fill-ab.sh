#!/usr/bin/env bash
# A/B of kvs builds on one hot set, as redis-benchmark's SADD meets it in scripts/redis-compare-ab.sh:
# each run starts from an empty set (DEL myset, as SPOP leaves it there) and adds 1,000,000 SADDs of
# 100,000 random members at -P 16 from 50 clients, so about one SADD in ten adds a member and most runs
# of 16 SADDs hold one that does. Every build runs as its own node, warmed with 5 runs; then ROUNDS
# rounds, each build once per round, in an order that rotates and reverses every other round. Per run:
# requests per second and the node's CPU per request (user + system from /proc/PID/stat).
#
#   scripts/set-fill-ab.sh ROUNDS JAR [JAR...]
#   e.g. scripts/set-fill-ab.sh 8 /tmp/kvs-before.jar kvs-cli/target/kvs.jar
#
# KEEP=1: no DEL before a run (every SADD meets the full set, and changes nothing). T=sadd: the
# redis-benchmark test. N=1000000: requests per run. OUT=target/set-fill-ab: logs and raw rows
# ("round build rps cpu_us"); the medians per build are printed at the end. Ports 16400 and up.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
OUT=${OUT:-target/set-fill-ab}
mkdir -p "$OUT"
mapfile -t JOPTS < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*')
PIDS=()
PORTS=()
i=0
for jar in "$@"; do
  port=$((16400 + i))
  java "${JOPTS[@]}" -jar "$jar" server --port $port --admin-port 0 --repl-port 0 --max-entries 2000000 \
    > "$OUT/node-$i.log" 2>&1 &
  PIDS[i]=$!
  PORTS[i]=$port
  i=$((i + 1))
done
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null || true' EXIT INT TERM
n=$i
for p in "${PORTS[@]}"; do
  for _ in $(seq 1 300); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null || { echo "node on $p did not start: $OUT" >&2; exit 1; }
done
N=${N:-1000000}
T=${T:-sadd}
run() { # build -> "rps cpu_us"
  local p=${PORTS[$1]} pid=${PIDS[$1]} c0 c1 rps
  [[ -z "${KEEP:-}" ]] && redis-cli -p "$p" del myset >/dev/null
  c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  rps=$(redis-benchmark -p "$p" -t "$T" -c 50 -n "$N" -P 16 -r 100000 -q 2>&1 | tr '\r' '\n' \
    | awk '/per second/ {print $2}')
  c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  echo "$rps $(python3 -c "print(round(($c1-$c0)/$(getconf CLK_TCK)*1e6/$N,3))")"
}
for k in $(seq 0 $((n - 1))); do
  for _ in 1 2 3 4 5; do run "$k" >/dev/null; done
done
for r in $(seq 1 "$ROUNDS"); do
  for s in $(seq 0 $((n - 1))); do
    if ((r % 2)); then k=$(((s + r) % n)); else k=$(((n - 1 - s + r) % n)); fi
    echo "$r $k $(run "$k")"
  done
done | tee "$OUT/raw.txt"
python3 - "$OUT/raw.txt" "$@" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for k, jar in enumerate(sys.argv[2:]):
    mine = [r for r in rows if r[1] == str(k)]
    print(f"build {k} ({jar}): rps median {st.median(float(r[2]) for r in mine):.0f},"
          f" CPU us/request median {st.median(float(r[3]) for r in mine):.3f}")
PY
