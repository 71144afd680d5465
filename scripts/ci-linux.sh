#!/usr/bin/env bash
# Installs what is missing, builds bin/zsandbox and runs every test, with the
# real-sandbox tests enforced (a skip is a failure), as root and as an
# unprivileged user. This is the test command README gives a new user.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v gcc >/dev/null || need+=(gcc)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v git >/dev/null || need+=(git)
command -v unshare >/dev/null || need+=(util-linux)
command -v file >/dev/null || need+=(file)
command -v useradd >/dev/null || need+=(passwd)
pkg-config --exists libseccomp 2>/dev/null || need+=(libseccomp-dev)
[ -e /usr/lib/x86_64-linux-gnu/libseccomp.a ] || [ -e /usr/lib/aarch64-linux-gnu/libseccomp.a ] || need+=(libseccomp-dev)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "ci-linux: missing ${need[*]}; run as root or install them" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "ci-linux: Go is required (https://go.dev/dl/)" >&2; exit 1; }

scripts/build.sh
echo "== go vet"
go vet ./...
echo "== darwin builds"
for arch in arm64 amd64; do CGO_ENABLED=0 GOOS=darwin GOARCH=$arch go build -o /dev/null ./...; done
CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go vet ./...

# The real-sandbox tests must run, never skip.
export ZSANDBOX_MUST_ENFORCE=1
echo "== go test (as $(id -un))"
go test -count=1 ./...
echo "== benchmarks compile and run once"
go test -run '^$' -bench . -benchtime=1x ./... >/dev/null
