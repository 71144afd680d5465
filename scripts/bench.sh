#!/usr/bin/env bash
# Times zsandbox as whole processes against the bubblewrap line it runs
# (bare command, bwrap line, exec --landlock off, exec with the Landlock
# stage 2, --backend landlock when present) and prints a markdown report.
# Builds bin/zsandbox first when it is missing (or when BUILD=1).
# Flags go to the harness: scripts/bench.sh -runs 200 -warmup 10
# BENCH_USER=NAME (as root) runs the harness as that unprivileged user, which
# --backend landlock needs: it refuses to run as root.
# See docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x bin/zsandbox ] || [ "${BUILD:-0}" = 1 ]; then
  scripts/build.sh >&2
fi
# scripts/bench.sh contexts [ROUNDS]: the contexts module's paired
# benchmarks (interleaved rounds, medians): the process context against
# `zsandbox exec`, the docker context's API exec against `docker exec`, and
# spawn against `docker run -d`, on a private dockerd (as root; needs
# docker.io and busybox-static). See docs/benchmarks.md.
if [ "${1:-}" = contexts ]; then
  rounds=${2:-200}
  cd contexts
  GOWORK=off ZSANDBOX_BIN="$PWD/../bin/zsandbox" go test -run '^$' -bench . -benchtime "${rounds}x" ./process ./docker |
    grep -E '^(Benchmark|ok|FAIL)'
  exit "${PIPESTATUS[0]}"
fi
# scripts/bench.sh scenarios [-runs N] [BIN...]: `exec -- true` where the
# protected set costs most (a git project without and with every
# project-config entry, cwd = an empty $HOME), each binary in turn,
# interleaved; bin/zsandbox when no binary is named. BENCH_USER works here too.
if [ "${1:-}" = scenarios ]; then
  shift
  flags=() bins=()
  while [ $# -gt 0 ]; do
    case $1 in
      -runs|-warmup) flags+=("$1" "$2"); shift 2 ;;
      *) bins+=("$(realpath "$1")"); shift ;;
    esac
  done
  [ ${#bins[@]} -gt 0 ] || bins=("$PWD/bin/zsandbox")
  if [ -z "${BENCH_USER:-}" ]; then
    exec go run ./scripts/bench scenarios "${flags[@]}" "${bins[@]}"
  fi
  home=$(getent passwd "$BENCH_USER" | cut -d: -f6)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  go build -o "$tmp/bench" ./scripts/bench
  copies=()
  for i in "${!bins[@]}"; do
    mkdir "$tmp/$i"
    cp "${bins[$i]}" "$tmp/$i/$(basename "${bins[$i]}")"
    copies+=("$tmp/$i/$(basename "${bins[$i]}")")
  done
  chmod -R a+rX "$tmp"
  HOME=${home:-/nonexistent} setpriv --reuid="$BENCH_USER" --regid="$BENCH_USER" --init-groups \
    "$tmp/bench" scenarios "${flags[@]}" "${copies[@]}"
  exit
fi
if [ -z "${BENCH_USER:-}" ]; then
  exec go run ./scripts/bench -bin bin/zsandbox "$@"
fi
home=$(getent passwd "$BENCH_USER" | cut -d: -f6)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench" ./scripts/bench
cp bin/zsandbox "$tmp/zsandbox"
chmod -R a+rX "$tmp"
HOME=${home:-/nonexistent} setpriv --reuid="$BENCH_USER" --regid="$BENCH_USER" --init-groups \
  "$tmp/bench" -bin "$tmp/zsandbox" "$@"
