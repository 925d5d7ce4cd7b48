# Sourced by the scripts that run kvs and Redis side by side (cost-per-request.sh, cpu-split.sh), from
# the repository's root. start_side_by_side KVS_PORT KVS_B_PORT REDIS_PORT (the defaults; the
# environment's KVS_PORT, KVS_B_PORT and REDIS_PORT win) starts a solo kvs node of KVS_JAR
# (kvs-cli/target/kvs.jar), a second of KVS_B_JAR if set, and redis-server (no persistence), each with
# its log in $OUT (<server>.log, or <server>.<LOG_TAG>.log if LOG_TAG is set); KVS_JAVA_OPTS and
# KVS_B_JAVA_OPTS add JVM options, split on whitespace as ./kvs splits them, and KVS_ARGS and KVS_B_ARGS
# add options of `kvs server` (e.g. --config io1.yaml). It sets PORTS and PIDS (by server name: kvs,
# kvs-b, redis) and SERVERS (in that order), kills them all on exit, and waits until each answers PING
# (fails if one does not within 60 s). stop_side_by_side stops them, for a script that starts fresh
# servers again.

start_side_by_side() {
  local jopts s
  mapfile -t jopts < <(sed -n '/^flags=(/,/^)/p' kvs | grep -o -- '--add-[a-z]*=[^ ]*') # the JVM flags of ./kvs
  declare -gA PORTS=([kvs]=${KVS_PORT:-$1} [redis]=${REDIS_PORT:-$3}) PIDS=()
  SERVERS=(kvs)
  # shellcheck disable=SC2086 # the options are split on whitespace on purpose
  java "${jopts[@]}" ${KVS_JAVA_OPTS:-} -jar "${KVS_JAR:-kvs-cli/target/kvs.jar}" server --port "${PORTS[kvs]}" \
    --admin-port 0 --repl-port 0 --max-entries 2000000 ${KVS_ARGS:-} > "$OUT/kvs${LOG_TAG:+.$LOG_TAG}.log" 2>&1 &
  PIDS[kvs]=$!
  if [[ -n "${KVS_B_JAR:-}" ]]; then
    PORTS[kvs-b]=${KVS_B_PORT:-$2}
    # shellcheck disable=SC2086
    java "${jopts[@]}" ${KVS_B_JAVA_OPTS:-} -jar "$KVS_B_JAR" server --port "${PORTS[kvs-b]}" \
      --admin-port 0 --repl-port 0 --max-entries 2000000 ${KVS_B_ARGS:-} > "$OUT/kvs-b${LOG_TAG:+.$LOG_TAG}.log" 2>&1 &
    PIDS[kvs-b]=$!
    SERVERS+=(kvs-b)
  fi
  redis-server --port "${PORTS[redis]}" --dir "$OUT" --save '' --appendonly no > "$OUT/redis${LOG_TAG:+.$LOG_TAG}.log" 2>&1 &
  PIDS[redis]=$!
  SERVERS+=(redis)
  trap 'kill ${PIDS[*]} 2>/dev/null; wait 2>/dev/null || true' EXIT INT TERM
  for s in "${SERVERS[@]}"; do
    for _ in $(seq 1 300); do redis-cli -p "${PORTS[$s]}" PING >/dev/null 2>&1 && break; sleep 0.2; done
    redis-cli -p "${PORTS[$s]}" PING >/dev/null || { echo "$s on ${PORTS[$s]} did not start: $OUT" >&2; exit 1; }
  done
}

stop_side_by_side() {
  kill "${PIDS[@]}" 2>/dev/null || true
  wait "${PIDS[@]}" 2>/dev/null || true
  trap - EXIT INT TERM
}
