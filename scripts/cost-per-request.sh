#!/usr/bin/env bash
# Issue 36's acceptance in one run: server CPU per request and throughput, kvs against Redis 7 side by
# side, warm, for each workload below. Per run, the server's CPU is user+system of its process from
# /proc/PID/stat before and after the redis-benchmark run, divided by the requests; the order of the
# servers alternates each round (kvs first in odd rounds, Redis first in even ones). Optionally a second
# kvs build (KVS_B_JAR) runs beside the first, for an A/B.
#
#   scripts/cost-per-request.sh [rounds=1] [workloads=set1k,get1k,set100k,get100k,hotset]
#
#   set1k    SET 1 KiB, 50 clients, -P 16, -r 100000   (N1K requests, default 6,000,000)
#   get1k    GET 1 KiB, 50 clients, -P 16, -r 100000   (N1K; reads the keys set1k wrote, or writes them first)
#   set100k  SET 100 kB, 4 clients, -r 1000            (N100K, default 300,000)
#   get100k  GET 100 kB, 4 clients, -r 1000            (N100K)
#   hotset   SET 1 KiB, 50 clients, -P 16, one key     (NHOT, default 8,000,000)
#
# KVS_JAR (kvs-cli/target/kvs.jar), KVS_B_JAR (none), KVS_JAVA_OPTS and KVS_B_JAVA_OPTS (extra JVM options
# of each kvs, split on whitespace, e.g. an A/B of one jar under two collectors), ports KVS_PORT 16391, KVS_B_PORT 16392,
# REDIS_PORT 16393, OUT target/cost-per-request. Each server is warmed with every workload once
# (WARM_FACTOR of the requests, default 0.5) before anything is measured, and a kvs again while its JIT
# compiler threads took over 2% of its CPU in the last pass (at most WARM_MAX passes, default 4: the C2
# compiles of the 100 kB SET path went on for 200,000 requests and counted as request CPU in round 1). Prints the raw rows
# (workload round server rps cpu_us load1 process), then per workload the medians and kvs/Redis ratios.
#
# PROCESSES (default 1) starts every server that many times afresh, each time warmed and measured for
# all the rounds, and prints each start's medians too. Two starts of one jar have differed by 18% in CPU
# per request for a whole run (one JVM fast, the other slow, both rounds): judge an A/B by several.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-1}
PROCESSES=${PROCESSES:-1}
IFS=, read -r -a WL <<<"${2:-set1k,get1k,set100k,get100k,hotset}"
OUT=${OUT:-target/cost-per-request}
N1K=${N1K:-6000000} N100K=${N100K:-300000} NHOT=${NHOT:-8000000}
mkdir -p "$OUT"
# shellcheck source=lib/side-by-side.sh
source scripts/lib/side-by-side.sh

opts() { # workload requests -> redis-benchmark options
  case $1 in
    set1k) echo "-t set -d 1024 -c 50 -P 16 -r 100000 -n $2" ;;
    get1k) echo "-t get -d 1024 -c 50 -P 16 -r 100000 -n $2" ;;
    set100k) echo "-t set -d 102400 -c 4 -r 1000 -n $2" ;;
    get100k) echo "-t get -d 102400 -c 4 -r 1000 -n $2" ;;
    hotset) echo "-t set -d 1024 -c 50 -P 16 -n $2" ;;
    *) echo "unknown workload $1" >&2; exit 2 ;;
  esac
}
requests() { case $1 in *100k) echo "$N100K" ;; hotset) echo "$NHOT" ;; *) echo "$N1K" ;; esac; }
prepare() { # server workload: the keys a GET reads (unmeasured)
  case $2 in
    get1k) redis-benchmark -p "${PORTS[$1]}" -t set -d 1024 -c 50 -P 16 -r 100000 -n 400000 -q >/dev/null 2>&1 ;;
    get100k) redis-benchmark -p "${PORTS[$1]}" -t set -d 102400 -c 4 -r 1000 -n 5000 -q >/dev/null 2>&1 ;;
  esac
}
bench() { # server workload round -> one row
  local pid=${PIDS[$1]} n load c0 c1 rps
  n=$(requests "$2")
  prepare "$1" "$2"
  load=$(cut -d' ' -f1 /proc/loadavg)
  c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  # shellcheck disable=SC2046
  rps=$(redis-benchmark -p "${PORTS[$1]}" $(opts "$2" "$n") -q 2>&1 | tr '\r' '\n' | grep 'per second' | awk '{print $2}' | tail -1)
  c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  echo "$2 $3 $1 $rps $(python3 -c "print(round(($c1-$c0)/$(getconf CLK_TCK)*1e6/$n,2))") $load"
}

