#!/usr/bin/env bash
# Packs and checks the NuGet deliveries (docs/packaging.md), running the commands the documentation gives a user:
#   1. takes the checked blocks of the getting-started page (website/docs/getting-started.md; scripts/doc-blocks.py: the
#      blocks marked <!-- package-test: NAME -->) and checks that the package commands of README.md and docs/packaging.md
#      (blocks marked "same") are among them;
#   2. runs the page's embedding commands as they stand, from the clone's root, with HOME in a temporary folder so that
#      ~/GarnetApp, ~/garnet-data and the --global tool stay out of the real home (the user's NuGet.Config is copied in):
#      the pack of scripts/packages.slnf (Garnet.Common, Garnet.Storage, Garnet.Server, Garnet.Host, Garnet.Client and
#      the .NET tool garnet-cache-server, with symbol packages) into the folder feed artifacts/packages, a new console
#      app whose nuget.config names that folder, `dotnet add package Garnet.Host`; then the page's Program.cs and its
#      `dotnet run`, which must print "listening on <port>" and exit 0;
#   3. checks each package's metadata (license, repository, readme, description, dependencies) and its .snupkg;
#   4. runs the page's .NET tool commands: the pack of main/GarnetServer, `dotnet tool install --global`, then the
#      server command in the background (on a free port instead of 6379 when 6379 is taken: said in the output),
#      --version, PING/SET/GET through redis-cli, SHUTDOWN, and checks it exits 0 and made its --dir;
#   5. builds and runs samples/EmbeddedCheck, which consumes Garnet.Host and Garnet.Client from the feed (its
#      nuget.config) and checks an embedded server (exit code 0 when every check passed).
# Packages are restored into a temporary NuGet packages folder, so a re-packed 0.1.0 is never shadowed by an older
# copy in ~/.nuget/packages. The last line is "packages: N passed, N failed"; exits non-zero on the first failure.
# Usage: bash scripts/package-test.sh      (wrap in flock /tmp/garnet-build.lock on shared machines)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

FEED=$ROOT/artifacts/packages
PAGE=website/docs/getting-started.md
TMP=$(mktemp -d /tmp/garnet-package-test-XXXXXX)
export NUGET_PACKAGES=$TMP/nuget-packages
VERSION=$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' Directory.Build.props | head -1)
SERVER_PID=""
passed=0; failed=0
SCRIPT_START=$(date +%s)

log() { echo "package-test: $*"; }
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { failed=$((failed + 1)); log "FAIL $*"; echo "packages: $passed passed, $failed failed"; exit 1; }
ok() { passed=$((passed + 1)); log "ok   $*"; }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: expected '$2', got '$3'"; fi; }

if ! command -v redis-cli >/dev/null 2>&1; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-tools >/dev/null
fi

# A user's home for the documented commands: their ~ is this folder; NuGet sources as the real user has them.
USER_HOME=$TMP/home
mkdir -p "$USER_HOME/.nuget/NuGet"
[ -f "$HOME/.nuget/NuGet/NuGet.Config" ] && cp "$HOME/.nuget/NuGet/NuGet.Config" "$USER_HOME/.nuget/NuGet/"
as_user() { HOME="$USER_HOME" PATH="$USER_HOME/.dotnet/tools:$PATH" "$@"; }

# 1. the documented commands
BLOCKS=$TMP/blocks
python3 scripts/doc-blocks.py "$BLOCKS" "$PAGE" README.md docs/packaging.md >"$TMP/blocks.log" 2>&1 \
  || { cat "$TMP/blocks.log"; fail "the documented package commands (above)"; }
for b in embed embed-Program.cs embed-run tool; do [ -s "$BLOCKS/$b" ] || fail "$PAGE has no block '$b'"; done
ok "$PAGE: $(ls "$BLOCKS" | wc -l) checked blocks; README.md and docs/packaging.md show only commands among them"

