#!/usr/bin/env bash
# Issue #31's acceptance run for tombstones: a primary and a backup on loopback, both with
# --max-entries MAX_ENTRIES (200000); through `redis-cli --pipe`, PAIRS x (SET k v, DEL k) on fresh keys
# (600000), then EXPIRING x `SET k v EX 1` on fresh keys (300000). WAIT_S (8) seconds later it prints
# both stores' entries and tombstones, the primary's values left to ship, and whether a new write
# reaches the backup complete (READONLY GET), and answers PASS if: no error reply, both stores at most
# 10% of MAX_ENTRIES, nothing left to ship, the new write on the backup.
#
# Needs redis-cli and curl. Ports: PRIMARY_PORT (16780), BACKUP_PORT (16781), BACKUP_REPL_PORT (17781), and the
# admin ports 18780/18781. MODE (id-first). KVS (the launcher, ./kvs). The nodes are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

KVS=${KVS:-./kvs}
MODE=${MODE:-id-first}
MAX_ENTRIES=${MAX_ENTRIES:-200000}
PAIRS=${PAIRS:-600000}
EXPIRING=${EXPIRING:-300000}
WAIT_S=${WAIT_S:-8}
PRIMARY_PORT=${PRIMARY_PORT:-16780}
BACKUP_PORT=${BACKUP_PORT:-16781}
BACKUP_REPL_PORT=${BACKUP_REPL_PORT:-17781}
command -v redis-cli >/dev/null || { echo "tombstone-churn: redis-cli is not installed (apt-get install redis-tools)" >&2; exit 1; }

run=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$run"
}
trap cleanup EXIT

"$KVS" server --name dc-backup --role backup --port "$BACKUP_PORT" --admin-port 18781 \
  --repl-port "$BACKUP_REPL_PORT" --max-entries "$MAX_ENTRIES" > "$run/backup.log" 2>&1 &
pids+=($!)
"$KVS" server --name dc-main --role primary --port "$PRIMARY_PORT" --admin-port 18780 \
  --peer "127.0.0.1:$BACKUP_REPL_PORT" --mode "$MODE" --max-entries "$MAX_ENTRIES" > "$run/primary.log" 2>&1 &
pids+=($!)
for port in "$BACKUP_PORT" "$PRIMARY_PORT"; do
  for _ in $(seq 1 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done
done
for _ in $(seq 1 300); do
  redis-cli -p "$PRIMARY_PORT" INFO replication | grep -q '^kvs_link_state:streaming' && break
  sleep 0.1
done

info() { redis-cli -p "$1" INFO "$2" | tr -d '\r' | sed -n "s/^$3://p"; }
# entries and tombstones from /status (builds before issue #31 had no kvs_entries in INFO)
status() { curl -s "localhost:$1/status" | python3 -c "import json,sys; s=json.load(sys.stdin); print(s['memory']['entries'], s['memory']['entries'] - s['keys'])"; }

# RESP for the commands, written once, fed to redis-cli --pipe
python3 - "$PAIRS" "$EXPIRING" > "$run/commands.resp" <<'PY'
import sys
pairs, expiring = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout
def cmd(*args):
    out.write("*%d\r\n" % len(args))
    for a in args:
        out.write("$%d\r\n%s\r\n" % (len(a), a))
for i in range(pairs):
    cmd("SET", "churn:%d" % i, "v%d" % i)
    cmd("DEL", "churn:%d" % i)
for i in range(expiring):
    cmd("SET", "expiring:%d" % i, "v%d" % i, "EX", "1")
PY

start=$(date +%s.%N)
redis-cli -p "$PRIMARY_PORT" --pipe < "$run/commands.resp" > "$run/pipe.out" || true # non-zero when a reply was an error
end=$(date +%s.%N)
grep -v "^OOM\|^ERR" "$run/pipe.out"; grep -m3 "^OOM\|^ERR\|^NOREPLICA\|^BUSY" "$run/pipe.out" || true
errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$run/pipe.out")
awk -v n=$((2 * PAIRS + EXPIRING)) -v s="$start" -v e="$end" 'BEGIN { printf "pipe: %d commands in %.1f s\n", n, e - s }'

sleep "$WAIT_S"
redis-cli -p "$PRIMARY_PORT" SET after-churn still-protected >/dev/null
landed=no
for _ in $(seq 1 50); do
  [[ "$(printf 'READONLY\nGET after-churn\n' | redis-cli -p "$BACKUP_PORT" | tail -1)" == still-protected ]] && { landed=yes; break; }
  sleep 0.1
done

read -r p_entries p_tomb < <(status 18780)
read -r b_entries b_tomb < <(status 18781)
lag=$(info "$PRIMARY_PORT" replication kvs_value_lag_count)
state=$(info "$PRIMARY_PORT" replication kvs_link_state)
limit=$((MAX_ENTRIES / 10))
echo "after ${WAIT_S} s: primary entries $p_entries (tombstones $p_tomb), backup entries $b_entries (tombstones $b_tomb), limit $limit"
echo "primary: link $state, values left to ship $lag; a new write on the backup: $landed"
echo "backup: $(redis-cli -p "$BACKUP_PORT" INFO replication | tr -d '\r' | grep -E '^kvs_(tombstones_collected|tombstone_sweeps|deletes_held|values_not_awaited|values_refused):' | tr '\n' ' ')"
if [[ "${errors:-1}" == 0 && "$p_entries" -le "$limit" && "$b_entries" -le "$limit" && "$lag" == 0 && "$landed" == yes ]]; then
  echo "PASS"
else
  echo "FAIL"
  exit 1
fi
