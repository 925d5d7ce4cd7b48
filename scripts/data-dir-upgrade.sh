#!/usr/bin/env bash
# Opens a data dir written by one kvs build with another: OLD_JAR fills a fresh data dir (2,000
# strings, a hash of 3,000 fields, a set of 3,000 members), is stopped with SIGTERM (clean) or SIGKILL
# (kill), then NEW_JAR starts on it, reads everything back, writes, and its log lines about recovery and
# rewrites are printed. Needs python3's redis module (Debian: python3-redis).
#
#   scripts/data-dir-upgrade.sh OLD_JAR NEW_JAR clean|kill
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1 NEW=$2 MODE=$3
PORT=${PORT:-16510} DIR=${DIR:-target/data-dir-upgrade}
PY=/usr/bin/python3
mapfile -t JOPTS < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*')
rm -rf "$DIR" && mkdir -p "$DIR"
start() { # jar log
    java -Xmx512m "${JOPTS[@]}" -jar "$1" server --port "$PORT" --admin-port 0 --repl-port 0 \
        --data-dir "$DIR/data" > "$2" 2>&1 &
    pid=$!
    for _ in $(seq 1 150); do redis-cli -p "$PORT" PING > /dev/null 2>&1 && return; sleep 0.2; done
    echo "the node did not start: $2" >&2
    exit 1
}
start "$OLD" "$DIR/old.log"
$PY - "$PORT" <<'PY'
import redis, sys
r = redis.Redis(port=int(sys.argv[1]))
p = r.pipeline(transaction=False)
for i in range(2000): p.set(f"s{i}", f"value-{i}" * 10)
for i in range(3000): p.hset("h", f"f{i}", f"v{i}")
for i in range(3000): p.sadd("set", f"m{i}")
p.execute()
print("old build wrote:", r.dbsize(), "keys,", r.hlen("h"), "fields,", r.scard("set"), "members")
PY
if [ "$MODE" = clean ]; then kill "$pid"; else kill -9 "$pid"; fi
wait "$pid" || true
start "$NEW" "$DIR/new.log"
$PY - "$PORT" <<'PY'
import redis, sys
r = redis.Redis(port=int(sys.argv[1]))
ok = all(r.get(f"s{i}") == (f"value-{i}" * 10).encode() for i in range(2000))
ok = ok and r.hlen("h") == 3000 and all(r.hget("h", f"f{i}") == f"v{i}".encode() for i in range(3000))
ok = ok and r.scard("set") == 3000 and all(r.sismember("set", f"m{i}") for i in range(3000))
r.hset("h", "after", "x"); r.sadd("set", "after"); r.set("after", "y")
ok = ok and r.hget("h", "after") == b"x" and r.sismember("set", "after") and r.get("after") == b"y"
print("new build read:", r.dbsize(), "keys,", r.hlen("h"), "fields,", r.scard("set"), "members; all there and writable:", ok)
sys.exit(0 if ok else 1)
PY
kill "$pid"
wait "$pid" || true
grep -E "rewritten|recovering .*after|after a crash|fenced" "$DIR/new.log" || true
