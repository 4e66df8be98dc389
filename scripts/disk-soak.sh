#!/usr/bin/env bash
# disk-soak.sh: the disk-bound GET (2M keys x 256 B, --memory 64mb, 50 connections, uniform, pipeline 1), run for
# longer than one compaction interval: after the load, ROUNDS consecutive GET runs of RUN_SECONDS each, one line per run
# with the rate, p99, the server's CPU, the share of CPU time the hypervisor stole, and the compaction counters (so background work that starts minutes in shows).
# Servers run one after the other, each on a fresh directory. Run from a clone after a Release build:
#   bash scripts/disk-soak.sh ours ours=/path/to/other/clone
# Environment: KEYS (default 2000000), ROUNDS (default 10), RUN_SECONDS (default 10), PORT (default 7411),
# DATA (default /tmp/disk-soak), CLIENT_ARGS (how the 50 connections are driven, default '--threads 2 --clients 25': two client threads with
# 25 connections each, as an event-loop client like memtier_benchmark; '--threads 50' gives a thread per
# connection), SEED (the first run's key seed, default 1),
# SAVE (the servers' --save rules, default "" for none; SAVE=default leaves the server's
# own default, "3600 1 300 100 60 10000", so the checkpoint after the load falls inside the runs). Text after ':' in a
# server name is passed to that server.
# Every GET run draws its keys with a seed of its own (SEED, SEED+1, ...; the same list for every server): with one seed,
# a run repeats the previous run's key sequences, and the read admission (a key's second recent miss brings it back)
# then makes later runs look faster than they are.
set -euo pipefail
cd "$(dirname "$0")/.."
SAVE=${SAVE-}; save_args=(--save "$SAVE"); [ "$SAVE" = default ] && save_args=()
KEYS=${KEYS:-2000000}; ROUNDS=${ROUNDS:-10}; SECS=${RUN_SECONDS:-10}; PORT=${PORT:-7411}; DATA=${DATA:-/tmp/disk-soak}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
CLIENT_ARGS=${CLIENT_ARGS:---threads 2 --clients 25}; FIRST_SEED=${SEED:-1}
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
cpu_seconds() { awk '{ sub(/^.*\) /, ""); print ($12 + $13) / 100 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
machine_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9 }' /proc/stat; }
steal_share() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { if (c > a) printf "%.1f", (d - b) * 100 / (c - a); else printf "0" }'; }
stat_of() { redis-cli -p $PORT info 2>/dev/null | tr -d '\r' | awk -F: -v k="$1" '$1 == k { print $2 }'; }
if ss -ltnH "sport = :$PORT" | grep -q .; then echo "port $PORT is in use"; exit 1; fi
for spec in "$@"; do
  name=${spec%%:*}; extra=""; [[ $spec == *:* ]] && extra=${spec#*:}
  root=.; [[ $name == ours=* ]] && root=${name#ours=}
  dir=$DATA/run; rm -rf "$dir"; mkdir -p "$dir"
  setsid dotnet "$root/main/GarnetServer/bin/Release/net10.0/GarnetServer.dll" --port $PORT --dir "$dir" "${save_args[@]}" --memory 64mb --loglevel warning $extra >"$dir.log" 2>&1 &
  for _ in $(seq 100); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.2; done
  PID=$(ss -ltnpH "sport = :$PORT" | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2)
  start=$(date +%s)
  $B --port $PORT --op SET --dbsize $KEYS --valuelength 256 --threads 2 --batchsize 512 --runtime 1 >/dev/null 2>&1
  for round in $(seq $ROUNDS); do
    seed=$((FIRST_SEED + round))
    c0=$(cpu_seconds $PID); read -r t0 s0 < <(machine_ticks)
    out=$($B --port $PORT --online --op-workload GET --dbsize $KEYS --valuelength 256 $CLIENT_ARGS --batchsize 1 \
           --runtime $SECS --skipload --seed $seed 2>&1 || true)
    c1=$(cpu_seconds $PID); read -r t1 s1 < <(machine_ticks)
    rate=$(echo "$out" | grep -oE "= [0-9,]+ ops/s" | head -1)
    p99=$(echo "$out" | awk '/^GET /{printf "%.1f", $6/1000}')
    printf '%-24s t=%4ss  %-16s p99 %5s ms  server cpu %5.1fs  steal %4s%%  compaction runs %s skipped %s running %s ms  saving %s changes %s\n' "$spec" \
      $(( $(date +%s) - start )) "${rate#= }" "$p99" "$(echo "$c1 - $c0" | bc)" "$(steal_share $t0 $s0 $t1 $s1)" "$(stat_of compaction_runs)" \
      "$(stat_of compaction_runs_skipped)" "$(stat_of compaction_running_ms)" "$(stat_of rdb_bgsave_in_progress)" "$(stat_of rdb_changes_since_last_save)"
  done
  kill $PID; while kill -0 $PID 2>/dev/null; do sleep 0.2; done
  rm -rf "$dir"
done
