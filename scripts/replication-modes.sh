#!/usr/bin/env bash
# SET throughput and latency per replication mode through an emulated WAN link, with
# redis-benchmark: one backup, one `./kvs wan` link, and a primary restarted in each mode.
#
#   scripts/replication-modes.sh [one-way-delay-ms] [bandwidth-mbit] [requests] [value-bytes]
#
# Ports (override if they are taken): PRIMARY_PORT=16480 (client), BACKUP_PORT=16481 (client),
# BACKUP_REPL_PORT=17481, WAN_PORT=17491 (the emulated link in front of the backup's replication
# port). Admin and the primary's replication port use free ephemeral ports. Also PIPELINE=1, OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

DELAY=${1:-5}
MBIT=${2:-1000}
REQUESTS=${3:-50000}
SIZE=${4:-1024}
PIPELINE=${PIPELINE:-1}
PRIMARY_PORT=${PRIMARY_PORT:-16480}
BACKUP_PORT=${BACKUP_PORT:-16481}
BACKUP_REPL_PORT=${BACKUP_REPL_PORT:-17481}
WAN_PORT=${WAN_PORT:-17491}
OUT=${OUT:-target/replication-modes}
mkdir -p "$OUT"
command -v redis-benchmark >/dev/null || { echo "missing redis-benchmark (apt-get install redis-tools)" >&2; exit 1; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

wait_port() { for _ in $(seq 1 300); do redis-cli -p "$1" PING >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "no server on $1" >&2; exit 1; }

echo "mode set_rps p50_ms" > "$OUT/raw.txt"
for mode in async id-first-after-reply id-first sync; do
  # a fresh pair per mode: a memory-only primary restarted against a backup that is ahead of it
  # refuses to replicate (diverged), by design
  ./kvs server --role backup --name bench-backup --port "$BACKUP_PORT" --repl-port "$BACKUP_REPL_PORT" --admin-port 0 > "$OUT/backup-$mode.log" 2>&1 &
  bpid=$!
  ./kvs wan --listen "$WAN_PORT" --target "127.0.0.1:$BACKUP_REPL_PORT" --delay-ms "$DELAY" --bandwidth-mbit "$MBIT" --no-stdin > "$OUT/wan-$mode.log" 2>&1 &
  wpid=$!
  ./kvs server --role primary --name bench-primary --port "$PRIMARY_PORT" --repl-port 0 --admin-port 0 \
      --peer "127.0.0.1:$WAN_PORT" --mode "$mode" > "$OUT/primary-$mode.log" 2>&1 &
  ppid=$!
  pids=("$bpid" "$wpid" "$ppid")
  wait_port "$BACKUP_PORT"
  wait_port "$PRIMARY_PORT"
  redis-benchmark -p "$PRIMARY_PORT" -t set -d "$SIZE" -c 50 -n 5000 -q >/dev/null 2>&1   # warm-up
  line=$(redis-benchmark -p "$PRIMARY_PORT" -t set -d "$SIZE" -c 50 -P "$PIPELINE" -r 100000 -n "$REQUESTS" -q 2>&1 | tr '\r' '\n' | grep 'requests per second')
  rps=$(awk '{print $2}' <<<"$line"); p50=$(sed -E 's/.*p50=([0-9.]+).*/\1/' <<<"$line")
  echo "$mode $rps $p50" >> "$OUT/raw.txt"
  kill "$ppid" "$wpid" "$bpid"; wait "$ppid" "$wpid" "$bpid" 2>/dev/null || true
done
column -t "$OUT/raw.txt"
