#!/bin/sh
# A stand-in for Apple's `container` CLI on Linux CI: it maps the few
# commands the apple context runs onto the docker CLI (whose run/exec/rm
# flags are spelled the same) against $ZCTX_SHIM_DOCKER_HOST. It tests
# the apple context's own logic (argv, exit codes, kills by mark, files
# through exec); it proves nothing about Apple's CLI, which only
# scripts/ci-macos.sh runs.
set -e
d() { exec docker -H "$ZCTX_SHIM_DOCKER_HOST" "$@"; }
case "$1" in
--version) echo "container CLI version 0.0.0-shim (build: shim, commit: none)" ;;
system) [ "$2" = status ] && echo "apiserver is running" ;;
ls)
  docker -H "$ZCTX_SHIM_DOCKER_HOST" ps -a --format '{"status":"{{.State}}","configuration":{"id":"{{.Names}}"}}' |
    awk 'BEGIN{printf "["} NR>1{printf ","} {printf "%s", $0} END{print "]"}' ;;
run|exec|rm) d "$@" ;;
*) echo "shim: unknown command $1" >&2; exit 64 ;;
esac
