#!/usr/bin/env bash
# The workloads of issue #13, kvs against Redis 7 (persistence off) on the same machine, in one run:
# each round runs every workload against kvs, then against Redis, so both see the same machine; prints
# medians over the rounds and the kvs/Redis ratios as a Markdown table.
#
#   scripts/redis-compare-sizes.sh [rounds=3] [small_requests=100000]
#
#   100 B, 50 clients, -P 1 and -P 16: redis-benchmark -t set,get -d 100 -c 50 -n N -r 100000 [-P 16]
#   the same -P 1, two client threads:  ... --threads 2 (100B-P1-T2: one redis-benchmark thread needs about
#                                      20 µs of CPU per request, so at -P 1 it saturates its core at about
#                                      47k requests/s on a 2-vCPU VM whichever server it drives)
#   100 kB, 4 clients:                 redis-benchmark -t set,get -d 102400 -c 4 -n 20000 -r 1000
#   1 MiB, 4 clients:                  redis-benchmark -t set,get -d 1048576 -c 4 -n 2000 -r 100
#   one idle client:                   scripts/idle-latency.py PORT 200 50 (a 100 B SET every 50 ms, p50)
#
# KVS=./kvs (the launcher to start kvs with), KVS_PORT=16380, REDIS_PORT=16379, OUT=target/redis-compare.
# KVS_B=<another launcher> (e.g. a copy of ./kvs pointing at an older kvs.jar) adds a second kvs node on
# KVS_B_PORT=16381, measured in the same rounds: before/after ratios from one run on a noisy machine.
# ONLY="100kB 1MiB" runs only the named workloads (of 100B-P1 100B-P1-T2 100B-P16 100kB 1MiB idle).
# Each redis-benchmark pass also records its own CPU time (user + system) per request, printed after the
# table: a load generator near one core's worth of CPU measures itself, not the server.
# PIN=1 pins every server (kvs and Redis alike) to CPU 0 and redis-benchmark (and the idle client) to
# CPU 1 with taskset, so that the load generator and the server under test do not fight over one core.
# kvs is warmed up first: WARMUP=3 passes of every workload (its JIT compiles the request path over
# the first seconds of load: on a slow 2-vCPU VM one pass left -P 16 rising from 0.26x to 0.95x Redis
# over five rounds). Needs redis-server, redis-benchmark, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-3}
SMALL=${2:-100000}
KVS_PORT=${KVS_PORT:-16380}
REDIS_PORT=${REDIS_PORT:-16379}
OUT=${OUT:-target/redis-compare}
mkdir -p "$OUT"

SRV_PIN=() CLI_PIN=()
if [[ ${PIN:-0} == 1 ]]; then SRV_PIN=(taskset -c 0) CLI_PIN=(taskset -c 1); fi
for tool in redis-server redis-benchmark redis-cli python3 ${SRV_PIN[0]:-}; do
  command -v $tool >/dev/null || { echo "missing $tool: apt-get install redis-server redis-tools python3" >&2; exit 1; }
done

