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
# scripts/bench.sh netproxy [COUNT]: the --allow-domain proxy's paired
# benchmarks (direct loopback against the proxy's CONNECT tunnel and
# forwarded HTTP: added-µs per connection, throughput ratio of a 100 MiB
# download), COUNT runs of each. Needs no binary. See docs/benchmarks.md.
if [ "${1:-}" = netproxy ]; then
  go test -run '^$' -bench Pair -benchtime 20x -count "${2:-5}" ./netproxy |
    grep -E '^(Benchmark|ok|FAIL)'
  exit "${PIPESTATUS[0]}"
fi
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
# scripts/bench.sh allowlist [ROUNDS]: the --allow-domain proxy: CONNECT
# set-up and a 100 MiB download through the tunnel against a direct
# loopback connection (Go benchmarks), and `exec -- true` with an allowlist
# against --network deny (interleaved rounds, medians). See
# docs/benchmarks.md.
if [ "${1:-}" = allowlist ]; then
  rounds=${2:-80}
  go test -run '^$' -bench . -benchtime 2s -count 3 ./netproxy | grep -E '^(Benchmark|ok|FAIL)'
  python3 - "$rounds" <<'PY'
import resource, statistics, subprocess, sys, time
# Wall time and CPU time (user + system of the whole process tree): on a
# shared machine the wall-time medians move by milliseconds with the load,
# the CPU time much less.
wall = {"deny": [], "allow": []}
cpu = {"deny": [], "allow": []}
flags = {"deny": ["--network", "deny"], "allow": ["--allow-domain", "example.com"]}
def used():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
for _ in range(int(sys.argv[1])):
    for k in wall:
        c, t = used(), time.perf_counter()
        subprocess.run(["bin/zsandbox", "exec", *flags[k], "--", "true"], check=True)
        wall[k].append((time.perf_counter() - t) * 1000)
        cpu[k].append((used() - c) * 1000)
for what, m in (("wall", wall), ("cpu", cpu)):
    d, a = statistics.median(m["deny"]), statistics.median(m["allow"])
    print(f"exec -- true ({what}): --network deny {d:.2f} ms, --allow-domain {a:.2f} ms (median), +{a - d:.2f} ms")
PY
  # Connection set-up as the command sees it, inside the sandbox: connect,
  # one byte echoed by a server on the host's loopback; directly (--network
  # allow) against through the proxy (CONNECT to the allowed address, over
  # the namespace's listener). Medians of 2000 connections each.
  python3 - <<'PY'
import socket, subprocess, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(512)
port = srv.getsockname()[1]
def serve():
    while True:
        c, _ = srv.accept()
        threading.Thread(target=lambda c=c: (c.sendall(c.recv(1)), c.close()), daemon=True).start()
threading.Thread(target=serve, daemon=True).start()
probe = r"""
import socket, statistics, sys, time
port, proxied = int(sys.argv[1]), sys.argv[2] == "proxy"
ts = []
for _ in range(2000):
    t = time.perf_counter()
    if proxied:
        s = socket.create_connection(("127.0.0.1", 3128))
        s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (port, port))
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(1)
    else:
        s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"x"); s.recv(1); s.close()
    ts.append((time.perf_counter() - t) * 1000)
print(statistics.median(ts))
"""
def run(flags, mode):
    out = subprocess.run(["bin/zsandbox", "exec", *flags, "--", "python3", "-c", probe, str(port), mode], check=True, capture_output=True, text=True)
    return float(out.stdout)
d = run(["--network", "allow"], "direct")
p = run(["--allow-domain", f"127.0.0.1:{port}"], "proxy")
print(f"connect + 1-byte echo inside the sandbox: direct {d:.3f} ms, through the proxy {p:.3f} ms (median of 2000), +{p - d:.3f} ms")
PY
  exit 0
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
