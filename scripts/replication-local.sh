#!/usr/bin/env bash
# SET throughput of an id-first primary against an async one, each with its backup on this machine
# (no WAN emulator): what identifier-first costs over async when the link is free.
#
#   scripts/replication-local.sh [rounds=3] [small_requests=100000] [large_requests=1000]
#
# Each round starts a fresh backup and primary per mode (async, then id-first) and runs
#   redis-benchmark -t set -c 64 -d 1024    -n small_requests -r 100000
#   redis-benchmark -t set -c 64 -d 1048576 -n large_requests -r 100
# against the primary, after WARMUP=3 unmeasured passes of both (the JIT compiles the request and
# replication paths over the first few hundred thousand requests: a fresh pair's first 100,000 1 KiB SETs
# ran at 8.5k/s, its second at 18.9k/s); prints medians and id-first / async. OUT=target/replication-local.
# KVS=./kvs: the launcher both nodes run (another checkout's, to measure an older build the same way).
# Ports (override if they are taken): PRIMARY_PORT=16580, BACKUP_PORT=16581 (client ports),
# BACKUP_REPL_PORT=17581; the others are ephemeral.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-3}
SMALL=${2:-100000}
LARGE=${3:-1000}
OUT=${OUT:-target/replication-local}
KVS=${KVS:-./kvs}
WARMUP=${WARMUP:-3}
PRIMARY_PORT=${PRIMARY_PORT:-16580}
BACKUP_PORT=${BACKUP_PORT:-16581}
BACKUP_REPL_PORT=${BACKUP_REPL_PORT:-17581}
mkdir -p "$OUT"
command -v redis-benchmark >/dev/null || { echo "missing redis-benchmark (apt-get install redis-tools)" >&2; exit 1; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
wait_port() { for _ in $(seq 1 300); do redis-cli -p "$1" PING >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "no server on $1" >&2; exit 1; }
rps() { # args -> requests/s
  local out
  # shellcheck disable=SC2086
  out=$(redis-benchmark -p "$PRIMARY_PORT" -t set -c 64 -q $1 2>&1)
  if grep -qi "warn\|error\|could not" <<<"$out"; then echo "redis-benchmark printed: $out" >&2; exit 1; fi
  tr '\r' '\n' <<<"$out" | awk -F'[: ]+' '/^SET: .*requests per second/{print $2}'
}

echo "round mode 1KiB_rps 1MiB_rps" > "$OUT/raw.txt"
for r in $(seq 1 "$ROUNDS"); do
  for mode in async id-first; do
    "$KVS" server --role backup --name local-backup --port "$BACKUP_PORT" --repl-port "$BACKUP_REPL_PORT" --admin-port 0 > "$OUT/backup-$mode.log" 2>&1 &
    bpid=$!
    "$KVS" server --role primary --name local-primary --port "$PRIMARY_PORT" --repl-port 0 --admin-port 0 \
        --peer "127.0.0.1:$BACKUP_REPL_PORT" --mode "$mode" > "$OUT/primary-$mode.log" 2>&1 &
    ppid=$!
    pids=("$bpid" "$ppid")
    wait_port "$BACKUP_PORT"
    wait_port "$PRIMARY_PORT"
    for _ in $(seq 1 "$WARMUP"); do # the JIT compiles the request and replication paths over these
      rps "-d 1024 -n $SMALL -r 100000" >/dev/null
      rps "-d 1048576 -n $((LARGE / 2)) -r 100" >/dev/null
    done
    echo "$r $mode $(rps "-d 1024 -n $SMALL -r 100000") $(rps "-d 1048576 -n $LARGE -r 100")" >> "$OUT/raw.txt"
    kill "$ppid" "$bpid"; wait "$ppid" "$bpid" 2>/dev/null || true
    pids=()
  done
done

python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
med = lambda m, i: st.median(float(r[i]) for r in rows if r[1] == m)
print("| value | async req/s (median) | id-first req/s (median) | id-first / async |")
print("|---|---:|---:|---:|")
for i, name in ((2, "1 KiB"), (3, "1 MiB")):
    a, f = med("async", i), med("id-first", i)
    print(f"| {name} | {a:,.0f} | {f:,.0f} | {f / a:.2f} |")
PY