# 2. embedding, as the page says
mkdir -p "$FEED"
rm -f "$FEED"/Garnet.*.nupkg "$FEED"/Garnet.*.snupkg "$FEED"/garnet-cache-server.*
start=$(date +%s)
{ cat "$BLOCKS/embed"; echo "pwd >'$TMP/appdir'"; } >"$TMP/embed.sh"   # where the block left the user: their project
as_user bash -euo pipefail "$TMP/embed.sh" >"$TMP/embed.log" 2>&1 \
  || { tail -40 "$TMP/embed.log"; fail "the page's embedding commands (log above)"; }
expect "the pack made the six packages" 6 "$(ls "$FEED"/*.nupkg | wc -l)"
APP=$(cat "$TMP/appdir")
ok "embedding commands: packed, $(basename "$APP") created, Garnet.Host added ($(( $(date +%s) - start )) s)"
cp "$BLOCKS/embed-Program.cs" "$APP/Program.cs"
start=$(date +%s)
set +e
(cd "$APP" && as_user timeout 300 bash -euo pipefail "$BLOCKS/embed-run") >"$TMP/app.log" 2>&1; rc=$?
set -e
expect "the page's Program.cs, dotnet run: exit code ($(( $(date +%s) - start )) s)" 0 "$rc"
grep -Eq '^listening on [0-9]+$' "$TMP/app.log" || { cat "$TMP/app.log"; fail "dotnet run did not print 'listening on <port>'"; }
ok "dotnet run printed '$(grep -E '^listening on' "$TMP/app.log")'"

# 3. metadata
python3 - "$FEED" "$VERSION" >"$TMP/meta.log" 2>&1 <<'PY' || { cat "$TMP/meta.log"; fail "package metadata (above)"; }
import sys, zipfile, re, os
feed, version = sys.argv[1], sys.argv[2]
expected_deps = {
    "Garnet.Common": {"Microsoft.Extensions.Logging.Abstractions"},
    "Garnet.Storage": set(),
    "Garnet.Server": {"Garnet.Common", "Garnet.Storage", "Microsoft.Extensions.Logging.Abstractions", "KeraLua", "prometheus-net"},
    "Garnet.Host": {"Garnet.Server", "Garnet.Common", "Garnet.Storage", "CommandLineParser",
                    "Microsoft.Extensions.Logging", "Microsoft.Extensions.Logging.Console"},
    "Garnet.Client": set(),
    "garnet-cache-server": set(),   # a tool carries its dependencies inside
}
errors = []
for pid, deps in expected_deps.items():
    path = os.path.join(feed, f"{pid}.{version}.nupkg")
    if not os.path.exists(path):
        errors.append(f"{pid}: {path} missing"); continue
    z = zipfile.ZipFile(path)
    nuspec = z.read(next(n for n in z.namelist() if n.endswith(".nuspec"))).decode()
    def need(cond, what):
        if not cond: errors.append(f"{pid}: {what}")
    need('<license type="expression">MIT</license>' in nuspec, "license expression MIT")
    need(re.search(r'<repository type="git" url="https?://[^"]+"', nuspec), "repository url")
    need("<readme>README.md</readme>" in nuspec and "README.md" in z.namelist(), "README.md in the package")
    need(re.search(r"<description>.{40,}</description>", nuspec, re.S), "a description")
    got = set(re.findall(r'<dependency id="([^"]+)" version="([^"]+)"', nuspec))
    got_ids = {d for d, _ in got}
    need(got_ids == deps, f"dependencies {sorted(got_ids)} != {sorted(deps)}")
    for d, v in got:
        if d.startswith("Garnet."): need(v == version or v == f"[{version}, )", f"{d} version {v}")
    if pid == "garnet-cache-server":
        need("<packageType name=\"DotnetTool\"" in nuspec, "DotnetTool package type")
        settings = [n for n in z.namelist() if n.endswith("DotnetToolSettings.xml")]
        need(settings and b'Command Name="garnet-cache-server"' in z.read(settings[0]), "command name garnet-cache-server")
    else:
        dll = [n for n in z.namelist() if n.startswith("lib/net10.0/") and n.endswith(".dll")]
        need(len(dll) == 1, f"one assembly in lib/net10.0, got {dll}")
        snupkg = path[:-6] + ".snupkg"
        need(os.path.exists(snupkg) and any(n.endswith(".pdb") for n in zipfile.ZipFile(snupkg).namelist()),
             "a .snupkg with the .pdb")
