#!/usr/bin/env bash
# memory-per-element.sh: bytes per collection element, ours next to Debian's redis-server, on the same machine.
#
# Usage: bash scripts/memory-per-element.sh [-w] [-s SCALE] [-o ours|redis|both] [-d DATASETS]
#   -s SCALE     divide every data set's size by SCALE (default 1: the full sizes below; 10 for a quick look)
#   -o WHICH     which servers to measure (default: both)
#   -d DATASETS  comma list of: hash,set,zset,list (default: all four)
#   -w           warm: each server first loads a tenth of the data set under other key names, then FLUSHALL, so that
#                one-time costs (ours: code compiled on first use; Redis: allocator metadata) are not counted as data.
#                Default: cold (a fresh server, as a user would see it).
#
# Data sets (each loaded into a freshly started, empty server; elements = 1,000,000 in each):
#   hash  100,000 hashes of 10 small fields   HSET h:N f0 vN-0 ... f9 vN-9       (fields 2 bytes, values <= 10)
#   set   100,000 sets of 10 integers         SADD s:N 10N+0 ... 10N+9
#   zset  one sorted set of 1,000,000 members ZADD z SCORE m:N ... (members 3-9 bytes, scores N*1.5)
#   list  one list of 1,000,000 16-byte items RPUSH l item:00000000001 ...
#
# Per server and data set it prints the growth of VmRSS (/proc/PID/status) and of INFO memory's used_memory from
# just before loading to after it, each divided by the element count. Both servers get MEMORY PURGE and a short
# settle before each reading (ours: a full compacting GC that returns free memory; Redis: jemalloc's purge).
# RSS is the figure to compare: ours' used_memory counts the log's page frames when they are allocated (at start),
# not as records fill them, so it leaves out the records' bytes in the log (56 bytes per collection key here).
# Load is generated with awk as RESP and sent with `redis-cli --pipe`.
# Ours: main/GarnetServer/bin/Release/net10.0/GarnetServer.dll (build first:
#   dotnet build -c Release main/GarnetServer), run with --memory 8gb so nothing leaves memory, --save "".
# Redis: /usr/bin/redis-server --save '' --appendonly no --port 6399. Other ports: OURS_PORT=... REDIS_PORT=... in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."

SCALE=1
WARM=0
WHICH=both
DATASETS=hash,set,zset,list
usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while getopts "s:o:d:wh" opt; do
  case $opt in
    w) WARM=1 ;; s) SCALE=$OPTARG ;; o) WHICH=$OPTARG ;; d) DATASETS=$OPTARG ;; h) usage 0 ;; *) usage ;;
  esac
done

REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
CLI=${REDIS_CLI:-/usr/bin/redis-cli}
DLL=${GARNET_DLL:-main/GarnetServer/bin/Release/net10.0/GarnetServer.dll}
OURS_PORT=${OURS_PORT:-6380}
REDIS_PORT=${REDIS_PORT:-6399}
[ -x "$CLI" ] || { echo "redis-cli not found at $CLI (apt-get install redis-tools)" >&2; exit 1; }
if [ "$WHICH" != redis ] && [ ! -f "$DLL" ]; then echo "$DLL not found: dotnet build -c Release main/GarnetServer" >&2; exit 1; fi
if [ "$WHICH" != ours ] && [ ! -x "$REDIS_SERVER" ]; then echo "redis-server not found at $REDIS_SERVER" >&2; exit 1; fi

TMP=$(mktemp -d)
PID=
cleanup() { if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi; rm -rf "$TMP"; }
trap cleanup EXIT

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
used_memory() { "$CLI" -p "$1" info memory | tr -d '\r' | awk -F: '$1 == "used_memory" { print $2 }'; }

# Generates the RESP commands of a data set on stdout (keys prefixed with $2).
generate() {
  local kind=$1 prefix=${2:-} n
  case $kind in
    hash) n=$((100000 / SCALE)) ;; set) n=$((100000 / SCALE)) ;; *) n=$((1000000 / SCALE)) ;;
  esac
  awk -v kind="$kind" -v n="$n" -v p="$prefix" '
    function bulk(s) { return "$" length(s) "\r\n" s "\r\n" }
    BEGIN {
      ORS = ""
      if (kind == "hash") {
        for (k = 0; k < n; k++) {
          out = "*22\r\n" bulk("HSET") bulk(p "h:" k)
          for (i = 0; i < 10; i++) out = out bulk("f" i) bulk("v" k "-" i)
          print out
        }
      } else if (kind == "set") {
        for (k = 0; k < n; k++) {
          out = "*12\r\n" bulk("SADD") bulk(p "s:" k)
          for (i = 0; i < 10; i++) out = out bulk(k * 10 + i)
          print out
        }
      } else if (kind == "zset") {
        for (k = 0; k < n; k += 100) {
          m = (n - k < 100) ? n - k : 100
          out = "*" (2 + 2 * m) "\r\n" bulk("ZADD") bulk(p "z")
          for (i = k; i < k + m; i++) out = out bulk(sprintf("%.1f", i * 1.5)) bulk("m:" i)
          print out
        }
      } else {
        for (k = 0; k < n; k += 100) {
          m = (n - k < 100) ? n - k : 100
          out = "*" (2 + m) "\r\n" bulk("RPUSH") bulk(p "l")
          for (i = k; i < k + m; i++) out = out bulk(sprintf("item:%011d", i))
          print out
        }
      }
    }'
}

