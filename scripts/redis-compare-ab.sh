#!/usr/bin/env bash
# A/B of two kvs builds against Redis 7 with redis-benchmark's hash and set writes: the "before" and
# "after" kvs.jar and a redis-server run side by side, the order alternating each round (before, after,
# Redis; then Redis, after, before), and each run also gives the server's CPU per request (user+system
# of its process from /proc/PID/stat, before and after the run) and the load average at its start.
#
#   scripts/redis-compare-ab.sh BEFORE_JAR AFTER_JAR [rounds]
#   e.g. git worktree add /tmp/kvs-before <commit> && (cd /tmp/kvs-before && mvn -o -q -DskipTests package -pl kvs-cli -am)
#        scripts/redis-compare-ab.sh /tmp/kvs-before/kvs-cli/target/kvs.jar kvs-cli/target/kvs.jar 3
#
# Per run: redis-benchmark -t hset,sadd,spop -d 1024 -c 50 -r 100000 -P P -n N (P 16: N 1,000,000;
# P 1: N 400,000), so every run lasts 10 s or more; every server is warmed up first (below).
# Ports: BEFORE_PORT (16395), AFTER_PORT (16396), REDIS_PORT (16397). N16, N1, WARMUP override the
# request counts (a smoke run: N16=20000 N1=2000 WARMUP=20000). Prints the raw rows, then medians.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 ROUNDS=${3:-3}
TESTS=hset,sadd,spop
OUT=${OUT:-target/redis-compare-ab}
mkdir -p "$OUT"
: > "$OUT/warmup.txt"
declare -A PORTS=([before]=${BEFORE_PORT:-16395} [after]=${AFTER_PORT:-16396} [redis]=${REDIS_PORT:-16397})
# the JVM flags of ./kvs (Chronicle Map needs them)
mapfile -t JOPTS < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*')
java "${JOPTS[@]}" -jar "$BEFORE" server --port "${PORTS[before]}" --admin-port 0 --repl-port 0 --max-entries 2000000 > "$OUT/before.log" 2>&1 &
B=$!
java "${JOPTS[@]}" -jar "$AFTER" server --port "${PORTS[after]}" --admin-port 0 --repl-port 0 --max-entries 2000000 > "$OUT/after.log" 2>&1 &
A=$!
redis-server --port "${PORTS[redis]}" --dir "$OUT" --save '' --appendonly no > "$OUT/redis.log" 2>&1 &
R=$!
trap 'kill $B $A $R 2>/dev/null; wait 2>/dev/null || true' EXIT INT TERM
declare -A PIDS=([before]=$B [after]=$A [redis]=$R)
for p in "${PORTS[@]}"; do
  for _ in $(seq 1 300); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null || { echo "server on $p did not start: $OUT" >&2; exit 1; }
done

bench() { # server pipeline requests round -> one row
  local pid=${PIDS[$1]} load c0 c1 out
  load=$(cut -d' ' -f1 /proc/loadavg)
  c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  # by name: redis-benchmark runs its tests in its own order (SADD before HSET), not in -t's
  out=$(redis-benchmark -p "${PORTS[$1]}" -t $TESTS -d 1024 -c 50 -n "$3" -P "$2" -r 100000 -q 2>&1 \
    | tr '\r' '\n' | awk -F'[: ]+' '/per second/ { rps[$1] = $2 } END { printf "%s %s %s ", rps["HSET"], rps["SADD"], rps["SPOP"] }')
  c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  echo "$2 $4 $1 $out$(python3 -c "print(round(($c1-$c0)/$(getconf CLK_TCK)*1e6/(3*$3),2))") $load"
}

# CPU ticks of a JVM's JIT compiler threads (C1 and C2), and of the whole process.
jit_ticks() {
  local pid=$1 c=0 t
  for t in /proc/"$pid"/task/*; do
    [[ $(cat "$t/comm" 2>/dev/null) == C[12]\ Compi* ]] && c=$((c + $(awk '{print $14+$15}' "$t/stat")))
  done
  echo "$c $(awk '{print $14+$15}' "/proc/$pid/stat")"
}

# Warm-up: -P 16 runs of WARMUP requests (1,000,000) each per kvs node, one for Redis (its hash and set
# then exist, as kvs's do). A kvs node runs at least WARMUP_RUNS (3) and at most WARMUP_MAX (10), until its
# JIT is quiet: its compiler threads took under 3% of its CPU during the run. Three runs were not enough:
# in the fourth and fifth (session 34, -t sadd,spop) the compiler still took 17% and 4% of the node's CPU,
# and its CPU per request fell by a fifth from the fourth to the fifth (-XX:+PrintCompilation: 5,500 compilations in the first run,
# about 150 in the fourth).
for s in before after redis; do
  if [[ $s == redis ]]; then
    redis-benchmark -p "${PORTS[$s]}" -t $TESTS -d 1024 -c 50 -n "${WARMUP:-1000000}" -P 16 -r 100000 -q >/dev/null 2>&1
    continue
  fi
  for run in $(seq 1 "${WARMUP_MAX:-10}"); do
    read -r j0 a0 < <(jit_ticks "${PIDS[$s]}")
    redis-benchmark -p "${PORTS[$s]}" -t $TESTS -d 1024 -c 50 -n "${WARMUP:-1000000}" -P 16 -r 100000 -q >/dev/null 2>&1
    read -r j1 a1 < <(jit_ticks "${PIDS[$s]}")
    share=$(( 100 * (j1 - j0) / (a1 - a0 > 0 ? a1 - a0 : 1) ))
    echo "warm-up $s run $run: JIT $share% of the node's CPU" >> "$OUT/warmup.txt"
    (( run >= ${WARMUP_RUNS:-3} && share < 3 )) && break
  done
done
cat "$OUT/warmup.txt"
echo "pipeline round server hset sadd spop cpu_us_per_request load1" > "$OUT/raw.txt"
for P in 16 1; do
  N=$([[ $P == 16 ]] && echo "${N16:-1000000}" || echo "${N1:-400000}")
  for r in $(seq 1 "$ROUNDS"); do
    if (( r % 2 )); then order="before after redis"; else order="redis after before"; fi
    for s in $order; do bench "$s" "$P" "$N" "$r" >> "$OUT/raw.txt"; done
  done
done
cat "$OUT/raw.txt"
python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
for P in ('16', '1'):
    for i, c in enumerate(['HSET', 'SADD', 'SPOP'], start=3):
        m = {s: st.median(float(r[i]) for r in rows if r[0] == P and r[2] == s) for s in ('before', 'after', 'redis')}
        print(f"-P {P:>2} {c}: before {m['before']:.0f} after {m['after']:.0f} redis {m['redis']:.0f}"
              f"  before/redis {m['before']/m['redis']:.2f} after/redis {m['after']/m['redis']:.2f}")
    cpu = {s: st.median(float(r[6]) for r in rows if r[0] == P and r[2] == s) for s in ('before', 'after', 'redis')}
    print(f"-P {P:>2} CPU us/request (median): {cpu}")
PY
