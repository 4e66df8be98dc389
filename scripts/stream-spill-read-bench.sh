#!/bin/bash
# XRANGE of old entries of a spilled stream (docs/performance.md, "Stream spill reads off the request thread").
# usage: scripts/stream-spill-read-bench.sh NAME path/to/GarnetServer.dll PORT [cold]
# Loads one stream of 1,000,000 entries (about 66 MB spilled at --memory 64mb), then redis-benchmark XRANGE big
# <random ID below 900000> + COUNT 10 from 50 connections at pipeline 1 and 16, with INFO's spill counters around each
# row. "cold": the spill file's pages are dropped from the page cache (posix_fadvise DONTNEED) before each row.
set -e
NAME=$1; DLL=$2; PORT=$3; COLD=${4:-}
D=$(mktemp -d /tmp/spill-bench-$NAME.XXXX)
dotnet "$DLL" --port "$PORT" --memory 64mb --dir "$D" --save "" > "$D.log" 2>&1 &
SP=$!
trap 'kill $SP 2>/dev/null; wait $SP 2>/dev/null; rm -rf "$D"' EXIT
for i in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
python3 - <<'PY' | redis-cli -p "$PORT" --pipe | tail -1
import sys
out = sys.stdout.buffer
pad = b'a' * 60
for i in range(1, 1_000_001):
    args = [b'XADD', b'big', b'%d-0' % i, b'f', pad, b'n', b'%d' % i]
    out.write(b'*%d\r\n' % len(args) + b''.join(b'$%d\r\n%s\r\n' % (len(a), a) for a in args))
PY
for P in 1 16; do
  if [ -n "$COLD" ]; then sync; python3 -c "import os; fd=os.open('$D/stream-blocks.spill', os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)"; N=$((P==1?20000:80000)); else N=$((P==1?100000:400000)); fi
  echo "== $NAME pipeline $P ${COLD:+(cold)}"
  redis-cli -p "$PORT" info stats | grep -E "stream_spill_reads|disk_reads_waited" | tr -d '\r' | tr '\n' ' '; echo
  redis-benchmark -p "$PORT" -c 50 -P $P -n $N -r 900000 -q XRANGE big __rand_int__ + COUNT 10 | sed 's/.*\r//'
  redis-cli -p "$PORT" info stats | grep -E "stream_spill_reads|disk_reads_waited" | tr -d '\r' | tr '\n' ' '; echo
done
