#!/usr/bin/env bash
# Where a replicating pair spends its CPU: a primary and its backup on this machine (no WAN emulator),
# driven by redis-benchmark SETs, with each node's threads' CPU time and context switches per request
# (from /proc), and redis-benchmark's own CPU. Throughput on a shared 2-core machine moves by 10 to 20%
# from run to run; CPU per request and per thread moves far less, so it shows what a change saves and
# on which thread.
#
#   scripts/replication-cpu.sh [rounds=3] [modes="id-first async"]
#
# Each round starts a fresh pair per mode, warms it up with WARMUP=3 unmeasured passes, then measures
#   redis-benchmark -t set -c CLIENTS -d SIZE -n REQUESTS -r 100000   (CLIENTS=64 SIZE=1024 REQUESTS=200000)
# and prints, per mode and round, requests/s and, for every thread that used at least 0.05 us per request,
# its CPU time (user + system) and context switches (voluntary + involuntary) per request; then the
# medians over the rounds. KVS=./kvs: the launcher both nodes run; KVS_B=<another launcher> measures a
# second build in the same rounds (each mode: kvs, then kvs-b; even rounds kvs-b first).
# Ports: PRIMARY_PORT=16580, BACKUP_PORT=16581, BACKUP_REPL_PORT=17581. OUT=target/replication-cpu.
# Linux only (reads /proc; assumes 100 clock ticks per second). Needs redis-benchmark, redis-cli, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C # sort and join agree on the order

ROUNDS=${1:-3}
MODES=${2:-id-first async}
CLIENTS=${CLIENTS:-64}
SIZE=${SIZE:-1024}
REQUESTS=${REQUESTS:-200000}
WARMUP=${WARMUP:-3}
PRIMARY_PORT=${PRIMARY_PORT:-16580}
BACKUP_PORT=${BACKUP_PORT:-16581}
BACKUP_REPL_PORT=${BACKUP_REPL_PORT:-17581}
OUT=${OUT:-target/replication-cpu}
mkdir -p "$OUT"
for tool in redis-benchmark redis-cli python3; do
  command -v $tool >/dev/null || { echo "missing $tool: apt-get install redis-tools python3" >&2; exit 1; }
done

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
wait_port() { for _ in $(seq 1 300); do redis-cli -p "$1" PING >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "no server on $1" >&2; exit 1; }
# one line per thread: name-tid switches ticks
threads() { for t in /proc/"$1"/task/*; do
  printf '%s-%s %s %s\n' "$(tr ' ' _ < "$t/comm")" "${t##*/}" \
    "$(awk '/^voluntary_ctxt_switches/{v=$2} /^nonvoluntary_ctxt_switches/{n=$2} END{print v+n}' "$t/status")" \
    "$(awk '{print $14+$15}' "$t/stat")"
done | sort; }
bench() { redis-benchmark -p "$PRIMARY_PORT" -t set -c "$CLIENTS" -q -d "$SIZE" -n "$1" -r 100000 2>&1; }

BUILDS=("kvs:${KVS:-./kvs}")
[[ -n "${KVS_B:-}" ]] && BUILDS+=("kvs-b:$KVS_B")
raw="$OUT/raw.txt"
: > "$raw"
for r in $(seq 1 "$ROUNDS"); do
  order=("${BUILDS[@]}")
  if (( r % 2 == 0 )) && (( ${#BUILDS[@]} == 2 )); then order=("${BUILDS[1]}" "${BUILDS[0]}"); fi
  for mode in $MODES; do
    for build in "${order[@]}"; do
      name=${build%%:*} launcher=${build#*:}
      "$launcher" server --role backup --name local-backup --port "$BACKUP_PORT" --repl-port "$BACKUP_REPL_PORT" \
          --admin-port 0 > "$OUT/backup-$name-$mode.log" 2>&1 &
      bpid=$!
      "$launcher" server --role primary --name local-primary --port "$PRIMARY_PORT" --repl-port 0 --admin-port 0 \
          --peer "127.0.0.1:$BACKUP_REPL_PORT" --mode "$mode" > "$OUT/primary-$name-$mode.log" 2>&1 &
      ppid=$!
      pids=("$bpid" "$ppid")
      wait_port "$BACKUP_PORT"
      wait_port "$PRIMARY_PORT"
      for _ in $(seq 1 "$WARMUP"); do bench 100000 >/dev/null; done
      threads "$ppid" > "$OUT/p1"; threads "$bpid" > "$OUT/b1"
      TIMEFORMAT='GEN %U %S' # bash's time: the load generator's own user and system seconds
      out=$( { time redis-benchmark -p "$PRIMARY_PORT" -t set -c "$CLIENTS" -q -d "$SIZE" -n "$REQUESTS" \
          -r 100000; } 2>&1 )
      threads "$ppid" > "$OUT/p2"; threads "$bpid" > "$OUT/b2"
      if grep -qi "warn\|error\|could not" <<<"$out"; then echo "redis-benchmark printed: $out" >&2; exit 1; fi
      rps=$(tr '\r' '\n' <<<"$out" | awk -F'[: ]+' '/^SET: .*requests per second/{print $2}')
      gen=$(awk '/^GEN/{print ($2 + $3) * 1e6 / '"$REQUESTS"'}' <<<"$out")
      echo "$r $name $mode rps $rps" >> "$raw"
      echo "$r $name $mode redis-benchmark - $gen" >> "$raw"
      for node in primary backup; do
        f=${node:0:1}
        join "$OUT/${f}1" "$OUT/${f}2" | awk -v r="$r" -v b="$name" -v m="$mode" -v node="$node" -v n="$REQUESTS" '
          { sub(/-[0-9]+$/, "", $1); sw = ($4 - $2) / n; cpu = ($5 - $3) * 10000 / n
            if (cpu >= 0.05) printf "%s %s %s %s:%s %.3f %.2f\n", r, b, m, node, $1, sw, cpu }' >> "$raw"
      done
      kill "$ppid" "$bpid"; wait "$ppid" "$bpid" 2>/dev/null || true
      pids=()
    done
  done
done

python3 - "$raw" <<'PY'
import sys, statistics as st, collections
rps = collections.defaultdict(list)
cpu = collections.defaultdict(list)
sw = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    r, build, mode = f[0], f[1], f[2]
    if f[3] == "rps":
        rps[(build, mode)].append(float(f[4]))
    else:
        key = (build, mode, f[3])
        if f[4] != "-":
            sw[key].append(float(f[4]))
        cpu[key].append(float(f[5]))
print("| build | mode | requests/s (median) |")
print("|---|---|---:|")
for (b, m), v in sorted(rps.items()):
    print(f"| {b} | {m} | {st.median(v):,.0f} |")
print()
print("| build | mode | thread | CPU us per request (median) | context switches per request (median) |")
print("|---|---|---|---:|---:|")
for (b, m, t), v in sorted(cpu.items()):
    s = sw.get((b, m, t))
    print(f"| {b} | {m} | {t} | {st.median(v):.2f} | {st.median(s):.3f} |" if s else f"| {b} | {m} | {t} | {st.median(v):.2f} | |")
PY
