#!/usr/bin/env bash
# disk-bench.sh: the disk-bound GET workload against one or more servers, side by side: each server is started with
# a 64 MB memory budget on a fresh directory, loaded with KEYS keys of 256 bytes (default 2M, about 600 MB: most of it on
# disk), then read with uniform and zipf(0.99) GETs from 50 connections at pipeline 1 and 16 (each connection with its
# own key sequence), and stopped. Prints Resp.benchmark's summary line per run, the server's CPU seconds and device reads
# per GET during the reads, the share of the machine's CPU time the hypervisor stole meanwhile, its disk-read counters,
# and, after the load, its index and log memory where INFO has them.
# Run from a clone after a Release build:
#   bash scripts/disk-bench.sh ours                   # this build
#   bash scripts/disk-bench.sh ours=/path/to/other/clone garnet    # another build of ours; Garnet (dotnet tool in $GARNET_DIR)
#   bash scripts/disk-bench.sh ours 'ours:--disk-read-engine threads'   # text after ':' is passed to our server
# Environment: KEYS (default 2000000), RUN_SECONDS (per run, default 10), PORT (default 7411), DATA (default /tmp/disk-bench),
# CLIENT_ARGS (how the 50 connections are driven, default '--threads 2 --clients 25': two client threads with
# 25 connections each, as an event-loop client like memtier_benchmark; '--threads 50' gives a thread per
# connection), SEED (the first run's key seed, default 1).
# Every GET run draws its keys with a seed of its own (SEED, SEED+1, ...; the same list for every server): with one seed,
# a run repeats the previous run's key sequences, and the read admission (a key's second recent miss brings it back)
# then makes later runs look faster than they are.
# Also prints fio's 4k random-read IOPS at depth 50 on the data directory's file system when fio is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${KEYS:-2000000}; SECONDS_PER_RUN=${RUN_SECONDS:-10}; PORT=${PORT:-7411}; DATA=${DATA:-/tmp/disk-bench}
B="dotnet benchmark/Resp.benchmark/bin/Release/net10.0/Resp.benchmark.dll"
GARNET_DIR=${GARNET_DIR:-/tmp/garnet-tool}
CLIENT_ARGS=${CLIENT_ARGS:---threads 2 --clients 25}; FIRST_SEED=${SEED:-1}

cpu_seconds() { awk '{print ($14+$15)/100}' /proc/$1/stat 2>/dev/null || echo 0; }
# Every call to a server is bounded: a server that stalls under the load (Garnet did: 2 GET/s, p99 31 s) must not hang
# the script; its run then prints what it got, or that it gave no result, and the next run starts.
cli() { timeout 10 redis-cli -p $PORT "$@" 2>/dev/null; }
disk_reads() { cli info stats | tr -d '\r' | awk -F: '$1 == "disk_reads" { print $2 }' || true; }
# The machine's CPU ticks (all states) and the ticks the hypervisor stole, from /proc/stat: a VM whose host throttles it
# loses its vCPUs for 10-20 ms at a time, and every request in flight then waits that long (docs/performance.md,
# "Method").
machine_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9 }' /proc/stat; }
steal_share() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { if (c > a) printf "%.1f", (d - b) * 100 / (c - a); else printf "0" }'; }

start_server() { # name[:extra server args] -> sets PID
  local name=${1%%:*} extra="" dir=$DATA/run
  [[ $1 == *:* ]] && extra=${1#*:}
  rm -rf "$dir"; mkdir -p "$dir"
  case $name in
    ours=*) dotnet "${name#ours=}/main/GarnetServer/bin/Release/net10.0/GarnetServer.dll" --port $PORT --dir "$dir" --save "" --memory 64mb --loglevel warning $extra >"$dir.log" 2>&1 & ;;
    ours) dotnet main/GarnetServer/bin/Release/net10.0/GarnetServer.dll --port $PORT --dir "$dir" --save "" --memory 64mb --loglevel warning $extra >"$dir.log" 2>&1 & ;;
    garnet) "$GARNET_DIR/garnet-server" --port $PORT --device-type RandomAccess --storage-tier --logdir "$dir" --memory 64m --index 16m >"$dir.log" 2>&1 & ;;
    *) echo "unknown server $name"; exit 2 ;;
  esac
  for _ in $(seq 100); do
    if redis-cli -p $PORT ping >/dev/null 2>&1; then
      # the process that listens (a dotnet tool's launcher may not be it)
      PID=$(ss -ltnpH "sport = :$PORT" | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2)
      return
    fi
    sleep 0.2
  done
  echo "$name did not start"; cat "$dir.log"; exit 1
}

