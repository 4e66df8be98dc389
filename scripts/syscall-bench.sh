#!/usr/bin/env bash
# syscall-bench.sh: what the kernel does for each request at pipeline 1, per server, side by side: system calls per
# request (perf's syscalls:sys_enter_* tracepoints on the server's process), the server's CPU per request split into
# user and kernel time, and its threads' context switches during the run (which threads woke, and how often the busy
# one was preempted). At pipeline 1 a server's CPU is mostly the kernel's (recv, send, epoll_wait and the loopback
# wake-up of the client), so this tells whether a server costs more because it makes more calls or because its own code
# is slower (docs/performance.md, "Where a pipeline-1 request's CPU goes"). Servers take turns in every round.
#   bash scripts/syscall-bench.sh ours=6390 redis=6392
# Environment: REPS (rounds, default 2), REQUESTS (per run, default 300000), CONNECTIONS (default 50), TEST (get|set,
# default get). Needs perf (Debian: linux-perf) and redis-benchmark (redis-tools); run as root (tracepoints).
set -euo pipefail
REPS=${REPS:-2}; N=${REQUESTS:-300000}; CONNS=${CONNECTIONS:-50}; TEST=${TEST:-get}
[ $# -ge 1 ] || { sed -n '2,10p' "$0"; exit 2; }
for tool in perf redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "$tool is needed (Debian: linux-perf, redis-tools)" >&2; exit 2; }
done
pid_of_port() { ss -ltnpH "sport = :$1" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2; }
# user and system ticks of the whole process
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12, $13 }' "/proc/$1/stat"; }
# per thread: tid name voluntary involuntary (context switches)
switches() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s %s %s\n' "${t##*/}" "$(tr ' ' _ <"$t/comm")" \
      "$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status")" "$(awk '/^nonvoluntary_ctxt_switches/ { print $2 }' "$t/status")"
  done | sort
}
hz=$(getconf CLK_TCK)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for spec in "$@"; do
  redis-benchmark -p "${spec#*=}" -c 4 -n 20000 -t set -r 1024 -d 32 -q >/dev/null 2>&1 || { echo "${spec%%=*}: SET load failed" >&2; exit 1; }
done
OP=$(tr '[:lower:]' '[:upper:]' <<<"$TEST")
printf '%-8s %4s %10s %8s %8s %8s %8s %8s %8s\n' server rep "$OP/s" "calls/op" "recv" "send" "epoll" "user us" "sys us"
for rep in $(seq "$REPS"); do
  for spec in "$@"; do
    name=${spec%%=*}; port=${spec#*=}; pid=$(pid_of_port "$port")
    [ -n "$pid" ] || { echo "$name: no server on port $port" >&2; exit 1; }
    read -r u0 s0 < <(cpu_ticks "$pid"); switches "$pid" >"$tmp/before"
    perf stat -x, -e 'syscalls:sys_enter_*' -p "$pid" -o "$tmp/perf" &
    perf_pid=$!
    sleep 0.5 # perf attaches to every thread before the load starts
    line=$(redis-benchmark -p "$port" -c "$CONNS" -n "$N" -t "$TEST" -d 32 -r 1024 --csv 2>/dev/null | tail -1 | tr -d '"')
    kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
    read -r u1 s1 < <(cpu_ticks "$pid"); switches "$pid" >"$tmp/after"
    rps=$(cut -d, -f2 <<<"$line")
    # perf -x, lines: count,,event,...; recv = read/recv*, send = write/send*, epoll = epoll_wait/epoll_pwait*
    awk -F, -v n="$N" -v name="$name" -v rep="$rep" -v rps="$rps" -v hz="$hz" -v u="$((u1 - u0))" -v s="$((s1 - s0))" '
      $3 ~ /^syscalls:sys_enter_/ && $1 ~ /^[0-9]+$/ {
        call = substr($3, 20); all += $1
        if (call ~ /^(read|recvfrom|recvmsg|readv)$/) recv += $1
        else if (call ~ /^(write|sendto|sendmsg|writev)$/) send += $1
        else if (call ~ /^epoll_(p)?wait/) ep += $1
      }
      END { printf "%-8s %4s %10.0f %8.3f %8.3f %8.3f %8.3f %8.2f %8.2f\n", name, rep, rps, all / n, recv / n, send / n, ep / n,
                   u * 1e6 / hz / n, s * 1e6 / hz / n }' "$tmp/perf"
    # threads that switched during the run (tid name +voluntary +involuntary)
    join "$tmp/before" "$tmp/after" | awk -v name="$name" '{ v = $6 - $3; i = $7 - $4; if (v + i > 0) printf "    %s thread %-16s woke %7d  preempted %7d\n", name, $2, v, i }'
  done
done
