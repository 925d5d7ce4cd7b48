#!/usr/bin/env bash
# Installed in the image as /opt/kvs/bin/kvs-netem: puts a WAN on the path to the other DC with tc netem,
# leaving every other flow (clients, health checks) at LAN speed. Needs root and CAP_NET_ADMIN:
#   docker compose exec -u 0 dc-main kvs-netem delay 5 dc-backup           # 5 ms one way to dc-backup
#   docker compose exec -u 0 dc-main kvs-netem --rate-mbit 100 delay 5 dc-backup
#   docker compose exec -u 0 dc-main kvs-netem show | clear
# A prio qdisc sends everything to band 1 except packets to the peers' IPv4 addresses, which a u32
# filter sends to band 3, where netem delays them (and with --rate-mbit, serializes them).
# Exit codes: 0 done, 2 bad usage or tc refused, 3 the kernel has no sch_netem.
set -euo pipefail

dev=eth0
rate_mbit=
die() { echo "kvs-netem: $*" >&2; exit 2; }
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --dev) dev="${2:?--dev needs a device}"; shift 2 ;;
    --rate-mbit) rate_mbit="${2:?--rate-mbit needs a number}"; shift 2 ;;
    -h|--help) usage ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
cmd="$1"; shift

clear_root() { tc qdisc del dev "$dev" root 2>/dev/null || true; }

case "$cmd" in
  show)
    tc qdisc show dev "$dev"
    tc filter show dev "$dev"
    ;;
  clear)
    clear_root
    ;;
  delay)
    [[ $# -ge 2 ]] || die "usage: kvs-netem delay MS PEER [PEER...]"
    ms="$1"; shift
    [[ "$ms" =~ ^[0-9]+$ ]] || die "delay is not a whole number of milliseconds: $ms"
    [[ -z "$rate_mbit" || "$rate_mbit" =~ ^[1-9][0-9]*$ ]] || die "--rate-mbit is not a positive number: $rate_mbit"
    (( $(id -u) == 0 )) || die "tc needs root: run with docker (compose) exec -u 0"
    netem=(netem delay "${ms}ms" limit 100000)
    [[ -n "$rate_mbit" ]] && netem+=(rate "${rate_mbit}mbit")
    clear_root
    tc qdisc add dev "$dev" root handle 1: prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 \
      || die "cannot add a prio qdisc on $dev (is CAP_NET_ADMIN granted: cap_add: [NET_ADMIN]?)"
    # explicit fifos: a veth's default child qdisc can inherit a queue length of 0
    tc qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit 10000
    tc qdisc add dev "$dev" parent 1:2 handle 20: pfifo limit 10000
    if ! tc qdisc add dev "$dev" parent 1:3 handle 30: "${netem[@]}"; then
      clear_root
      echo "kvs-netem: cannot add a netem qdisc: the kernel has no sch_netem (modprobe sch_netem on the host)" >&2
      exit 3
    fi
    for peer in "$@"; do
      ips="$(getent ahostsv4 "$peer" | awk '{print $1}' | sort -u)"
      [[ -n "$ips" ]] || die "cannot resolve $peer to an IPv4 address"
      for ip in $ips; do
        tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip dst "$ip/32" flowid 1:3
        echo "kvs-netem: $dev -> $peer ($ip): delay ${ms}ms${rate_mbit:+, rate ${rate_mbit}mbit}"
      done
    done
    ;;
  *)
    die "unknown command: $cmd (delay, show, clear)"
    ;;
esac
