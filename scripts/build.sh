#!/usr/bin/env bash
# Builds bin/zsandbox: fully static on Linux (cgo + Debian's libseccomp.a),
# pure Go elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
ldflags="-s -w -X main.version=${ZSANDBOX_VERSION:-dev} -X main.commit=$commit"
if [ "$(go env GOOS)" = linux ]; then
  CGO_ENABLED=1 go build -trimpath -tags osusergo,netgo,urfave_cli_no_docs \
    -ldflags "$ldflags -linkmode external -extldflags -static" -o bin/zsandbox .
  if ! file bin/zsandbox | grep -q 'statically linked'; then
    echo "build: bin/zsandbox is not static: $(file bin/zsandbox)" >&2
    exit 1
  fi
else
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o bin/zsandbox .
fi
echo "built bin/zsandbox ($(file -b bin/zsandbox | cut -d, -f1-2))"
