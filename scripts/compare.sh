#!/usr/bin/env bash
# compare.sh: the same redis-benchmark load against several running Redis-protocol servers, side by side.
#
# Usage: scripts/compare.sh [options] NAME=PORT [NAME=PORT ...]
#   -t TESTS      comma list of redis-benchmark tests (default: ping_mbulk,set,get,incr)
#   -r REPS       repetitions; the servers take turns in every repetition, the median is printed (default: 3)
#   -n REQUESTS   requests per run (default: 200000)
#   -P PIPELINES  comma list of pipeline depths (default: 1,16)
#   -c CLIENTS    connections (default: 50)
#   -x 'NAME=CMD ARGS'  also run an arbitrary command as a test (repeatable), e.g.
#                 -x 'hget=HGET myhash element:__rand_int__' (redis-benchmark replaces __rand_int__); run the
#                 test that fills the key first (hset here) in the same invocation
#   -m KEYS       afterwards, load KEYS keys (16-byte keys, 32-byte values) into each server and print its resident
#                 memory growth per key (FLUSHALL before and after: use throw-away servers; default: 0, skipped)
#   e.g. scripts/compare.sh -t ping_mbulk ours=6380 redis=6379
#
# The servers must already run on 127.0.0.1, e.g.
#   redis-server --port 6379 --save '' --appendonly no --daemonize yes
#   dotnet main/GarnetServer/bin/Release/net10.0/GarnetServer.dll --port 6380 --loglevel warning --dir /tmp/benchdata &
# For each test and pipeline it prints each server's median requests/s, its ratio to the FIRST server named, and,
# when the server's process can be found (ss -ltnp), its CPU time per request in microseconds (all threads). On a
# small machine the load generator competes with the servers at pipeline 1, where CPU per request is the steadier
# figure. Runs vary from one to the next on a shared machine: compare servers within one run.
# redis-benchmark and redis-cli come from Debian's redis-tools, installed with apt-get when missing.
set -euo pipefail

TESTS=ping_mbulk,set,get,incr
REPS=3
REQUESTS=200000
PIPELINES=1,16
CLIENTS=50
KEYS=0
CUSTOM=()
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while getopts "t:r:n:P:c:m:x:h" opt; do
  case $opt in
    t) TESTS=$OPTARG ;; r) REPS=$OPTARG ;; n) REQUESTS=$OPTARG ;; P) PIPELINES=$OPTARG ;;
    c) CLIENTS=$OPTARG ;; m) KEYS=$OPTARG ;; x) CUSTOM+=("$OPTARG") ;; h) usage 0 ;; *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage

if ! command -v redis-benchmark >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "redis-benchmark not found: installing redis-tools" >&2
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq redis-tools >/dev/null
fi

NAMES=(); PORTS=(); PIDS=()
for spec in "$@"; do
  name=${spec%%=*}; port=${spec#*=}
  [[ $spec == *=* && $port =~ ^[0-9]+$ ]] || { echo "not NAME=PORT: '$spec'" >&2; exit 2; }
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] || { echo "$name: no server answers PING on 127.0.0.1:$port" >&2; exit 1; }
  pid=$(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true)
  NAMES+=("$name"); PORTS+=("$port"); PIDS+=("${pid:-}")
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TICKS=$(getconf CLK_TCK)

