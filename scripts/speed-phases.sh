#!/usr/bin/env bash
# A server's speed, half a second at a time, under one long redis-benchmark run: requests per second
# (from redis-benchmark's running figure), the server's user and system CPU per request (from
# /proc/PID/stat) and, if perf can count tracepoints, its socket reads per request. For telling the
# server's own slow stretches from the machine's: on the 2-vCPU development VM both kvs and Redis move
# between about 700k and 950k small SETs a second for seconds at a time, at the same calls per request
# (BENCHMARKS.md, "Two speeds", session 30).
#
#   scripts/speed-phases.sh kvs|redis [seconds=25] [redis-benchmark options, default: -t set -d 100 -c 50 -P 16 -r 100000]
#
# KVS_JAR (kvs-cli/target/kvs.jar), PORT (16551), OUT (target/speed-phases). The server is warmed with
# 3,000,000 requests of the same kind first. Prints one line per half second:
# "k_req_s user_pct sys_pct cpu_us_per_request reads_per_1000_requests".
set -euo pipefail
cd "$(dirname "$0")/.."
SERVER=${1:?kvs or redis}
SECS=${2:-25}
shift 2 || shift $#
if [[ $# -gt 0 ]]; then ARGS=("$@"); else ARGS=(-t set -d 100 -c 50 -P 16 -r 100000); fi
PORT=${PORT:-16551}
OUT=${OUT:-target/speed-phases}
mkdir -p "$OUT"
mapfile -t JOPTS < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*')

case $SERVER in
  kvs) java -Xmx512m "${JOPTS[@]}" -jar "${KVS_JAR:-kvs-cli/target/kvs.jar}" server --port "$PORT" --admin-port 0 \
         --repl-port 0 --max-entries 2000000 > "$OUT/server.log" 2>&1 & ;;
  redis) redis-server --port "$PORT" --save '' --appendonly no > "$OUT/server.log" 2>&1 & ;;
  *) echo "kvs or redis, not $SERVER" >&2; exit 2 ;;
esac
PID=$!
trap 'kill $PID 2>/dev/null; wait 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 150); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.2; done
redis-benchmark -p "$PORT" "${ARGS[@]}" -n 3000000 -q >/dev/null 2>&1

PERF=
if command -v perf >/dev/null && perf stat -e syscalls:sys_enter_recvfrom -- true >/dev/null 2>&1; then
  timeout "$SECS" perf stat -I 500 -x, -e syscalls:sys_enter_recvfrom,syscalls:sys_enter_read -p "$PID" \
    -o "$OUT/perf.txt" 2>/dev/null &
  PERF=1
fi
# redis-benchmark prints its running rate every 250 ms; each line is stamped as it comes
timeout "$SECS" redis-benchmark -p "$PORT" "${ARGS[@]}" -n 1000000000 2>&1 | stdbuf -o0 tr '\r' '\n' \
  | grep --line-buffered -o 'rps=[0-9.]*' | while read -r l; do echo "$(date +%s.%N) ${l#rps=}"; done \
  > "$OUT/rps.txt" &
BENCH=$!
python3 - "$PID" "$SECS" "$OUT" "$PERF" <<'PY'
import os, sys, time
pid, secs, out, perf = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
tick = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]), int(f[12])
samples, prev, t0 = [], cpu(), time.time()
while time.time() - t0 < secs - 1:
    time.sleep(0.5)
    now = cpu()
    samples.append((time.time(), now[0] - prev[0], now[1] - prev[1]))
    prev = now
time.sleep(1)
rps = [tuple(map(float, l.split())) for l in open(f"{out}/rps.txt") if len(l.split()) == 2]
reads = []
if perf and os.path.exists(f"{out}/perf.txt"):
    per = {}
    for l in open(f"{out}/perf.txt"):
        p = l.split(",")
        if len(p) > 3 and p[1].isdigit():
            per[p[0].strip()] = per.get(p[0].strip(), 0) + int(p[1])
    reads = [per[k] for k in sorted(per, key=float)]
print("k_req_s user_pct sys_pct cpu_us_per_request reads_per_1000_requests")
for i, (t, u, s) in enumerate(samples):
    w = [r for (rt, r) in rps if t - 0.5 < rt <= t]
    if not w:
        continue
    req = sum(w) / len(w) * 0.5
    cpu_us = (u + s) / tick / req * 1e6
    r = f"{reads[i] / req * 1000:.0f}" if i < len(reads) else "-"
    print(f"{req / 500:.0f} {100 * u / tick / 0.5:.0f} {100 * s / tick / 0.5:.0f} {cpu_us:.2f} {r}")
PY
wait "$BENCH" 2>/dev/null || true
