#!/usr/bin/env bash
# website-check.sh: builds the documentation site (website/, VitePress) and checks it in headless Chromium.
#   1. installs Debian's chromium if it is missing (apt), then `npm ci` in website/ (node_modules stays there, gitignored);
#   2. runs tools/DocGen --check: writes website/.gen (options, CONFIG parameters, commands JSON) and fails if
#      docs/commands.md is stale or docs/configuration.md's option table has drifted from the code;
#   3. copies docs/*.md into the site (website/scripts/prepare.mjs) and builds it (dead links fail the build);
#   4. serves the build on 127.0.0.1 and crawls it with playwright-core driving /usr/bin/chromium (no browser download):
#      every page loads without console errors, every internal link and #anchor resolves; screenshots of the home and
#      commands pages go to artifacts/website/ (gitignored; ARTIFACTS=DIR to change).
# Exits non-zero on the first failing step. Builds run under flock /tmp/garnet-build.lock (shared 2-core machines).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
lock=/tmp/garnet-build.lock

if [ ! -x /usr/bin/chromium ]; then
    echo "website-check: installing chromium (apt)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
command -v node >/dev/null || { echo "website-check: node is required (Node 20)"; exit 1; }

echo "website-check: npm ci"
(cd website && npm ci --no-audit --no-fund --loglevel=error)

echo "website-check: generators (tools/DocGen)"
flock "$lock" dotnet build tools/DocGen -c Release -nologo -v quiet -clp:ErrorsOnly
dotnet tools/DocGen/bin/Release/net10.0/DocGen.dll --check

echo "website-check: build the site"
node website/scripts/prepare.mjs
(cd website && flock "$lock" npx --no-install vitepress build docs)

echo "website-check: browser check"
node website/check/site-check.mjs

echo "website-check: OK in $(( $(date +%s) - start )) s"