cpu_ticks() { # user+system ticks of a process, or nothing
  [ -n "$1" ] && [ -r "/proc/$1/stat" ] && awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

requests_per_second() { # port test pipeline
  local cmd=${COMMAND_OF[$2]:-}
  if [ -n "$cmd" ]; then
    # shellcheck disable=SC2086 # the command's words are meant to split (but not glob: XADD s * f v)
    set -f
    redis-benchmark -h 127.0.0.1 -p "$1" -P "$3" -c "$CLIENTS" -n "$REQUESTS" -r 100000 -d 32 --csv $cmd 2>/dev/null |
      awk -F, 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
    set +f
    return
  fi
  redis-benchmark -h 127.0.0.1 -p "$1" -t "$2" -P "$3" -c "$CLIENTS" -n "$REQUESTS" -r 100000 -d 32 --csv 2>/dev/null |
    awk -F, 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
}

declare -A COMMAND_OF=()
for spec in "${CUSTOM[@]}"; do
  COMMAND_OF[${spec%%=*}]=${spec#*=}
  TESTS="$TESTS,${spec%%=*}"
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-12s %4s' test pipe
for n in "${NAMES[@]}"; do printf ' %12s' "$n"; done
for n in "${NAMES[@]:1}"; do printf ' %12s' "$n/${NAMES[0]}"; done
for n in "${NAMES[@]}"; do printf ' %12s' "cpu-us $n"; done
echo

IFS=, read -r -a TEST_LIST <<<"$TESTS"
IFS=, read -r -a PIPE_LIST <<<"$PIPELINES"
for test in "${TEST_LIST[@]}"; do
  for pipe in "${PIPE_LIST[@]}"; do
    for ((rep = 0; rep < REPS; rep++)); do
      for i in "${!PORTS[@]}"; do
        before=$(cpu_ticks "${PIDS[$i]}" || true)
        rps=$(requests_per_second "${PORTS[$i]}" "$test" "$pipe")
        after=$(cpu_ticks "${PIDS[$i]}" || true)
        echo "${rps:-0}" >>"$WORK/rps.$i"
        if [ -n "$before" ] && [ -n "$after" ]; then
          awk -v a="$before" -v b="$after" -v hz="$TICKS" -v n="$REQUESTS" 'BEGIN { print (b - a) / hz * 1e6 / n }' >>"$WORK/cpu.$i"
        fi
      done
    done
    printf '%-12s %4s' "$test" "$pipe"
    medians=()
    for i in "${!PORTS[@]}"; do medians+=("$(median "$WORK/rps.$i")"); printf ' %12.0f' "${medians[$i]}"; done
    for i in "${!PORTS[@]}"; do
      [ "$i" -eq 0 ] && continue
      awk -v a="${medians[$i]}" -v b="${medians[0]}" 'BEGIN { if (b > 0) printf " %12.2f", a / b; else printf " %12s", "-" }'
    done
    for i in "${!PORTS[@]}"; do
      if [ -s "$WORK/cpu.$i" ]; then printf ' %12.2f' "$(median "$WORK/cpu.$i")"; else printf ' %12s' -; fi
    done
    echo
    rm -f "$WORK"/rps.* "$WORK"/cpu.*
  done
done

[ "$KEYS" -gt 0 ] || exit 0
echo
echo "memory: $KEYS keys of 16 bytes with 32-byte values"
awk -v n="$KEYS" 'BEGIN { v = sprintf("%032d", 0); for (i = 0; i < n; i++) { k = sprintf("key:%012d", i); printf "*3\r\n$3\r\nSET\r\n$16\r\n%s\r\n$32\r\n%s\r\n", k, v } }' >"$WORK/load.resp"
for i in "${!PORTS[@]}"; do
  pid=${PIDS[$i]}
  if [ -z "$pid" ]; then echo "${NAMES[$i]}: process not found, skipped"; continue; fi
  redis-cli -p "${PORTS[$i]}" flushall >/dev/null
  before=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
  redis-cli -p "${PORTS[$i]}" --pipe <"$WORK/load.resp" >/dev/null
  sleep 2
  after=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
  keys=$(redis-cli -p "${PORTS[$i]}" dbsize)
  awk -v name="${NAMES[$i]}" -v a="$after" -v b="$before" -v k="$keys" \
    'BEGIN { printf "%-12s keys %10d  rss %9.1f MiB  %7.1f bytes/key\n", name, k, a / 1024, (k > 0) ? (a - b) * 1024 / k : 0 }'
  redis-cli -p "${PORTS[$i]}" flushall >/dev/null
done