elements() { case $1 in hash|set) echo $((100000 / SCALE * 10)) ;; *) echo $((1000000 / SCALE)) ;; esac; }

start_server() {
  local which=$1 port
  [ "$which" = ours ] && port=$OURS_PORT || port=$REDIS_PORT
  if "$CLI" -p "$port" ping >/dev/null 2>&1; then echo "port $port is already served: stop that server first" >&2; exit 1; fi
  rm -rf "$TMP/data"; mkdir -p "$TMP/data"
  if [ "$which" = ours ]; then
    dotnet "$DLL" --port $OURS_PORT --dir "$TMP/data" --save "" --memory 8gb --loglevel warning >"$TMP/server.log" 2>&1 &
    PID=$!; PORT=$OURS_PORT
  else
    "$REDIS_SERVER" --port $REDIS_PORT --save '' --appendonly no --dir "$TMP/data" --loglevel warning >"$TMP/server.log" 2>&1 &
    PID=$!; PORT=$REDIS_PORT
  fi
  for _ in $(seq 1 300); do
    kill -0 "$PID" 2>/dev/null || { cat "$TMP/server.log" >&2; echo "$which did not start" >&2; exit 1; }
    if "$CLI" -p "$PORT" ping 2>/dev/null | grep -q PONG; then
      sleep 0.2
      kill -0 "$PID" 2>/dev/null || { cat "$TMP/server.log" >&2; echo "$which exited after start (port $PORT taken?)" >&2; exit 1; }
      return 0
    fi
    sleep 0.1
  done
  echo "$which did not answer PING" >&2; exit 1
}

stop_server() {
  "$CLI" -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
}

settle() { sleep 1; "$CLI" -p "$PORT" memory purge >/dev/null; sleep 1; }

declare -A RSS USED ENC
IFS=, read -ra SETS <<<"$DATASETS"
SERVERS=(); [ "$WHICH" != redis ] && SERVERS+=(ours); [ "$WHICH" != ours ] && SERVERS+=(redis)
for kind in "${SETS[@]}"; do
  generate "$kind" >"$TMP/$kind.resp"
  SCALE=$((SCALE * 10)) generate "$kind" warm: >"$TMP/$kind.warm"
  n=$(elements "$kind")
  for which in "${SERVERS[@]}"; do
    start_server "$which"
    if [ "$WARM" = 1 ]; then
      "$CLI" -p "$PORT" --pipe <"$TMP/$kind.warm" >/dev/null 2>&1
      "$CLI" -p "$PORT" flushall >/dev/null
    fi
    settle
    rss0=$(rss_kb "$PID"); used0=$(used_memory "$PORT")
    t0=$(date +%s.%N)
    "$CLI" -p "$PORT" --pipe <"$TMP/$kind.resp" >"$TMP/pipe.out" 2>&1 || { cat "$TMP/pipe.out" >&2; exit 1; }
    grep -q "errors: 0," "$TMP/pipe.out" || { cat "$TMP/pipe.out" >&2; echo "$which: load of $kind had errors" >&2; exit 1; }
    t1=$(date +%s.%N)
    settle
    rss1=$(rss_kb "$PID"); used1=$(used_memory "$PORT")
    case $kind in hash) key=h:0 ;; set) key=s:0 ;; zset) key=z ;; list) key=l ;; esac
    ENC[$which,$kind]=$("$CLI" -p "$PORT" object encoding "$key" | tr -d '\r')
    RSS[$which,$kind]=$(awk -v a="$rss0" -v b="$rss1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1024 / n }')
    USED[$which,$kind]=$(awk -v a="$used0" -v b="$used1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / n }')
    printf '%-6s %-5s loaded %d elements in %.1f s: RSS %s -> %s KB, used_memory %s -> %s\n' "$which" "$kind" "$n" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$rss0" "$rss1" "$used0" "$used1" >&2
    stop_server
  done
done

echo
echo "Bytes per element (growth / elements; scale 1/$SCALE; $([ "$WARM" = 1 ] && echo warm || echo cold))"
printf '| %-32s |' "data set"
for which in "${SERVERS[@]}"; do printf ' %-8s RSS | %-8s used_memory | %-8s encoding |' "$which" "$which" "$which"; done
echo
printf '|%s|' "$(printf -- '-%.0s' $(seq 1 34))"
for _ in "${SERVERS[@]}"; do printf -- '---:|---:|---|'; done
echo
for kind in "${SETS[@]}"; do
  case $kind in
    hash) label="$((100000 / SCALE)) hashes x 10 small fields" ;; set) label="$((100000 / SCALE)) sets x 10 integers" ;;
    zset) label="1 zset x $((1000000 / SCALE)) members" ;; list) label="1 list x $((1000000 / SCALE)) 16-byte items" ;;
  esac
  printf '| %-32s |' "$label"
  for which in "${SERVERS[@]}"; do printf ' %12s | %20s | %17s |' "${RSS[$which,$kind]}" "${USED[$which,$kind]}" "${ENC[$which,$kind]}"; done
  echo
done