KVS_PID= KVS_B_PID= REDIS_PID=
KVS_B_PORT=${KVS_B_PORT:-16381}
cleanup() {
  [[ -n "$KVS_PID" ]] && kill "$KVS_PID" 2>/dev/null || true
  [[ -n "$KVS_B_PID" ]] && kill "$KVS_B_PID" 2>/dev/null || true
  [[ -n "$REDIS_PID" ]] && kill "$REDIS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

${SRV_PIN[@]+"${SRV_PIN[@]}"} "${KVS:-./kvs}" server --port "$KVS_PORT" --admin-port 0 --repl-port 0 > "$OUT/kvs.log" 2>&1 &
KVS_PID=$!
PORTS=("$KVS_PORT" "$REDIS_PORT")
if [[ -n "${KVS_B:-}" ]]; then
  ${SRV_PIN[@]+"${SRV_PIN[@]}"} "$KVS_B" server --port "$KVS_B_PORT" --admin-port 0 --repl-port 0 > "$OUT/kvs-b.log" 2>&1 &
  KVS_B_PID=$!
  PORTS+=("$KVS_B_PORT")
fi
${SRV_PIN[@]+"${SRV_PIN[@]}"} redis-server --port "$REDIS_PORT" --save '' --appendonly no --daemonize no > "$OUT/redis.log" 2>&1 &
REDIS_PID=$!
for p in "${PORTS[@]}"; do
  for _ in $(seq 1 300); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null || { echo "server on $p did not start" >&2; exit 1; }
done

WORKLOADS=(
  "100B-P1|-d 100 -c 50 -n $SMALL -r 100000"
  "100B-P1-T2|-d 100 -c 50 -n $SMALL -r 100000 --threads 2"
  "100B-P16|-d 100 -c 50 -n $SMALL -r 100000 -P 16"
  "100kB|-d 102400 -c 4 -n 20000 -r 1000"
  "1MiB|-d 1048576 -c 4 -n 2000 -r 100"
)

bench() { # port args -> "set_rps get_rps client_cpu_us_per_request"
  local out cpu n
  # bash's time keyword reports the CPU the pass used, its threads included
  # shellcheck disable=SC2086
  cpu=$( { TIMEFORMAT='%U %S'; time ${CLI_PIN[@]+"${CLI_PIN[@]}"} redis-benchmark -p "$1" -t set,get -q $2 > "$OUT/pass.out" 2>&1; } 2>&1 )
  out=$(<"$OUT/pass.out")
  if grep -qi "warn\|error\|could not" <<<"$out"; then echo "redis-benchmark on $1 printed: $out" >&2; exit 1; fi
  n=$(grep -oE -- '-n [0-9]+' <<<"$2" | awk '{print $2}')
  tr '\r' '\n' <<<"$out" | awk -F'[: ]+' -v cpu="$cpu" -v n="$n" '/^SET: .*requests per second/{s=$2} /^GET: .*requests per second/{g=$2}
    END{split(cpu, c, " "); printf "%s %s %.2f\n", s, g, (c[1] + c[2]) * 1e6 / (2 * n)}'
}
idle() { ${CLI_PIN[@]+"${CLI_PIN[@]}"} python3 scripts/idle-latency.py "$1" 200 50 | sed -E 's/^p50=([0-9.]+).*/\1/'; }

if [[ -n "${ONLY:-}" ]]; then
  kept=()
  for w in "${WORKLOADS[@]}"; do [[ " $ONLY " == *" ${w%%|*} "* ]] && kept+=("$w"); done
  WORKLOADS=("${kept[@]}")
fi
with_idle() { [[ -z "${ONLY:-}" || " $ONLY " == *" idle "* ]]; }

SERVERS=("kvs:$KVS_PORT" "redis:$REDIS_PORT")
[[ -n "${KVS_B:-}" ]] && SERVERS=("kvs:$KVS_PORT" "kvs-b:$KVS_B_PORT" "redis:$REDIS_PORT")
for s in "${SERVERS[@]}"; do # warm-up
  [[ ${s%%:*} == redis ]] && continue
  for _ in $(seq 1 "${WARMUP:-3}"); do
    for w in "${WORKLOADS[@]}"; do bench "${s#*:}" "${w#*|}" >/dev/null; done
  done
  if with_idle; then idle "${s#*:}" >/dev/null; fi
done

echo "round workload server set_rps get_rps client_us" > "$OUT/raw.txt"
for r in $(seq 1 "$ROUNDS"); do
  for w in "${WORKLOADS[@]}"; do
    for s in "${SERVERS[@]}"; do echo "$r ${w%%|*} ${s%%:*} $(bench "${s#*:}" "${w#*|}")" >> "$OUT/raw.txt"; done
  done
  if with_idle; then
    for s in "${SERVERS[@]}"; do echo "$r idle ${s%%:*} $(idle "${s#*:}") - -" >> "$OUT/raw.txt"; done
  fi
done

python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
b = any(r[2] == "kvs-b" for r in rows)
med = lambda w, s, i: st.median(float(r[i]) for r in rows if r[1] == w and r[2] == s)
if b:
    print("| workload | command | kvs-b (median) | kvs (median) | Redis (median) | kvs-b / Redis | kvs / Redis |")
    print("|---|---|---:|---:|---:|---:|---:|")
else:
    print("| workload | command | kvs (median) | Redis (median) | kvs / Redis |")
    print("|---|---|---:|---:|---:|")
def row(w, name, i, fmt):
    k, r = med(w, "kvs", i), med(w, "redis", i)
    if b:
        kb = med(w, "kvs-b", i)
        print(f"| {w} | {name} | {fmt(kb)} | {fmt(k)} | {fmt(r)} | {kb / r:.2f} | {k / r:.2f} |")
    else:
        print(f"| {w} | {name} | {fmt(k)} | {fmt(r)} | {k / r:.2f} |")
present = {r[1] for r in rows}
for w in ("100B-P1", "100B-P1-T2", "100B-P16", "100kB", "1MiB"):
    if w not in present: continue
    for i, cmd in ((3, "SET"), (4, "GET")):
        row(w, cmd + " req/s", i, lambda x: f"{x:,.0f}")
if "idle" in present: row("idle", "SET p50 ms", 3, lambda x: f"{x:.3f}")
servers = [s for s in ("kvs", "kvs-b", "redis") if any(r[2] == s for r in rows)]
print()
print("redis-benchmark's own CPU (user + system) per request, median µs, and the share of one core it used at the")
print("median SET rate (near 100%: the load generator, not the server, set the pace):")
for w in ("100B-P1", "100B-P1-T2", "100B-P16", "100kB", "1MiB"):
    if w not in present: continue
    cells = []
    for s in servers:
        us = med(w, s, 5)
        cells.append(f"{s} {us:.2f} µs ({us * med(w, s, 3) / 1e4:.0f}%)")
    print(f"- {w}: " + ", ".join(cells))
PY
