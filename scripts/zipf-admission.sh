#!/usr/bin/env bash
# zipf-admission.sh: how well the in-memory part of the log keeps zipf's hot keys (the read admission,
# docs/storage.md "Second chance" and "Prefetch for a read"). Each build is started with a 64 MB budget, loaded with 2M
# keys of 256 bytes, then read with zipf(0.99) GETs from 50 connections: one run at pipeline 1, ROUNDS runs at pipeline
# 16 (the steady state), one more at pipeline 1, then uniform at pipeline 16. One line per run: GET/s, p99, device reads
# per GET (INFO disk_reads over the GETs) and server CPU per GET; then disk_reads_waited_on_thread (should stay 0).
# Run from a clone after a Release build (main/GarnetServer and benchmark/Resp.benchmark):
#   bash scripts/zipf-admission.sh ours ours=/path/to/other/clone
# Environment: ROUNDS (default 4), RUN_SECONDS (default 10), KEYS (default 2000000), PORT (default 7412),
# CLIENT_ARGS (how the 50 connections are driven, default '--threads 2 --clients 25': two client threads with
# 25 connections each, as an event-loop client like memtier_benchmark; '--threads 50' gives a thread per
# connection), SEED (the first run's key seed, default 1).
# Every GET run draws its keys with a seed of its own (SEED, SEED+1, ...; the same list for every server): with one seed,
# a run repeats the previous run's key sequences, and the read admission (a key's second recent miss brings it back)
# then makes later runs look faster than they are.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}; SECS=${RUN_SECONDS:-10}; KEYS=${KEYS:-2000000}; PORT=${PORT:-7412}; DATA=${DATA:-/tmp/zipf-admission}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
CLIENT_ARGS=${CLIENT_ARGS:---threads 2 --clients 25}; FIRST_SEED=${SEED:-1}
stat_of() { redis-cli -p $PORT info stats | tr -d '\r' | awk -F: -v k="$1" '$1 == k { print $2 }'; }
cpu_of() { awk '{print ($14+$15)/100}' /proc/$1/stat; }
if ss -ltnH "sport = :$PORT" | grep -q .; then echo "port $PORT is in use"; exit 1; fi
for name in "$@"; do
  root=.; [[ $name == ours=* ]] && root=${name#ours=}
  [[ $name == ours || $name == ours=* ]] || { echo "unknown server $name"; exit 2; }
  rm -rf "$DATA"; mkdir -p "$DATA"
  dotnet "$root/main/GarnetServer/bin/Release/net10.0/GarnetServer.dll" --port $PORT --dir "$DATA" --save "" --memory 64mb \
    --loglevel warning >"$DATA.log" 2>&1 &
  for _ in $(seq 100); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.2; done
  PID=$(ss -ltnpH "sport = :$PORT" | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2)
  $B --port $PORT --op SET --dbsize $KEYS --valuelength 256 --threads 2 --batchsize 512 --runtime 1 >/dev/null 2>&1
  seed=$FIRST_SEED
  run() { # mode pipeline
    local r0 c0 out r1 c1 ops
    seed=$((seed + 1))
    r0=$(stat_of disk_reads); c0=$(cpu_of $PID)
    out=$($B --port $PORT --online --op-workload GET --dbsize $KEYS --valuelength 256 $CLIENT_ARGS --batchsize $2 \
           --runtime $SECS --skipload --seed $seed $1 2>&1 || true)
    r1=$(stat_of disk_reads); c1=$(cpu_of $PID)
    ops=$(echo "$out" | grep -oE "[0-9,]+ ops in" | head -1 | tr -d ', opsin')
    printf '%-22s %-7s p%-3s %10s GET/s  %s  %s reads/GET  %s us CPU/GET\n' "$name" "${1:---unif}" "$2" \
      "$(echo "$out" | grep -oE '= [0-9,]+ ops/s' | head -1 | tr -d '= ops/s')" \
      "$(echo "$out" | awk '/^GET /{printf "p99 %5.1f ms", $6/1000}')" \
      "$(awk -v a="$r0" -v b="$r1" -v n="${ops:-0}" 'BEGIN { if (n > 0) printf "%.3f", (b - a) / n; else print "-" }')" \
      "$(awk -v a="$c0" -v b="$c1" -v n="${ops:-0}" 'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / n; else print "-" }')"
  }
  run --zipf 1
  for _ in $(seq "$ROUNDS"); do run --zipf 16; done
  run --zipf 1
  run "" 16
  echo "$name: disk_reads_waited_on_thread $(stat_of disk_reads_waited_on_thread)"
  kill $PID; while kill -0 $PID 2>/dev/null; do sleep 0.2; done
  rm -rf "$DATA"
done
