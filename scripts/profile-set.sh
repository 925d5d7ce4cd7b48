#!/usr/bin/env bash
# Profiles a solo kvs node's request path with async-profiler while redis-benchmark drives it, and
# writes a flame graph (HTML) and the collapsed stacks (text, one stack per line with its samples).
#
#   scripts/profile-set.sh [name] [redis-benchmark options...]
#
#   name        output file names: $OUT/<name>.html and $OUT/<name>.collapsed.txt (default: set-100b-p16)
#   options     the measured run (default: -t set -d 100 -c 50 -n 1000000 -P 16 -r 100000)
#   EVENT=cpu   async-profiler event: cpu (default), alloc (allocated bytes), wall, lock
#   PREP="-t set -d 1048576 -c 4 -n 1000 -r 100"   redis-benchmark options run once first, unmeasured
#               (e.g. the SETs that make the keys a GET run reads)
#   OUT=target/profile   PORT=16390   M2_REPO=~/.m2/repository
#   KVS=./kvs   the launcher to run (e.g. another checkout's, to profile an older build)
#   KVS_JAVA_OPTS   passed to ./kvs, e.g. -Xmx2g; -XX:+DebugNonSafepoints is always added, so samples
#               inside inlined code (Chronicle's lookups) land on their own frames, not on the nearest
#               safepoint's (without it, a key hash showed at 10% of a profile where it was under 1%)
#
# The node is warmed up first (the same run, unprofiled), so the graph shows compiled code, not the
# JIT. async-profiler comes from Maven Central (tools.profiler:async-profiler, fetched with
# mvn dependency:get on first use) and is attached with jcmd (JVMTI.agent_load). Linux x64 or arm64.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=${1:-set-100b-p16}
shift || true
if [[ $# -gt 0 ]]; then ARGS=("$@"); else ARGS=(-t set -d 100 -c 50 -n 1000000 -P 16 -r 100000); fi
EVENT=${EVENT:-cpu}
OUT=${OUT:-target/profile}
PORT=${PORT:-16390}
AP_VERSION=4.2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

for tool in redis-benchmark redis-cli jcmd mvn unzip; do
  command -v $tool >/dev/null || { echo "missing $tool (redis-benchmark: apt-get install redis-tools)" >&2; exit 1; }
done

case "$(uname -m)" in
  x86_64) arch=linux-x64 ;;
  aarch64) arch=linux-arm64 ;;
  *) echo "async-profiler's Maven jar has no library for $(uname -m)" >&2; exit 1 ;;
esac
repo=${M2_REPO:-$HOME/.m2/repository}
apjar="$repo/tools/profiler/async-profiler/$AP_VERSION/async-profiler-$AP_VERSION.jar"
if [[ ! -f "$apjar" ]]; then
  mvn -q dependency:get -Dartifact=tools.profiler:async-profiler:$AP_VERSION -Dtransitive=false
fi
lib="$PWD/target/async-profiler/$arch/libasyncProfiler.so"
if [[ ! -f "$lib" ]]; then
  mkdir -p target/async-profiler
  unzip -o -q "$apjar" "$arch/*" -d target/async-profiler
fi

KVS_PID=
cleanup() { [[ -n "$KVS_PID" ]] && kill "$KVS_PID" 2>/dev/null && wait "$KVS_PID" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

KVS_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints ${KVS_JAVA_OPTS:-}" \
  "${KVS:-./kvs}" server --port "$PORT" --admin-port 0 --repl-port 0 --max-entries 2000000 > "$OUT/$NAME.kvs.log" 2>&1 &
KVS_PID=$!
for _ in $(seq 1 300); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.2; done
redis-cli -p "$PORT" PING >/dev/null || { echo "kvs did not start: $OUT/$NAME.kvs.log" >&2; exit 1; }
# the launcher execs java, so $KVS_PID is the JVM

agent() { jcmd "$KVS_PID" JVMTI.agent_load "$lib" "\"$1\"" >/dev/null; }

if [[ -n "${PREP:-}" ]]; then
  echo "preparation: redis-benchmark $PREP"
  # shellcheck disable=SC2086
  redis-benchmark -p "$PORT" -q $PREP >/dev/null 2>&1
fi
echo "warm-up: redis-benchmark ${ARGS[*]}"
redis-benchmark -p "$PORT" -q "${ARGS[@]}" >/dev/null 2>&1 || true
redis-benchmark -p "$PORT" -q "${ARGS[@]}" >/dev/null 2>&1 || true
# alloc samples by bytes (the agent's default interval) and its collapsed counts are bytes (total)
if [[ $EVENT == alloc ]]; then START="start,event=alloc"; DUMP="collapsed,total"; else START="start,event=$EVENT,interval=1ms"; DUMP=collapsed; fi
agent "$START"
echo "profiled ($EVENT): redis-benchmark ${ARGS[*]}"
redis-benchmark -p "$PORT" -q "${ARGS[@]}" 2>&1 | tr '\r' '\n' | grep 'per second' || true
agent "dump,$DUMP,file=$OUT/$NAME.collapsed.txt"
agent "stop,title=kvs $NAME ($EVENT),file=$OUT/$NAME.html"
echo "flame graph: $OUT/$NAME.html"
echo "collapsed stacks: $OUT/$NAME.collapsed.txt"
