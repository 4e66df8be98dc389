#!/bin/bash
# Container health check without redis-cli: sends an inline PING over bash's /dev/tcp and waits up to 2 s for the
# first reply line. Healthy (exit 0) on +PONG, or on -NOAUTH (a password is set: the server is up and answering).
# The port is GARNET_HEALTHCHECK_PORT (set it too when the server inside the container listens elsewhere than 6379).
port=${GARNET_HEALTHCHECK_PORT:-6379}
exec 3<>"/dev/tcp/127.0.0.1/${port}" 2>/dev/null || exit 1
printf 'PING\r\n' >&3
IFS= read -r -t 2 line <&3 || exit 1
case "$line" in
  +PONG*|-NOAUTH*) exit 0 ;;
  *) exit 1 ;;
esac
