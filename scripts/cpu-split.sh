#!/usr/bin/env bash
# Where a server's CPU per request goes, kvs against Redis 7 in the same run: user and system time of
# the process per request (from /proc/PID/stat), the load generator's CPU per request (redis-benchmark's
# user+system: a server whose replies come in smaller pieces costs its client more), and per request the system calls that read and write
# sockets, the epoll waits, futex calls and context switches (perf stat on tracepoints: unlike strace it
# does not slow the server, so the counts are those of a normal run). Each server is warmed with the
# same run first; the order alternates each round. Optionally a second kvs build (KVS_B_JAR) for an A/B.
#
#   scripts/cpu-split.sh [rounds=2] [redis-benchmark options, default: 100 kB SET, 4 clients, -r 1000]
#
# KVS_JAR (kvs-cli/target/kvs.jar), KVS_B_JAR (none), ports KVS_PORT 16394, KVS_B_PORT 16395,
# REDIS_PORT 16396, N requests per run (100000), WARM requests of the warm-up run (2 * N), OUT
# target/cpu-split. Needs perf (linux-tools) with
# access to tracepoints (root, or kernel.perf_event_paranoid <= -1); without it only the times print.
# Issue 36: at 100 kB SET it showed one read and one write per request for both, the same system time
# per request, and kvs's extra in user time (where kvs writes the value into cold store memory; Redis's
# read() writes it into the buffer it keeps, in system time).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
shift || true
if [[ $# -gt 0 ]]; then ARGS=("$@"); else ARGS=(-t set -d 102400 -c 4 -r 1000); fi
N=${N:-100000}
OUT=${OUT:-target/cpu-split}
mkdir -p "$OUT"
# shellcheck source=lib/side-by-side.sh
source scripts/lib/side-by-side.sh
start_side_by_side 16394 16395 16396
EVENTS=
if command -v perf >/dev/null; then
  for e in read recvfrom write sendto epoll_wait epoll_pwait epoll_pwait2 futex; do # those this kernel has
    perf stat -e "syscalls:sys_enter_$e" -- true >/dev/null 2>&1 && EVENTS+=${EVENTS:+,}syscalls:sys_enter_$e
  done
fi
PERF=${EVENTS:+1}
EVENTS+=,context-switches
[[ -n $PERF ]] || echo "perf cannot count tracepoints here: times only" >&2

bench() { # server round -> one line
  local s=$1 pid=${PIDS[$1]} tck u0 s0 u1 s1 counts="" ps=""
  tck=$(getconf CLK_TCK)
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  if [[ -n $PERF ]]; then
    perf stat -x, -e "$EVENTS" -p "$pid" -o "$OUT/perf.$s.txt" &
    ps=$!
    sleep 0.5
  fi
  # the client's CPU too (bash's time: user and system seconds of redis-benchmark)
  { TIMEFORMAT='%U %S'; time redis-benchmark -p "${PORTS[$s]}" "${ARGS[@]}" -n "$N" -q > "$OUT/bench.$s.txt" 2>&1; } 2> "$OUT/time.$s.txt"
  rps=$(tr '\r' '\n' < "$OUT/bench.$s.txt" | grep 'per second' | awk '{print $2}' | tail -1)
  if [[ -n $ps ]]; then
    kill -INT "$ps"
    wait "$ps" 2>/dev/null || true
    counts=$(awk -F, -v n="$N" '$3 ~ /syscalls|context/ && $1 ~ /^[0-9]+$/ && $1 > 0 {e=$3; sub(/syscalls:sys_enter_/, "", e); printf " %s %.2f", e, $1/n}' "$OUT/perf.$s.txt")
  fi
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  read -r cu cs < "$OUT/time.$s.txt"
  python3 -c "print('$s $2 $rps', round(($u1-$u0)/$tck*1e6/$N, 2), round(($s1-$s0)/$tck*1e6/$N, 2), round(($cu+$cs)*1e6/$N, 2), '$(cut -d' ' -f1 /proc/loadavg)' + '$counts')"
}

for s in "${SERVERS[@]}"; do redis-benchmark -p "${PORTS[$s]}" "${ARGS[@]}" -n "${WARM:-$((2 * N))}" -q >/dev/null 2>&1; done
echo "server round rps user_us sys_us client_us load1 [per request: calls, context-switches]" | tee "$OUT/raw.txt"
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then order=("${SERVERS[@]}"); else order=(); for ((i=${#SERVERS[@]}-1; i>=0; i--)); do order+=("${SERVERS[$i]}"); done; fi
  for s in "${order[@]}"; do bench "$s" "$r" | tee -a "$OUT/raw.txt"; done
done
