#!/usr/bin/env bash
# Packs and checks the NuGet deliveries (docs/packaging.md):
#   1. packs the libraries Garnet.Common, Garnet.Storage, Garnet.Server, Garnet.Host, Garnet.Client and the .NET tool
#      garnet-cache-server (main/GarnetServer) into the local folder feed artifacts/packages, with symbol packages;
#   2. checks each package's metadata (license, repository, readme, description, dependencies) and its .snupkg;
#   3. installs the tool from the feed into a temporary --tool-path, runs it, PING/SET/GET through redis-cli, SHUTDOWN,
#      and checks it exits 0;
#   4. builds and runs samples/EmbeddedCheck, which consumes Garnet.Host and Garnet.Client from the feed (its
#      nuget.config) and checks an embedded server (exit code 0 when every check passed).
# Packages are restored into a temporary NuGet packages folder, so a re-packed 0.1.0 is never shadowed by an older
# copy in ~/.nuget/packages. The last line is "packages: N passed, N failed"; exits non-zero on the first failure.
# Usage: bash scripts/package-test.sh      (wrap in flock /tmp/garnet-build.lock on shared machines)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

FEED=$ROOT/artifacts/packages
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

# 1. pack
mkdir -p "$FEED"
rm -f "$FEED"/Garnet.*.nupkg "$FEED"/Garnet.*.snupkg "$FEED"/garnet-cache-server.*
start=$(date +%s)
# One pack of scripts/packages.slnf (the six packable projects of Garnet.sln): one build, in dependency order.
dotnet pack scripts/packages.slnf -c Release -o "$FEED" --nologo -v quiet >"$TMP/pack.log" 2>&1 \
  || { cat "$TMP/pack.log"; fail "dotnet pack scripts/packages.slnf"; }
ok "packed 6 packages in $(( $(date +%s) - start )) s into artifacts/packages"

# 2. metadata
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

# 3. the tool
start=$(date +%s)
dotnet tool install garnet-cache-server --version "$VERSION" --tool-path "$TMP/tools" --add-source "$FEED" \
  >"$TMP/tool.log" 2>&1 || { cat "$TMP/tool.log"; fail "dotnet tool install"; }
ok "tool installed from the local feed in $(( $(date +%s) - start )) s"
expect "garnet-cache-server --version" 0 "$("$TMP/tools/garnet-cache-server" --version >/dev/null 2>&1; echo $?)"
PORT=""
for p in $(seq 16480 16580); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { PORT=$p; break; }; done
[ -n "$PORT" ] || fail "no free port"
"$TMP/tools/garnet-cache-server" --port "$PORT" --dir "$TMP/tool-data" >"$TMP/server.log" 2>&1 &
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

# 4. the sample, from the feed
start=$(date +%s)
set +e
dotnet run --project samples/EmbeddedCheck -c Release -p:GarnetVersion="$VERSION" >"$TMP/sample.log" 2>&1; rc=$?
set -e
cat "$TMP/sample.log" | sed 's/^/  /'
expect "samples/EmbeddedCheck against Garnet.Host + Garnet.Client packages ($(( $(date +%s) - start )) s)" 0 "$rc"
rm -rf samples/EmbeddedCheck/bin samples/EmbeddedCheck/obj

log "total $(( $(date +%s) - SCRIPT_START )) s"
echo "packages: $passed passed, $failed failed"
