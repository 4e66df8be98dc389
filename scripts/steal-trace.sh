#!/usr/bin/env bash
# steal-trace.sh: when the hypervisor takes this VM's vCPUs away. Samples the machine's steal ticks (/proc/stat, 10 ms
# each) every 5 ms for SECONDS_TO_RUN seconds (default 2) and prints each moment they rose, in ms since the start,
# with the ticks stolen; then the steal share of the whole time. Run it beside a benchmark: on a host that caps the VM's
# CPU, steal comes in 10-20 ms slices on a 100 ms grid while both vCPUs are busy, and every request in flight then waits
# that long (docs/performance.md, "Method").
set -euo pipefail
DURATION=${SECONDS_TO_RUN:-2}
steal() { awk '/^cpu / { print $9; exit }' /proc/stat; }
total() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t; exit }' /proc/stat; }
start=$(date +%s%N); t0=$(total); s0=$(steal); prev=$s0
end=$(( start + DURATION * 1000000000 ))
while [ "$(date +%s%N)" -lt "$end" ]; do
  sleep 0.005
  s=$(steal)
  if [ "$s" != "$prev" ]; then
    printf '%6d ms  +%d ticks stolen\n' $(( ($(date +%s%N) - start) / 1000000 )) $(( s - prev ))
    prev=$s
  fi
done
t1=$(total)
awk -v a="$t0" -v b="$s0" -v c="$t1" -v d="$prev" 'BEGIN { if (c > a) printf "steal: %.1f%% of the CPU time over the run\n", (d - b) * 100 / (c - a) }'
