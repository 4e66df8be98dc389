#!/usr/bin/env bash
# pinned-bench.sh: pipeline-1 GET with each server on a CPU of its own, against several running servers, side by side.
# The server's threads are moved to the last CPU for its turn (taskset -a -p) and back after; redis-benchmark (C, one
# thread) runs on CPU 0 with 50 connections. So the scheduler no longer splits a core between the server and the client,
# and the figures measure the servers (docs/performance.md, "Tails over many rounds"). Servers take turns in every round.
# For each round and server: GET/s, p99 and max latency (ms, redis-benchmark's), and the server's CPU time per GET (all
# its threads, from /proc). GETs read 1024 keys of 32 bytes, written first. At the end, for the first server against each other one: rounds with less CPU per GET, and
# rounds with p99 at most the other's. Add resp_floor (../shared/bench/resp_floor.c) as a server to see the least any
# server can do.
#   bash scripts/pinned-bench.sh ours=6390 redis=6392 floor=6399
# Environment: REPS (rounds, default 5), REQUESTS (per run, default 1000000), CONNECTIONS (default 50), PIPELINE (default 1),
# TEST (redis-benchmark's test, default get; set measures SETs of the same 1024 keys).
set -euo pipefail
REPS=${REPS:-5}; N=${REQUESTS:-1000000}; CONNS=${CONNECTIONS:-50}; PIPE=${PIPELINE:-1}; TEST=${TEST:-get}
[ $# -ge 1 ] || { sed -n '2,12p' "$0"; exit 2; }
command -v redis-benchmark >/dev/null || { echo "redis-benchmark is needed (Debian: redis-tools)" >&2; exit 2; }
LAST=$(( $(nproc) - 1 ))
[ "$LAST" -ge 1 ] || { echo "needs at least 2 CPUs" >&2; exit 2; }

cpu_ticks() { awk '{ sub(/^.*\) /, ""); print ($12 + $13) }' "/proc/$1/stat"; }
pid_of_port() { ss -ltnpH "sport = :$1" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2; }
hz=$(getconf CLK_TCK)

# The keys GET reads (redis-benchmark's key:__rand_int__ names, 1024 of them, 32-byte values), on every server.
for spec in "$@"; do
  redis-benchmark -p "${spec#*=}" -c 4 -n 20000 -t set -r 1024 -d 32 -q >/dev/null 2>&1 || { echo "${spec%%=*}: SET load failed" >&2; exit 1; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
OP=$(tr '[:lower:]' '[:upper:]' <<<"$TEST")
printf '%-8s %4s %10s %9s %9s %12s\n' server rep "$OP/s" "p99 ms" "max ms" "cpu us/$OP"
for rep in $(seq "$REPS"); do
  for spec in "$@"; do
    name=${spec%%=*}; port=${spec#*=}; pid=$(pid_of_port "$port")
    [ -n "$pid" ] || { echo "$name: no server on port $port" >&2; exit 1; }
    taskset -a -p -c "$LAST" "$pid" >/dev/null
    c0=$(cpu_ticks "$pid")
    # CSV: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
    line=$(taskset -c 0 redis-benchmark -p "$port" -c "$CONNS" -n "$N" -t "$TEST" -d 32 -P "$PIPE" -r 1024 --csv 2>/dev/null | tail -1 | tr -d '"')
    c1=$(cpu_ticks "$pid")
    taskset -a -p -c "0-$LAST" "$pid" >/dev/null
    IFS=, read -r _ rps _ _ _ _ p99 max <<<"$line"
    cpu=$(awk -v a="$c0" -v b="$c1" -v n="$N" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz * 1e6 / n }')
    printf '%-8s %4s %10.0f %9s %9s %12s\n' "$name" "$rep" "$rps" "$p99" "$max" "$cpu"
    echo "$name $rep $cpu $p99" >>"$out"
  done
done
first=${1%%=*}
for spec in "${@:2}"; do
  other=${spec%%=*}
  awk -v a="$first" -v b="$other" '
    $1 == a { ca[$2] = $3; pa[$2] = $4 } $1 == b { cb[$2] = $3; pb[$2] = $4 }
    END { n = 0; cpu = 0; p99 = 0
          for (r in ca) if (r in cb) { n++; if (ca[r] < cb[r]) cpu++; if (pa[r] <= pb[r]) p99++ }
          printf "%s against %s: less CPU per request in %d of %d rounds; p99 at most its in %d of %d\n", a, b, cpu, n, p99, n }' "$out"
done
