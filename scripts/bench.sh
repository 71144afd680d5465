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
