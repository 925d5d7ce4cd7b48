#!/usr/bin/env bash
# SET latency and throughput of a primary with its backup on this machine (no WAN emulator), for two kvs
# builds side by side: both pairs run at once, and each round measures one then the other (the order
# alternates), so the machine's drift falls on both. Prints medians and how many rounds each build won.
#
#   KVS_B=<launcher of the other build> scripts/replication-latency-ab.sh [rounds=8]
#
# MODE=sync (the primary's --mode), C=1 clients, D=100 value bytes, N=10000 SETs per measured pass
# (redis-benchmark -t set -c C -d D -n N -r 1000 --csv). Both primaries are warmed up first (two passes of
# 100,000 1 KiB SETs from 64 clients, and two of 5,000 of the measured kind). KVS=./kvs is build A.
# Ports: 16680/16681 and 16690/16691 (client), 17681 and 17691 (the backups' replication ports).
# OUT=target/replication-latency-ab.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-8}
MODE=${MODE:-sync} C=${C:-1} D=${D:-100} N=${N:-10000}
OUT=${OUT:-target/replication-latency-ab}
[[ -n "${KVS_B:-}" ]] || { echo "set KVS_B to the launcher of the build to compare with" >&2; exit 1; }
command -v redis-benchmark >/dev/null || { echo "missing redis-benchmark (apt-get install redis-tools)" >&2; exit 1; }
mkdir -p "$OUT"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
wait_port() { for _ in $(seq 1 300); do redis-cli -p "$1" PING >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "no server on $1" >&2; exit 1; }
pair() { # launcher name client_port backup_port backup_repl_port
  "$1" server --role backup --name "$2-backup" --port "$4" --repl-port "$5" --admin-port 0 > "$OUT/$2-backup.log" 2>&1 &
  pids+=($!)
  "$1" server --role primary --name "$2-primary" --port "$3" --repl-port 0 --admin-port 0 \
      --peer "127.0.0.1:$5" --mode "$MODE" > "$OUT/$2-primary.log" 2>&1 &
  pids+=($!)
  wait_port "$4"; wait_port "$3"
}
pair "${KVS:-./kvs}" a 16690 16691 17691
pair "$KVS_B" b 16680 16681 17681
for p in 16690 16680; do
  for _ in 1 2; do
    redis-benchmark -p "$p" -t set -c 64 -d 1024 -n 100000 -r 100000 -q >/dev/null
    redis-benchmark -p "$p" -t set -c "$C" -d "$D" -n 5000 -r 1000 -q >/dev/null
  done
done
one() { # port -> "rps p50_ms p99_ms"
  redis-benchmark -p "$1" -t set -c "$C" -d "$D" -n "$N" -r 1000 --csv | tail -1 | tr -d '"' | awk -F, '{print $2, $5, $7}'
}
echo "round build rps p50_ms p99_ms" > "$OUT/raw.txt"
for r in $(seq 1 "$ROUNDS"); do
  order="a:16690 b:16680"; (( r % 2 == 0 )) && order="b:16680 a:16690"
  for s in $order; do echo "$r ${s%%:*} $(one "${s##*:}")" >> "$OUT/raw.txt"; done
done
python3 - "$OUT/raw.txt" "$MODE" "$C" "$D" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
print(f"mode {sys.argv[2]}, {sys.argv[3]} client(s), {sys.argv[4]} B values; medians over {len(rows) // 2} rounds")
print("| build | req/s | p50 ms | p99 ms | rounds with more req/s |")
print("|---|---:|---:|---:|---:|")
rounds = sorted({r[0] for r in rows})
by = {(r[0], r[1]): float(r[2]) for r in rows}
for b, name in (("a", "A (KVS)"), ("b", "B (KVS_B)")):
    mine = [r for r in rows if r[1] == b]
    other = "b" if b == "a" else "a"
    wins = sum(by[(r, b)] > by[(r, other)] for r in rounds)
    print(f"| {name} | {st.median(float(r[2]) for r in mine):,.0f} | {st.median(float(r[3]) for r in mine):.3f} "
          f"| {st.median(float(r[4]) for r in mine):.3f} | {wins} of {len(rounds)} |")
PY