for e in errors: print(e)
sys.exit(1 if errors else 0)
PY
ok "package metadata: license, repository, readme, description, dependencies, symbols"

# 4. the tool, as the page says: every command but the server's, then the server in the background
start=$(date +%s)
grep -v '^garnet-cache-server ' "$BLOCKS/tool" >"$TMP/tool.sh"
SERVER_CMD=$(grep '^garnet-cache-server ' "$BLOCKS/tool" | head -1)
[ -n "$SERVER_CMD" ] || fail "the page's tool block starts no garnet-cache-server"
as_user bash -euo pipefail "$TMP/tool.sh" >"$TMP/tool.log" 2>&1 || { cat "$TMP/tool.log"; fail "the page's tool commands (log above)"; }
ok "tool packed and installed --global from the feed ($(( $(date +%s) - start )) s)"
expect "garnet-cache-server --version" 0 "$(as_user garnet-cache-server --version >/dev/null 2>&1; echo $?)"
PORT=$(sed -n 's/.*--port \([0-9]*\).*/\1/p' <<<"$SERVER_CMD")
[ -n "$PORT" ] || fail "no --port in '$SERVER_CMD'"
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  free=""
  for p in $(seq 16480 16580); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { free=$p; break; }; done
  [ -n "$free" ] || fail "no free port"
  log "port $PORT is taken on this machine: the server runs on $free instead"
  SERVER_CMD=${SERVER_CMD/--port $PORT/--port $free}
  PORT=$free
fi
log "running: $SERVER_CMD"
as_user bash -c "exec $SERVER_CMD" >"$TMP/server.log" 2>&1 &   # exec: SERVER_PID is the server's
SERVER_PID=$!
for _ in $(seq 1 150); do
  [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/server.log"; fail "the tool exited at start"; }
  sleep 0.2
done
expect "tool: PING" PONG "$(redis-cli -p "$PORT" ping)"
expect "tool: SET" OK "$(redis-cli -p "$PORT" set greeting hello)"
expect "tool: GET" hello "$(redis-cli -p "$PORT" get greeting)"
redis-cli -p "$PORT" shutdown >/dev/null 2>&1 || true
set +e; wait "$SERVER_PID"; rc=$?; set -e
SERVER_PID=""
expect "tool: exit code after SHUTDOWN" 0 "$rc"
DIR_ARG=$(sed -n 's/.*--dir \([^ ]*\).*/\1/p' <<<"$SERVER_CMD")
if [ -n "$DIR_ARG" ]; then
  DIR_PATH=$(HOME="$USER_HOME" bash -c "echo $DIR_ARG")
  [ -d "$DIR_PATH" ] && ok "tool: --dir $DIR_ARG made and used" || fail "tool: --dir $DIR_ARG ($DIR_PATH) was not made"
fi

# 5. the sample, from the feed
start=$(date +%s)
set +e
dotnet run --project samples/EmbeddedCheck -c Release -p:GarnetVersion="$VERSION" >"$TMP/sample.log" 2>&1; rc=$?
set -e
cat "$TMP/sample.log" | sed 's/^/  /'
expect "samples/EmbeddedCheck against Garnet.Host + Garnet.Client packages ($(( $(date +%s) - start )) s)" 0 "$rc"
rm -rf samples/EmbeddedCheck/bin samples/EmbeddedCheck/obj

log "total $(( $(date +%s) - SCRIPT_START )) s"
echo "packages: $passed passed, $failed failed"
