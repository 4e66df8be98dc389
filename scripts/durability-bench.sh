#!/usr/bin/env bash
# Durability figures: checkpoint load and AOF replay time for N small keys, disk bytes per key, and SET throughput
# with --aof-fsync always / everysec / AOF off (redis-benchmark, same load for each).
# Usage: bash scripts/durability-bench.sh [N=1000000] [port=6395]   (needs redis-cli and redis-benchmark: redis-tools)
#        ONLY_THROUGHPUT=1 bash scripts/durability-bench.sh             (just the SET throughput part)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
PORT=${2:-6395}
DLL=main/GarnetServer/bin/Release/net10.0/GarnetServer.dll
[ -f "$DLL" ] || dotnet build main/GarnetServer -c Release >/dev/null
WORK=$(mktemp -d /tmp/garnet-dur-XXXX)
trap 'pkill -f "GarnetServer.dll --port $PORT" 2>/dev/null || true; rm -rf "$WORK"' EXIT

start() { # dir, extra args
  dotnet "$DLL" --port "$PORT" --dir "$1" --loglevel notice --memory 2gb "${@:2}" >"$1.log" 2>&1 &
  for _ in $(seq 1 600); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "server did not start"; cat "$1.log"; exit 1
}
stop_kill() { pkill -9 -f "GarnetServer.dll --port $PORT" || true; sleep 0.5; }

if [ -z "${ONLY_THROUGHPUT:-}" ]; then
echo "generating $N SET commands (16-byte keys, 16-byte values)"
python3 - "$N" >"$WORK/load.resp" <<'PY'
import sys
n = int(sys.argv[1]); out = sys.stdout.buffer
for i in range(n):
    k = b"key:%012d" % i; v = b"val:%012d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$16\r\n" + k + b"\r\n$16\r\n" + v + b"\r\n")
PY

echo "== checkpoint: load $N keys, SAVE, restart"
start "$WORK/cp" --save ""
t0=$(date +%s.%N); redis-cli -p "$PORT" --pipe <"$WORK/load.resp" >/dev/null; t1=$(date +%s.%N)
echo "loaded through RESP in $(echo "$t1 - $t0" | bc) s"
t0=$(date +%s.%N); redis-cli -p "$PORT" save >/dev/null; t1=$(date +%s.%N)
echo "SAVE took $(echo "$t1 - $t0" | bc) s"
size=$(stat -c %s "$WORK"/cp/checkpoint.*.rdb)
echo "checkpoint file: $size bytes = $(echo "scale=1; $size / $N" | bc) bytes/key"
redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; sleep 1
start "$WORK/cp" --save ""
grep -o "Loaded checkpoint.*" "$WORK/cp.log"
echo "DBSIZE after restart: $(redis-cli -p "$PORT" dbsize)"
stop_kill

echo "== AOF: load $N keys with --aof (everysec), SIGKILL, restart"
start "$WORK/aof" --save "" --aof
redis-cli -p "$PORT" --pipe <"$WORK/load.resp" >/dev/null
sleep 1.5
aofsize=$(cat "$WORK"/aof/appendonly.*.aof | wc -c)
echo "AOF: $aofsize bytes = $(echo "scale=1; $aofsize / $N" | bc) bytes/key"
stop_kill
start "$WORK/aof" --save "" --aof
grep -o "Replayed.*" "$WORK/aof.log"
echo "DBSIZE after restart: $(redis-cli -p "$PORT" dbsize)"
stop_kill

fi

echo "== SET throughput (redis-benchmark -t set -n 300000 -r 1000000 -c 50 -P 16)"
for mode in off everysec always; do
  args=(--save "")
  [ "$mode" != off ] && args+=(--aof --aof-fsync "$mode")
  rm -rf "$WORK/tp"; start "$WORK/tp" "${args[@]}"
  printf "%-9s " "$mode"; redis-benchmark -p "$PORT" -t set -n 300000 -r 1000000 -c 50 -P 16 -q | tr '\r' '\n' | grep -o "SET: [0-9.]* requests per second" | tail -1
  stop_kill
done
