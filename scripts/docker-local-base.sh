#!/usr/bin/env bash
# Builds the two local base images the Dockerfile can use instead of Microsoft's registry images, for machines that
# cannot pull from a container registry:
#   localhost/garnet-local/runtime-deps:bookworm  Debian bookworm minbase (debootstrap) + what .NET needs to run
#                                                 (ca-certificates, libicu72, libssl3, tzdata) + user app (UID 1654,
#                                                 as in Microsoft's images)
#   localhost/garnet-local/sdk:bookworm           the same + this machine's .NET SDK (the folder `dotnet` runs from)
# Invariants: an image that already exists is kept (delete it with `podman rmi` to rebuild); the debootstrap tree lives
# under /tmp/garnet-base-* only while the script runs; needs root (debootstrap, podman), installs podman, runc and
# debootstrap from Debian's apt if missing.
# Usage: bash scripts/docker-local-base.sh            prints the two image names on its last two lines
set -euo pipefail

RUNTIME_IMAGE=localhost/garnet-local/runtime-deps:bookworm
SDK_IMAGE=localhost/garnet-local/sdk:bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

need=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null 2>&1 || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} from Debian ..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null
fi

have() { podman image exists "$1"; }

if ! have "$RUNTIME_IMAGE" || ! have "$SDK_IMAGE"; then
  ROOT=$(mktemp -d /tmp/garnet-base-XXXXXX)
  cleanup() {
    # debootstrap mounts proc (and may bind /dev) inside the tree: unmount whatever is left before deleting, and never
    # cross into another file system.
    { grep -o " $ROOT/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$ROOT"
  }
  trap cleanup EXIT
  if ! have "$RUNTIME_IMAGE"; then
    echo "debootstrap bookworm minbase into $ROOT/rootfs (about a minute) ..." >&2
    debootstrap --variant=minbase --include=ca-certificates,libicu72,libssl3,tzdata \
      bookworm "$ROOT/rootfs" "$MIRROR" >"$ROOT/debootstrap.log" 2>&1 \
      || { tail -20 "$ROOT/debootstrap.log" >&2; exit 1; }
    chroot "$ROOT/rootfs" groupadd --gid 1654 app
    chroot "$ROOT/rootfs" useradd --uid 1654 --gid 1654 --no-create-home --shell /usr/sbin/nologin app
    chroot "$ROOT/rootfs" apt-get clean
    rm -rf "$ROOT"/rootfs/var/lib/apt/lists/* "$ROOT"/rootfs/var/cache/apt/*.bin "$ROOT"/rootfs/var/log/*
    tar -C "$ROOT/rootfs" --one-file-system -c . | podman import \
      --change 'ENV APP_UID=1654' --change 'CMD ["/bin/bash"]' - "$RUNTIME_IMAGE" >/dev/null
  fi
  if ! have "$SDK_IMAGE"; then
    # The SDK image is the runtime base plus the host's dotnet folder (SDK, runtimes, packs).
    DOTNET_DIR=$(dirname "$(readlink -f "$(command -v dotnet)")")
    mkdir -p "$ROOT/sdk"
    cat >"$ROOT/sdk/Containerfile" <<CF
FROM $RUNTIME_IMAGE
COPY dotnet /usr/share/dotnet
RUN ln -s /usr/share/dotnet/dotnet /usr/bin/dotnet
ENV DOTNET_ROOT=/usr/share/dotnet DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
CF
    cp -a "$DOTNET_DIR" "$ROOT/sdk/dotnet"
    podman build --runtime runc --network host -q -t "$SDK_IMAGE" "$ROOT/sdk" >/dev/null
  fi
fi
echo "$RUNTIME_IMAGE"
echo "$SDK_IMAGE"
