#!/usr/bin/env bash
# Runs the default test suite (everything except the Stress and Faults categories) on a fresh machine: installs the
# programs the tests run besides our server when they are missing (Debian's redis-tools for redis-cli, and redis-server,
# which the side-by-side tests compare replies with), builds, tests, and prints one summary line.
# A test that needs a missing program fails (test/Shared/RequiredTools.cs); GARNET_TEST_ALLOW_MISSING_TOOLS=1 makes it
# skipped instead, except under CI (CI set, as .ci/run sets CI=true), where it always fails.
# Usage: bash scripts/test.sh [extra dotnet test args]    e.g. --filter "TestCategory=Stress" for soak runs, --filter "TestCategory=Faults" for the fault tests
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} ..."
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    # Debian's package starts a redis-server service on port 6379; the tests start their own on free ports.
    if [[ " ${missing[*]} " == *" redis-server "* ]]; then
      $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || $SUDO service redis-server stop >/dev/null 2>&1 || true
    fi
  else
    echo "no apt-get: install ${missing[*]} yourself; the tests that run them fail until then" \
      "(GARNET_TEST_ALLOW_MISSING_TOOLS=1 skips them instead)" >&2
  fi
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
awk '/(Passed|Failed|Skipped)! +- Failed:/ {
       gsub(",", ""); for (i = 1; i <= NF; i++) { if ($i == "Failed:") f += $(i+1); if ($i == "Passed:") p += $(i+1); if ($i == "Skipped:") s += $(i+1) }
       n++ }
     END { if (n == 0) { print "tests: no test summary found"; exit 0 } printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$LOG"
exit "$rc"