jit_share() { # pid: JIT_SHARE = percent of the process's CPU since the last call that its JIT compiler threads
  # took (sets globals: call it directly, not in $(...), or the next call counts from the same point)
  local pid=$1 all jit
  all=$(awk '{print $14+$15}' "/proc/$pid/stat")
  jit=$(cat /proc/"$pid"/task/*/stat 2>/dev/null | awk '/\(C[12] CompilerThre/ {sub(/^.*\) /, ""); n += $12 + $13} END {print n + 0}')
  JIT_SHARE=$(python3 -c "a, j, pa, pj = $all, $jit, ${JIT_ALL[$pid]:-0}, ${JIT_JIT[$pid]:-0}; print(round(100 * (j - pj) / max(1, a - pa)))")
  JIT_ALL[$pid]=$all JIT_JIT[$pid]=$jit
}

warm() { # every server, every workload, once (unmeasured); a kvs again (up to WARM_MAX passes, default 4) while its JIT took over 2%
  local s w pass
  declare -gA JIT_ALL=() JIT_JIT=()
  for s in "${SERVERS[@]}"; do
    [[ $s == redis ]] || jit_share "${PIDS[$s]}"
    for pass in $(seq 1 "${WARM_MAX:-4}"); do
      for w in "${WL[@]}"; do
        prepare "$s" "$w"
        # shellcheck disable=SC2046
        redis-benchmark -p "${PORTS[$s]}" $(opts "$w" "$(python3 -c "print(int($(requests "$w") * ${WARM_FACTOR:-0.5}))")") -q >/dev/null 2>&1
      done
      [[ $s == redis ]] && break
      jit_share "${PIDS[$s]}"
      echo "warm-up of $s, pass $pass: its JIT took $JIT_SHARE% of its CPU" >&2
      (( JIT_SHARE > 2 )) || break
    done
  done
}
echo "workload round server rps cpu_us_per_request load1 process" > "$OUT/raw.txt"
for p in $(seq 1 "$PROCESSES"); do
  LOG_TAG=$( (( PROCESSES > 1 )) && echo "p$p" || true)
  start_side_by_side 16391 16392 16393
  warm
  for w in "${WL[@]}"; do
    for r in $(seq 1 "$ROUNDS"); do
      if (( r % 2 )); then order=("${SERVERS[@]}"); else order=(); for ((i=${#SERVERS[@]}-1; i>=0; i--)); do order+=("${SERVERS[$i]}"); done; fi
      for s in "${order[@]}"; do echo "$(bench "$s" "$w" "$(( (p - 1) * ROUNDS + r ))") $p" | tee -a "$OUT/raw.txt"; done
    done
  done
  stop_side_by_side
done
python3 - "$OUT/raw.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
for w in dict.fromkeys(r[0] for r in rows):
    m = {}
    for s in dict.fromkeys(r[2] for r in rows):
        rs = [r for r in rows if r[0] == w and r[2] == s]
        m[s] = (st.median(float(r[3]) for r in rs), st.median(float(r[4]) for r in rs))
    red = m['redis']
    line = " | ".join(f"{s} {v[0]:,.0f}/s {v[1]:.2f} us" + ("" if s == 'redis' else f" (rps x{v[0]/red[0]:.2f}, cpu x{v[1]/red[1]:.2f})") for s, v in m.items())
    print(f"{w}: {line}")
    procs = list(dict.fromkeys(r[6] for r in rows))
    if len(procs) > 1:  # each fresh start's medians: the spread between processes of one build
        for s in m:
            each = []
            for p in procs:
                rs = [r for r in rows if r[0] == w and r[2] == s and r[6] == p]
                each.append(f"{st.median(float(r[3]) for r in rs):,.0f}/s {st.median(float(r[4]) for r in rs):.2f} us")
            print(f"  {s} by process: " + ", ".join(each))
PY
