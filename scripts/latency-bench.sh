#!/usr/bin/env bash
# latency-bench.sh: the latency rows against several running servers, side by side: GET at pipeline 1 and 10,
# and an 80/20 GET/SET mix at pipeline 1, from 50 connections (Resp.benchmark --online, 1024 keys of 32 bytes, loaded
# first). For each row and server it prints throughput, p50/p99/p99.9 in ms and the server's CPU time per request
# (all its threads, from /proc). Servers take turns within each repetition (REPS, default 2), so noise on a shared
# machine hits them alike: compare within one run. Run from a clone after a Release build of benchmark/Resp.benchmark:
#   bash scripts/latency-bench.sh ours=6380 redis=6379 garnet=6381
# Environment: REPS (default 2), RUN_SECONDS (default 8), CONNECTIONS (default 50), PIN (default 0), CLIENT_ARGS (how
# the connections are driven, default '--threads CONNECTIONS': a client thread per connection; '--threads 2 --clients 25'
# drives 50 connections from two event-loop threads, as memtier_benchmark does, which leaves the server more CPU).
# PIN=1 runs each server on the last CPU alone and the client on the others (taskset; the server's threads are moved for
# its turn and moved back after), so the figures measure the servers, not how the scheduler shares the cores between 50
# client threads and a server (docs/performance.md, "Tails over many rounds"). Add the floor (resp_floor.c) as a server to
# see the least any server can do on the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-2}; SECS=${RUN_SECONDS:-8}; CONNS=${CONNECTIONS:-50}
PIN=${PIN:-0}; CLIENT_ARGS=${CLIENT_ARGS:---threads $CONNS}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
LAST=$(( $(nproc) - 1 ))
if [ "$PIN" = 1 ]; then
  [ "$LAST" -ge 1 ] || { echo "PIN=1 needs at least 2 CPUs" >&2; exit 2; }
  B="taskset -c 0-$(( LAST - 1 )) $B"
fi
pin() { [ "$PIN" = 1 ] && taskset -a -p -c "$2" "$1" >/dev/null || true; }
[ -f benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll ] || { echo "build benchmark/Resp.benchmark -c Release first" >&2; exit 2; }
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }

cpu_seconds() { awk '{ sub(/^.*\) /, ""); print ($12 + $13) / 100 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
pid_of_port() { ss -ltnpH "sport = :$1" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2; }

for spec in "$@"; do
  port=${spec#*=}
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] || { echo "${spec%%=*}: no server on port $port" >&2; exit 1; }
  $B --port "$port" --op SET --dbsize 1024 --valuelength 32 --threads 1 --batchsize 1024 --runtime 1 >/dev/null 2>&1
done

printf '%-8s %-14s %4s %12s %9s %9s %9s %10s\n' server row rep "ops/s" "p50 ms" "p99 ms" "p99.9 ms" "cpu us/op"
for rep in $(seq "$REPS"); do
  for row in "get-p1:GET:100:1" "get-p10:GET:100:10" "get80set20-p1:GET,SET:80,20:1"; do
    IFS=: read -r name ops pct pipe <<<"$row"
    for spec in "$@"; do
      server=${spec%%=*}; port=${spec#*=}; pid=$(pid_of_port "$port")
      pin "$pid" "$LAST"
      c0=$(cpu_seconds "$pid")
      out=$($B --port "$port" --online --op-workload "$ops" --op-percent "$pct" --dbsize 1024 --valuelength 32 \
             $CLIENT_ARGS --batchsize "$pipe" --runtime "$SECS" --skipload 2>&1 || true)
      c1=$(cpu_seconds "$pid")
      pin "$pid" "0-$LAST"
      ops_total=$(echo "$out" | grep -oE '[0-9,]+ ops in' | head -1 | tr -d ', opsin')
      rate=$(echo "$out" | grep -oE '= [0-9,]+ ops/s' | head -1 | tr -d '=, ops/')
      # the summary row of the first operation: name ops mean p50 p90 p99 p99.9 ... (microseconds)
      lat=$(echo "$out" | awk -v op="${ops%%,*}" '$1 == op { printf "%9.2f %9.2f %9.2f", $4 / 1000, $6 / 1000, $7 / 1000; exit }')
      cpu=$(awk -v a="$c0" -v b="$c1" -v n="${ops_total:-0}" 'BEGIN { if (n > 0) printf "%10.2f", (b - a) * 1e6 / n; else printf "%10s", "-" }')
      printf '%-8s %-14s %4s %12s %s %s\n' "$server" "$name" "$rep" "${rate:-0}" "${lat:-        -         -         -}" "$cpu"
    done
  done
done
