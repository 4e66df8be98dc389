#!/usr/bin/env bash
# disk-interleaved.sh: the disk-bound GET row for several builds of ours, interleaved. Starts every build at once
# (each on its own port and data directory, `--memory 64mb`), loads each with KEYS keys of 256 bytes, then runs the same
# GET load (50 connections, each its own key sequence) against each in turn, REPS rounds, printing throughput, p50/p99
# and the server's CPU seconds per run. Interleaving keeps the virtual disk's drift out of the comparison.
# Run from a clone after a Release build of benchmark/Resp.benchmark; arguments are clone roots with a Release build:
#   bash scripts/disk-interleaved.sh . /path/to/other/clone
# Environment: KEYS (default 2000000), RUN_SECONDS (default 6), REPS (default 3), PIPELINE (default 1),
#   MODE (empty: uniform keys; --zipf), PORT (first port, default 7500), DATA (default /tmp/disk-interleaved),
#   CLIENT_ARGS (how the 50 connections are driven, default '--threads 2 --clients 25': two client threads with
#   25 connections each, as an event-loop client like memtier_benchmark; '--threads 50' gives a thread per
#   connection), SEED (the first run's key seed, default 1).
# Every GET run draws its keys with a seed of its own (SEED, SEED+1, ...; the same list for every server): with one seed,
# a run repeats the previous run's key sequences, and the read admission (a key's second recent miss brings it back)
# then makes later runs look faster than they are.
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${KEYS:-2000000}; SECS=${RUN_SECONDS:-6}; REPS=${REPS:-3}; P=${PIPELINE:-1}; MODE=${MODE:-}
port=${PORT:-7500}; DATA=${DATA:-/tmp/disk-interleaved}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
CLIENT_ARGS=${CLIENT_ARGS:---threads 2 --clients 25}; FIRST_SEED=${SEED:-1}
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
cpu_seconds() { awk '{ sub(/^.*\) /, ""); print ($12 + $13) / 100 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
pid_of_port() { ss -ltnpH "sport = :$1" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2; }
specs=()
trap 'for s in "${specs[@]}"; do redis-cli -p "${s##*=}" shutdown nosave >/dev/null 2>&1 || true; done; sleep 1; rm -rf "$DATA"' EXIT
for root in "$@"; do
  dir=$DATA/$port; rm -rf "$dir"; mkdir -p "$dir"
  dotnet "$root/main/GarnetServer/bin/Release/net10.0/GarnetServer.dll" --port $port --dir "$dir" --save "" --memory 64mb --loglevel warning >"$dir.log" 2>&1 &
  specs+=("$root=$port"); port=$((port + 1))
done
for s in "${specs[@]}"; do
  p=${s##*=}
  for _ in $(seq 100); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.2; done
  $B --port $p --op SET --dbsize $KEYS --valuelength 256 --threads 2 --batchsize 512 --runtime 1 >/dev/null 2>&1
done
for rep in $(seq "$REPS"); do
  for s in "${specs[@]}"; do
    p=${s##*=}; pid=$(pid_of_port $p); c0=$(cpu_seconds $pid)
    out=$($B --port $p --online --op-workload GET --dbsize $KEYS --valuelength 256 $CLIENT_ARGS --batchsize $P --runtime $SECS --skipload --seed $((FIRST_SEED + rep)) $MODE 2>&1 || true)
    c1=$(cpu_seconds $pid)
    rate=$(echo "$out" | grep -oE "= [0-9,]+ ops/s" | head -1)
    lat=$(echo "$out" | awk '/^GET /{printf "p50 %.2f ms  p99 %.2f ms", $4/1000, $6/1000}')
    printf '%s %-30s %-16s %s  server cpu %.2fs\n' "$rep" "${s%=*}" "${rate#= }" "$lat" "$(echo "$c1 - $c0" | bc)"
  done
done
