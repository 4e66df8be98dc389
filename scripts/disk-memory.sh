#!/usr/bin/env bash
# disk-memory.sh: resident memory and managed allocation of our server under the disk-bound load. Starts the
# server with a 64 MB budget on a fresh directory, loads KEYS keys of 256 bytes, then runs uniform and zipf GETs from 50
# connections at pipeline 1 and 16 (RUN_SECONDS each), printing per run: GET/s, bytes allocated on the managed heap per
# command (INFO memory gc_allocated_bytes / total_commands_processed) and VmRSS; then VmRSS after the clients left, 5 s
# later, and after MEMORY PURGE (a full compacting GC), and INFO's split (index, log pages, objects, GC heap, GC committed).
# Run from a clone after a Release build:  bash scripts/disk-memory.sh [extra server args]
# Environment: KEYS (default 2000000), RUN_SECONDS (default 5), PORT (default 7413), DATA (default /tmp/disk-memory),
# CLIENT_ARGS (how the 50 connections are driven, default '--threads 2 --clients 25': two client threads with
# 25 connections each, as an event-loop client like memtier_benchmark; '--threads 50' gives a thread per
# connection), SEED (the first run's key seed, default 1).
# Every GET run draws its keys with a seed of its own (SEED, SEED+1, ...; the same list for every server): with one seed,
# a run repeats the previous run's key sequences, and the read admission (a key's second recent miss brings it back)
# then makes later runs look faster than they are.
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${KEYS:-2000000}; RUN=${RUN_SECONDS:-5}; PORT=${PORT:-7413}; DATA=${DATA:-/tmp/disk-memory}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
CLIENT_ARGS=${CLIENT_ARGS:---threads 2 --clients 25}; seed=${SEED:-1}
if ss -ltnH "sport = :$PORT" | grep -q .; then echo "port $PORT is in use"; exit 1; fi
rm -rf "$DATA"; mkdir -p "$DATA"
dotnet main/GarnetServer/bin/Release/net10.0/GarnetServer.dll --port $PORT --dir "$DATA" --save "" --memory 64mb --loglevel warning "$@" >"$DATA.log" 2>&1 &
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true; sleep 1; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.2; done
PID=$(ss -ltnpH "sport = :$PORT" | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2)
field() { redis-cli -p $PORT info "$1" | tr -d '\r' | grep "^$2:" | cut -d: -f2; }
rss() { awk '/VmRSS/{printf "%.0f MB", $2/1024}' /proc/$PID/status; }
split() { for f in store_index_memory store_log_memory store_objects_memory gc_heap_size gc_committed; do
  printf '%s %.1f MB  ' "${f%_memory}" "$(echo "$(field memory $f) / 1048576" | bc -l)"; done; echo; }
echo "empty: RSS $(rss)"
a0=$(field memory gc_allocated_bytes); c0=$(field stats total_commands_processed)
$B --port $PORT --op SET --dbsize $KEYS --valuelength 256 --threads 2 --batchsize 512 --runtime 1 >/dev/null 2>&1
a1=$(field memory gc_allocated_bytes); c1=$(field stats total_commands_processed)
echo "loaded $KEYS keys: $(( (a1 - a0) / (c1 - c0) )) B allocated per SET, RSS $(rss), peak so far $(awk '/VmHWM/{printf "%.0f MB", $2/1024}' /proc/$PID/status)"; split
for mode in "" "--zipf"; do
  for p in 1 16; do
    seed=$((seed + 1))
    a0=$(field memory gc_allocated_bytes); c0=$(field stats total_commands_processed)
    rate=$($B --port $PORT --online --op-workload GET --dbsize $KEYS --valuelength 256 $CLIENT_ARGS --batchsize $p \
           --runtime $RUN --skipload --seed $seed $mode 2>&1 | grep -oE "= [0-9,]+ ops/s" | head -1 || true)
    a1=$(field memory gc_allocated_bytes); c1=$(field stats total_commands_processed)
    printf 'GET %-6s p%-3s %-16s %5d B allocated per command  RSS %s\n' "${mode:---unif}" $p "${rate#= }" \
      $(( (a1 - a0) / (c1 - c0) )) "$(rss)"
  done
done
sleep 1; echo "clients gone: RSS $(rss)"; split
sleep 4; echo "5 s quiet (the executable gives unused GC memory back after 2 s): RSS $(rss)"; split
redis-cli -p $PORT memory purge >/dev/null; sleep 1
echo "after MEMORY PURGE: RSS $(rss), peak $(awk '/VmHWM/{printf "%.0f MB", $2/1024}' /proc/$PID/status)"; split