stop_server() { # SIGTERM, then SIGKILL after 30 s (a stalled server may not finish its shutdown)
  kill $PID 2>/dev/null || true
  for _ in $(seq 150); do kill -0 $PID 2>/dev/null || return 0; sleep 0.2; done
  echo "pid $PID did not stop within 30 s: killed"; kill -9 $PID 2>/dev/null || true
  while kill -0 $PID 2>/dev/null; do sleep 0.2; done
}

if command -v fio >/dev/null; then
  mkdir -p "$DATA"
  fio --name=rr --filename="$DATA/fio.test" --size=600M --rw=randread --bs=4k --direct=1 --iodepth=50 --ioengine=libaio \
    --runtime=$SECONDS_PER_RUN --time_based --group_reporting 2>/dev/null | grep -E "IOPS" | sed 's/^/fio depth 50: /'
  rm -f "$DATA/fio.test"
fi
if ss -ltnH "sport = :$PORT" | grep -q .; then echo "port $PORT is in use"; exit 1; fi
for name in "$@"; do
  start_server "$name"
  $B --port $PORT --op SET --dbsize $KEYS --valuelength 256 --threads 2 --batchsize 512 --runtime 1 >/dev/null 2>&1
  printf '%s after the load: %s\n' "$name" "$(cli info memory | grep -E '^store_(index|log)_memory' | tr -d '\r' | tr '\n' ' ' || true)"
  seed=$FIRST_SEED
  for mode in "" "--zipf"; do
    for p in 1 16; do
      seed=$((seed + 1))
      c0=$(cpu_seconds $PID); r0=$(disk_reads); read -r t0 s0 < <(machine_ticks)
      out=$(timeout -k 5 $((SECONDS_PER_RUN + 60)) $B --port $PORT --online --op-workload GET --dbsize $KEYS --valuelength 256 $CLIENT_ARGS --batchsize $p \
             --runtime $SECONDS_PER_RUN --skipload --seed $seed $mode 2>&1 || true)
      c1=$(cpu_seconds $PID); r1=$(disk_reads); read -r t1 s1 < <(machine_ticks)
      rate=$(echo "$out" | grep -oE "= [0-9,]+ ops/s" | head -1 || true)
      [ -n "$rate" ] || rate="no result within $((SECONDS_PER_RUN + 60)) s"
      ops=$(echo "$out" | grep -oE "[0-9,]+ ops in" | head -1 | tr -d ', opsin' || true)
      # GET ops mean p50 p90 p99 p99.9 ... (microseconds)
      lat=$(echo "$out" | awk '/^GET /{printf "p50 %.1f ms  p99 %.1f ms  p99.9 %.1f ms", $4/1000, $6/1000, $7/1000}')
      reads=$(awk -v a="$r0" -v b="$r1" -v n="${ops:-0}" 'BEGIN { if (n > 0 && a != "" && b != "") printf "  %.2f disk reads/GET", (b - a) / n }')
      printf '%-18s %-6s p%-3s %-18s %s  server cpu %.1fs%s  steal %s%%\n' "$name" "${mode:---unif}" $p "${rate#= }" "$lat" "$(echo "$c1 - $c0" | bc)" "$reads" "$(steal_share $t0 $s0 $t1 $s1)"
    done
  done
  (cli info stats | grep -E "^disk_" | tr -d '\r' | tr '\n' ' ') || true; echo
  stop_server
  rm -rf "$DATA/run"
done
