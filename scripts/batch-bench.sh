#!/usr/bin/env bash
# batch-bench.sh: the batch-path row against several running servers, side by side: GET of 1024 keys of 32 bytes
# at pipeline 4096 from 4 connections (Resp.benchmark offline, keys loaded first), printing throughput and the server's
# CPU time per request (all its threads, from /proc). Servers take turns within each repetition (REPS, default 3), so
# noise on a shared machine hits them alike: compare within one run. Run from a clone after a Release build of
# benchmark/Resp.benchmark:
#   bash scripts/batch-bench.sh ours=6380 redis=6379 garnet=6381
# Environment: REPS (default 3), RUN_SECONDS (default 8), BATCH (default 4096), THREADS (default 4).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; SECS=${RUN_SECONDS:-8}; BATCH=${BATCH:-4096}; THREADS=${THREADS:-4}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
[ -f benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll ] || { echo "build benchmark/Resp.benchmark -c Release first" >&2; exit 2; }
[ $# -ge 1 ] || { sed -n '2,8p' "$0"; exit 2; }

cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
pid_of_port() { ss -ltnpH "sport = :$1" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2; }
hz=$(getconf CLK_TCK)

for spec in "$@"; do
  port=${spec#*=}
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] || { echo "${spec%%=*}: no server on port $port" >&2; exit 1; }
  $B --port "$port" --op GET --dbsize 1024 --valuelength 32 --threads "$THREADS" --batchsize "$BATCH" --runtime 2 >/dev/null 2>&1
done

printf '%-8s %4s %14s %12s\n' server rep "GET/s" "cpu us/op"
for rep in $(seq "$REPS"); do
  for spec in "$@"; do
    server=${spec%%=*}; port=${spec#*=}; pid=$(pid_of_port "$port")
    t0=$(cpu_ticks "$pid")
    line=$($B --port "$port" --op GET --dbsize 1024 --valuelength 32 --threads "$THREADS" --batchsize "$BATCH" --runtime "$SECS" --skipload 2>&1 | grep -E "^$THREADS +[0-9,]+ " | tail -1)
    t1=$(cpu_ticks "$pid")
    ops=$(awk '{ gsub(",", "", $2); print $2 }' <<<"$line"); rate=$(awk '{ gsub(",", "", $4); print $4 }' <<<"$line")
    printf '%-8s %4s %14s %12.3f\n' "$server" "$rep" "$rate" "$(awk -v t=$((t1 - t0)) -v hz="$hz" -v n="$ops" 'BEGIN { print t / hz * 1e6 / n }')"
  done
done
