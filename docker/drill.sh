#!/usr/bin/env bash
# Disaster drill on real containers and a real tc netem WAN: brings up dc-main, dc-backup and loadgen
# (compose.yaml), delays the traffic between the two DCs, runs `kvs drill load` through the SDK, kills
# or cuts off dc-main part way through, promotes dc-backup with ?lost=true, then classifies every
# acknowledged write with `kvs drill verify` against dc-backup. Exits with verify's exit code
# (non-zero when acknowledged writes were silently lost in sync or id-first).
#
# Usage: docker/drill.sh [options]
#   --delay-ms MS           one-way delay between the DCs (RTT = 2 x MS; 0: none)     [5]
#   --rate-mbit N           also cap the link between the DCs to N Mbit/s              [no cap]
#   --disaster D            kill-primary (SIGKILL dc-main) or cut-link (dc-main loses
#                           its network, but keeps running)                            [kill-primary]
#   --mode M                id-first, id-first-after-reply, sync or async (both nodes
#                           and the load)                                              [id-first]
#   --duration S            seconds of load                                            [30]
#   --disaster-after S      seconds into the load when the disaster strikes            [duration / 2]
#   --value-size SIZE       value size, like 1KiB or 1MiB                              [16KiB]
#   --clients N             concurrent load clients                                    [16]
#   --out DIR               where the acked writes, the verify report and logs go
#                                                                    [docker/drill-out/<time>-<disaster>-<mode>]
#   --keep                  leave the stack up afterwards (default: docker compose down -v)
# Exit code: kvs drill verify's (0: no acknowledged write silently lost), or 2 if the drill could
# not run. Needs Docker with Compose v2 and, for --delay-ms > 0, a kernel with sch_netem and sch_prio.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="${KVS_DRILL_PROJECT:-kvs-drill}"

delay_ms=5
rate_mbit=
disaster=kill-primary
mode=id-first
duration=30
disaster_after=
value_size=16KiB
clients=16
out_dir=
keep=false

log() { printf '%s drill: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'drill: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"; }
whole() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 is not a whole number: $2"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --delay-ms) need_value "$@"; whole "$1" "$2"; delay_ms="$2"; shift 2 ;;
    --rate-mbit) need_value "$@"; whole "$1" "$2"; rate_mbit="$2"; shift 2 ;;
    --disaster) need_value "$@"; disaster="$2"; shift 2 ;;
    --mode) need_value "$@"; mode="$2"; shift 2 ;;
    --duration) need_value "$@"; whole "$1" "$2"; duration="$2"; shift 2 ;;
    --disaster-after) need_value "$@"; whole "$1" "$2"; disaster_after="$2"; shift 2 ;;
    --value-size) need_value "$@"; value_size="$2"; shift 2 ;;
    --clients) need_value "$@"; whole "$1" "$2"; clients="$2"; shift 2 ;;
    --out) need_value "$@"; out_dir="$2"; shift 2 ;;
    --keep) keep=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
done

case "$disaster" in kill-primary|cut-link) ;; *) die "--disaster is not kill-primary or cut-link: $disaster" ;; esac
case "$mode" in id-first|id-first-after-reply|sync|async) ;; *) die "--mode is not id-first, id-first-after-reply, sync or async: $mode" ;; esac
(( duration >= 2 )) || die "--duration < 2: $duration"
(( clients >= 1 )) || die "--clients < 1: $clients"
[[ -z "$rate_mbit" ]] || (( rate_mbit >= 1 )) || die "--rate-mbit < 1: $rate_mbit"
disaster_after="${disaster_after:-$(( duration / 2 ))}"
(( disaster_after >= 1 && disaster_after < duration )) \
  || die "--disaster-after is not in 1..$(( duration - 1 )) (inside the load): $disaster_after"
out_dir="${out_dir:-$here/drill-out/$(date -u +%Y%m%dT%H%M%SZ)-$disaster-$mode}"

command -v docker >/dev/null 2>&1 || die "docker is not on the PATH"
docker compose version >/dev/null 2>&1 || die "needs Docker Compose v2 ('docker compose')"
docker info >/dev/null 2>&1 || die "no Docker engine answers (docker info failed)"

export KVS_MODE="$mode"
compose() { docker compose -f "$here/compose.yaml" -p "$project" "$@"; }
# In loadgen, which stays on the network whatever happens to dc-main.
in_loadgen() { compose exec -T loadgen "$@"; }
# curl ARGS in loadgen with the nodes' admin token, read from loadgen's environment (not this command line),
# and X-Kvs-Admin, which a node without a token asks of every POST.
admin_curl() {
  # shellcheck disable=SC2016 # expanded by the shell in loadgen
  in_loadgen sh -c 'exec curl -H "Authorization: Bearer $KVS_ADMIN_TOKEN" -H "X-Kvs-Admin: 1" "$@"' admin_curl "$@"
}

# The nodes' admin token: compose.yaml hands KVS_ADMIN_TOKEN to every container. The promotion comes
# from loadgen, not from the node's loopback, so without a token the node would refuse it (403).
if [[ -z "${KVS_ADMIN_TOKEN:-}" ]]; then
  KVS_ADMIN_TOKEN="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
