#!/usr/bin/env bash
# bullmq-check.sh: Node.js's BullMQ run unchanged against our server: a producer, workers and QueueEvents check
# that jobs complete, a failing job retries with backoff, a delayed job waits, repeatable jobs repeat and events arrive
# through the events stream (scripts/bullmq-check.js has the checks). Exits non-zero on any failure.
# BullMQ and ioredis are installed from npm into a cache outside the repository ($BULLMQ_CACHE, default
# ~/.cache/garnet-bullmq), once per version. The server is the Release build of main/GarnetServer (built here if missing),
# started on a free port with a temporary --dir that is removed at the end.
#   bash scripts/bullmq-check.sh                 # our server
#   bash scripts/bullmq-check.sh redis           # Debian's redis-server instead, to tell our bugs from the check's
# Environment: BULLMQ_VERSION (default 6.7.0), BULLMQ_CACHE, BULLMQ_CHECKS (comma-separated subset of the checks).
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
VERSION=${BULLMQ_VERSION:-6.7.0}
CACHE=${BULLMQ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/garnet-bullmq}/$VERSION
TARGET=${1:-ours}

command -v node >/dev/null && command -v npm >/dev/null || { echo "bullmq-check: node and npm are required"; exit 2; }
if [ ! -f "$CACHE/node_modules/bullmq/package.json" ]; then
  echo "installing bullmq@$VERSION and ioredis into $CACHE ..."
  mkdir -p "$CACHE"
  echo '{"private":true}' >"$CACHE/package.json"
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error "bullmq@$VERSION" ioredis >/dev/null
fi

SERVER=main/GarnetServer/bin/Release/net10.0/GarnetServer.dll
if [ "$TARGET" = ours ] && [ ! -f "$SERVER" ]; then
  flock /tmp/garnet-build.lock dotnet build main/GarnetServer -c Release -v q -nologo >/dev/null
fi

DIR=$(mktemp -d /tmp/bullmq-check.XXXXXX)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
case $TARGET in
  ours) dotnet "$SERVER" --port "$PORT" --dir "$DIR" --save "" --loglevel warning >"$DIR/server.log" 2>&1 & ;;
  redis) redis-server --port "$PORT" --dir "$DIR" --save "" --appendonly no --loglevel warning >"$DIR/server.log" 2>&1 & ;;
  *) echo "usage: bullmq-check.sh [ours|redis]"; exit 2 ;;
esac
PID=$!
for _ in $(seq 150); do
  redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { echo "bullmq-check: the server exited"; cat "$DIR/server.log"; exit 1; }
  sleep 0.2
done

rc=0
NODE_PATH="$CACHE/node_modules" node scripts/bullmq-check.js "$PORT" || rc=$?
if [ $rc -ne 0 ] && [ -s "$DIR/server.log" ]; then echo "--- server log ---"; tail -n 40 "$DIR/server.log"; fi
echo "bullmq-check ($TARGET, bullmq $VERSION): $([ $rc -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - T0 )) s"
exit $rc
