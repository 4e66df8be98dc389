# Container image of the server (docs/packaging.md).
#   docker build -t garnet-peer .            # Microsoft's official .NET images
#   docker run -p 6379:6379 -v garnet-data:/data garnet-peer [--option value ...]
# Invariants:
# - Two stages: the SDK stage publishes main/GarnetServer self-contained for the target's RID; the final stage is the
#   runtime-deps image (the OS libraries .NET needs, no .NET runtime) plus that output. Self-contained because
#   runtime-deps has no runtime: the app carries exactly the runtime it was built and tested with.
# - Base images are build arguments, so a machine without a container registry can build on local bases
#   (scripts/docker-local-base.sh makes them; scripts/docker-test.sh uses them).
# - The server runs as the non-root user with UID 1654 ("app" in Microsoft's images), is PID 1 (exec form; .NET
#   handles SIGTERM itself: graceful stop, checkpoint to /data, exit 0), keeps its data in the volume /data and
#   listens on 6379. Options: the image's config file /etc/garnet/garnet.conf (mount your own over it), then the
#   arguments given to `docker run`, which win over the file.
# - The health check is a bash /dev/tcp PING (no redis-cli in the image): healthy on +PONG, or on -NOAUTH when a
#   password is set.

ARG SDK_IMAGE=mcr.microsoft.com/dotnet/sdk:10.0
ARG RUNTIME_IMAGE=mcr.microsoft.com/dotnet/runtime-deps:10.0

FROM ${SDK_IMAGE} AS build
# TARGETARCH is set by docker buildx / podman build (amd64, arm64); the RID follows it.
ARG TARGETARCH
# Passed through to NuGet when set (e.g. offline behind a TLS-intercepting proxy); empty means NuGet's default.
ARG NUGET_CERT_REVOCATION_MODE
WORKDIR /src
# Project files first, so that the restore layer is reused while only sources change.
COPY Directory.Build.props Directory.Packages.props ./
COPY libs/common/Garnet.common.csproj libs/common/
COPY libs/storage/Garnet.storage.csproj libs/storage/
COPY libs/server/Garnet.server.csproj libs/server/
COPY libs/host/Garnet.host.csproj libs/host/
COPY main/GarnetServer/GarnetServer.csproj main/GarnetServer/
RUN case "${TARGETARCH:-amd64}" in arm64) rid=linux-arm64 ;; *) rid=linux-x64 ;; esac \
 && echo "$rid" > /tmp/rid \
 && dotnet restore main/GarnetServer/GarnetServer.csproj -r "$rid"
COPY libs/ libs/
COPY main/ main/
RUN dotnet publish main/GarnetServer/GarnetServer.csproj -c Release -r "$(cat /tmp/rid)" --self-contained true \
      --no-restore -o /app \
 && rm -f /app/*.pdb

FROM ${RUNTIME_IMAGE}
ARG APP_UID=1654
# Microsoft's images already have the user; a plain base gets it here. /data belongs to it, so a new named volume
# (which copies the image's /data) is writable by the server.
RUN if ! getent passwd "${APP_UID}" >/dev/null; then \
      groupadd --gid "${APP_UID}" app && useradd --uid "${APP_UID}" --gid "${APP_UID}" --no-create-home app; \
    fi \
 && mkdir -p /data /etc/garnet \
 && chown "${APP_UID}:${APP_UID}" /data
COPY --from=build /app /app
COPY docker/garnet.conf /etc/garnet/garnet.conf
COPY docker/healthcheck.sh /usr/local/bin/garnet-healthcheck
USER ${APP_UID}
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENV GARNET_HEALTHCHECK_PORT=6379
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["/usr/local/bin/garnet-healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/GarnetServer", "--config", "/etc/garnet/garnet.conf"]
