#!/usr/bin/env bash
# Runs the default test suite (everything except the Stress and Faults categories) on a fresh machine:
# installs redis-cli (Debian's redis-tools) if missing, builds, tests, and prints one summary line.
# Usage: bash scripts/test.sh [extra dotnet test args]    e.g. --filter "TestCategory=Stress" for soak runs, --filter "TestCategory=Faults" for the fault tests
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-cli >/dev/null 2>&1; then
  echo "installing redis-tools (redis-cli) ..."
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-tools >/dev/null
fi

FILTER="TestCategory!=Stress&TestCategory!=Faults"
for a in "$@"; do [ "$a" = "--filter" ] && FILTER=""; done

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
set +e
dotnet test Garnet.sln -c Release ${FILTER:+--filter "$FILTER"} "$@" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
set -e

# dotnet test prints "Passed!  - Failed: 0, Passed: 75, Skipped: 0, Total: 75" per test assembly: add them up.
awk '/(Passed|Failed)! +- Failed:/ {
       gsub(",", ""); for (i = 1; i <= NF; i++) { if ($i == "Failed:") f += $(i+1); if ($i == "Passed:") p += $(i+1); if ($i == "Skipped:") s += $(i+1) }
       n++ }
     END { if (n == 0) { print "tests: no test summary found"; exit 0 } printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$LOG"
exit "$rc"
