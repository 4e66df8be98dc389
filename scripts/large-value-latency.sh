#!/usr/bin/env bash
# large-value-latency.sh: large-value latency, ours and redis-server side by side. Starts a fresh redis-server
# (no maxmemory: with 256mb it refuses the 512 MB SET with OOM, as its query buffer counts) and a fresh GarnetServer from this clone's Release build (--memory 256mb), runs
# scripts/large-value-latency.py against each (SET of 512 MB, GET of it back, HSET and XADD with a 100 MB field, while
# a second client PINGs every ~1 ms), prints max/p99 PING latency, the large request's time and peak resident memory,
# then stops both servers. Build first: dotnet build main/GarnetServer -c Release.
#   bash scripts/large-value-latency.sh [python script args, e.g. --mb 512 --cases set,get]
# Environment: REDIS_PORT (default 7411), OURS_PORT (default 7412), OURS_DLL (another build of ours, e.g. an older
# commit's, to compare before and after), OURS_ARGS / REDIS_ARGS (extra
# arguments for each), SKIP_REDIS=1, SKIP_OURS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
RP=${REDIS_PORT:-7411}; OP=${OURS_PORT:-7412}
DLL=${OURS_DLL:-main/GarnetServer/bin/Release/net10.0/GarnetServer.dll}
[ -f "$DLL" ] || { echo "build main/GarnetServer -c Release first" >&2; exit 2; }
DATA=$(mktemp -d /tmp/lvlat.XXXXXX)
OURS_PID=
cleanup() {
  redis-cli -p "$RP" shutdown nosave >/dev/null 2>&1 || true
  [ -n "$OURS_PID" ] && kill "$OURS_PID" 2>/dev/null && wait "$OURS_PID" 2>/dev/null || true
  rm -rf "$DATA"
}
trap cleanup EXIT
wait_ping() { for _ in $(seq 100); do [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ] && return 0; sleep 0.1; done; return 1; }

if [ "${SKIP_REDIS:-0}" != 1 ]; then
  redis-server --port "$RP" --save '' --appendonly no ${REDIS_ARGS:-} --daemonize yes --dir "$DATA" >/dev/null
  wait_ping "$RP"
  echo "== redis-server $(redis-server --version | grep -oE 'v=[0-9.]+') port $RP"
  python3 scripts/large-value-latency.py --port "$RP" "$@" || true
  redis-cli -p "$RP" shutdown nosave >/dev/null 2>&1 || true
fi

[ "${SKIP_OURS:-0}" = 1 ] && exit 0
dotnet "$DLL" --port "$OP" --memory 256mb --dir "$DATA" --loglevel warning ${OURS_ARGS:-} >"$DATA/ours.log" 2>&1 &
OURS_PID=$!
wait_ping "$OP" || { cat "$DATA/ours.log"; exit 1; }
echo "== ours port $OP"
python3 scripts/large-value-latency.py --port "$OP" --pid "$OURS_PID" "$@" || true
