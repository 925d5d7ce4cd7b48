#!/usr/bin/env bash
# A/B of two kvs builds' write throughput on a persisted store (--data-dir): each round starts each
# build on a fresh data dir (before then after in odd rounds, after then before in even ones), warms it up with 300,000 requests of each test, then runs
#   redis-benchmark -t set,hset,sadd -n N -r 100000 -P 16 -c 50 -q
# and prints requests per second per test.
#
#   scripts/persisted-writes-ab.sh BEFORE_JAR AFTER_JAR [rounds]
# PORT (16520), N (2,000,000), DIR (target/persisted-writes-ab) override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 ROUNDS=${3:-2}
PORT=${PORT:-16520} N=${N:-2000000} DIR=${DIR:-target/persisted-writes-ab}
mapfile -t JOPTS < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*')
mkdir -p "$DIR"
for r in $(seq 1 "$ROUNDS"); do
    order=("$BEFORE" "$AFTER")
    if [ $((r % 2)) -eq 0 ]; then order=("$AFTER" "$BEFORE"); fi
    for jar in "${order[@]}"; do
        rm -rf "$DIR/data"
        java -Xmx1g "${JOPTS[@]}" -jar "$jar" server --port "$PORT" --admin-port 0 --repl-port 0 \
            --data-dir "$DIR/data" --max-entries 2000000 > "$DIR/node.log" 2>&1 &
        pid=$!
        for _ in $(seq 1 150); do redis-cli -p "$PORT" PING > /dev/null 2>&1 && break; sleep 0.2; done
        redis-cli -p "$PORT" PING > /dev/null || { echo "the node did not start: $DIR/node.log" >&2; exit 1; }
        redis-benchmark -p "$PORT" -t set,hset,sadd -n 300000 -r 100000 -P 16 -c 50 -q > /dev/null 2>&1
        rates=$(redis-benchmark -p "$PORT" -t set,hset,sadd -n "$N" -r 100000 -P 16 -c 50 -q 2>/dev/null \
            | tr '\r' '\n' | grep 'requests per second' | awk '{print $1, $2}' | tr '\n' ' ')
        echo "round $r $jar: $rates"
        kill "$pid"
        wait "$pid" || true
    done
done
rm -rf "$DIR/data"