fi
export KVS_ADMIN_TOKEN

load_pid=
# shellcheck disable=SC2317 # called by the traps
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "$load_pid" ]] && kill -0 "$load_pid" 2>/dev/null; then
    kill "$load_pid" 2>/dev/null || true
  fi
  if [[ -d "$out_dir" ]]; then
    compose logs --no-color --timestamps >"$out_dir/compose.log" 2>&1 || true
  fi
  if $keep; then
    log "stack left up (--keep); remove it with: docker compose -f $here/compose.yaml -p $project down -v"
  else
    log "tearing down"
    compose down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$out_dir"
log "mode $mode, disaster $disaster after ${disaster_after}s of ${duration}s, delay ${delay_ms}ms one way${rate_mbit:+, ${rate_mbit} Mbit/s}, $clients clients, values $value_size"
log "results in $out_dir"

log "building the image and starting dc-backup, dc-main, loadgen"
compose down -v --remove-orphans >/dev/null 2>&1 || true # a fresh stack: no state from a --keep run
compose build
compose up -d --wait --wait-timeout 180

log "waiting for dc-main to stream to dc-backup"
for ((i = 0; ; i++)); do
  if admin_curl -fsS --max-time 2 http://dc-main:8380/status 2>/dev/null \
      | grep -Eq '"state" *: *"streaming"'; then
    break
  fi
  (( i < 60 )) || die "dc-main did not reach replication state 'streaming' in 60s (see $out_dir/compose.log)"
  sleep 1
done

if (( delay_ms > 0 )); then
  rate=()
  if [[ -n "$rate_mbit" ]]; then rate=(--rate-mbit "$rate_mbit"); fi
  log "tc netem: ${delay_ms}ms each way between dc-main and dc-backup"
  # ${rate[@]+...}: an empty array is "unbound" under set -u in bash 3.2 (macOS)
  compose exec -T -u 0 dc-main kvs-netem ${rate[@]+"${rate[@]}"} delay "$delay_ms" dc-backup \
    || die "tc netem failed in dc-main (kernel without sch_netem? --delay-ms 0 runs without it)"
  compose exec -T -u 0 dc-backup kvs-netem ${rate[@]+"${rate[@]}"} delay "$delay_ms" dc-main \
    || die "tc netem failed in dc-backup"
fi

log "load: $clients clients for ${duration}s (output in $out_dir/load.log)"
in_loadgen kvs drill load \
  --endpoints dc-main:6380,dc-backup:6380 \
  --clients "$clients" \
  --value-size "$value_size" \
  --duration "${duration}s" \
  --mode "$mode" \
  --out /drill/acked.log \
  >"$out_dir/load.log" 2>&1 &
load_pid=$!

sleep "$disaster_after"
if ! kill -0 "$load_pid" 2>/dev/null; then
  tail -n 20 "$out_dir/load.log" >&2 || true
  die "the load ended before the disaster"
fi

case "$disaster" in
  kill-primary)
    log "disaster: SIGKILL dc-main"
    compose kill -s SIGKILL dc-main
    ;;
  cut-link)
    main_id="$(compose ps -q dc-main)"
    [[ -n "$main_id" ]] || die "dc-main is not running"
    # dc-main keeps running, cut off from dc-backup and from the clients alike: a DC partition
    networks="$(docker inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$main_id")"
    for net in $networks; do
      log "disaster: disconnecting dc-main from network $net"
      docker network disconnect --force "$net" "$main_id"
    done
    ;;
esac

log "promoting dc-backup (POST /promote?lost=true)"
admin_curl -fsS --max-time 30 -X POST 'http://dc-backup:8380/promote?lost=true' >"$out_dir/promote.json" \
  || die "promotion failed"
grep -Eo '"(epoch|lostCount|unfinishedCount)":[0-9]+' "$out_dir/promote.json" | awk '!seen[$0]++' | paste -sd' ' - \
  | sed 's/^/promoted: /' >&2 || true

log "waiting for the load to finish"
load_rc=0
wait "$load_pid" || load_rc=$?
load_pid=
tail -n 5 "$out_dir/load.log" >&2 || true
if (( load_rc != 0 )); then
  # without a complete acked-writes file there is nothing trustworthy to classify
  die "kvs drill load exited with $load_rc (see $out_dir/load.log)"
fi

log "verify: every acknowledged write, read back from dc-backup"
verify_rc=0
in_loadgen kvs drill verify \
  --endpoints dc-backup:6380 \
  --in /drill/acked.log \
  --mode "$mode" \
  --json /drill/verify.json \
  || verify_rc=$?

admin_curl -fsS --max-time 10 http://dc-backup:8380/lost >"$out_dir/lost.json" || true
compose cp loadgen:/drill/. "$out_dir/" >/dev/null 2>&1 || log "could not copy /drill out of loadgen"
if (( verify_rc == 0 )); then
  log "PASS: no acknowledged write was silently lost ($out_dir)"
else
  log "FAIL: kvs drill verify exited with $verify_rc ($out_dir)"
fi
exit "$verify_rc"
