#!/usr/bin/env bash
# Installs what is missing, builds bin/zsandbox and runs every test, with the
# real-sandbox tests enforced (a skip is a failure), as root and as an
# unprivileged user. This is the test command README gives a new user.
set -euo pipefail
cd "$(dirname "$0")/.."

# Go may be installed without being on PATH (a fresh CI shell).
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  export PATH=$PATH:/usr/local/go/bin
fi

# What the build and the tests need. As root, always install (a no-op when
# present): a green run on a machine that happened to have them must not
# hide a missing step on a fresh one.
need=(bubblewrap libseccomp-dev gcc pkg-config git util-linux file passwd curl make tmux docker.io busybox-static iproute2)
# Only when missing: the machine may carry its own builds of these.
command -v python3 >/dev/null || need+=(python3)
command -v node >/dev/null || need+=(nodejs)
# e2e/credentials_linux_test.go: npm install and pip download with the
# credential files hidden (Debian's nodejs and python3 come without them).
command -v npm >/dev/null || need+=(npm)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
if [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
else
  for tool in bwrap gcc pkg-config git unshare file python3 node curl make; do
    command -v "$tool" >/dev/null || { echo "ci-linux: $tool is missing; run as root to install it" >&2; exit 1; }
  done
fi
command -v go >/dev/null || { echo "ci-linux: Go is required (https://go.dev/dl/)" >&2; exit 1; }

scripts/build.sh
echo "== go vet"
go vet ./...
echo "== darwin builds"
for arch in arm64 amd64; do CGO_ENABLED=0 GOOS=darwin GOARCH=$arch go build -o /dev/null ./...; done
# The CLI builds everywhere: linux/arm64, the cgo-free Linux build, and
# platforms without a backend (exec exits 127 there, saying so).
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -o /dev/null ./...
CGO_ENABLED=0 go build -o /dev/null ./...
for os in freebsd windows; do CGO_ENABLED=0 GOOS=$os GOARCH=amd64 go build -o /dev/null .; done
CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go vet ./...

# The real-sandbox tests must run, never skip.
export ZSANDBOX_MUST_ENFORCE=1
echo "== go test (as $(id -un))"
go test -count=1 ./...
echo "== benchmarks compile and run once"
go test -run '^$' -bench . -benchtime=1x ./... >/dev/null

# The sibling module contexts/ (its own go.mod; tested as its users see it,
# GOWORK=off). Its docker, apple-shim, local and zctx tests start their own
# private dockerd (a socket and data root of their own, no bridge, no
# iptables) and stop it; ZSANDBOX_MUST_DOCKER=1 makes a missing dockerd a
# failure (as root: a private dockerd needs it). The process context runs the
# bin/zsandbox built above.
echo "== contexts: vet, zctx, tests"
(
  cd contexts
  must_docker=0
  [ "$(id -u)" -eq 0 ] && must_docker=1
  export GOWORK=off ZSANDBOX_MUST_DOCKER=$must_docker ZSANDBOX_BIN="$PWD/../bin/zsandbox"
  # The official E2B and Daytona SDKs, pinned by package-lock.json, are the
  # oracles the e2b and daytona replicas are checked against (issue 18);
  # ZSANDBOX_MUST_ORACLE=1 makes a missing SDK a failure, not a skip.
  (cd testdata/oracle && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
  export ZSANDBOX_MUST_ORACLE=1
  go vet ./...
  CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go vet ./...
  CGO_ENABLED=0 go build -trimpath -o ../bin/zctx ./cmd/zctx
  go test -count=1 ./...
  go test -run '^$' -bench . -benchtime=1x ./... >/dev/null
)
