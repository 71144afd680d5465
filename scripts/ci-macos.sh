#!/usr/bin/env bash
# What a macOS runner runs: build bin/zsandbox, vet, run every test (the
# seatbelt package's darwin tests drive the real sandbox-exec), then attack
# the sandbox for real through `bin/zsandbox exec` and check each effect from
# outside: the host file is unchanged, the secret never shows up, the
# listener saw nothing. Every attack also prints "ran" first, so a sandbox
# that failed to start cannot pass for one that blocked the attack.
#
# Prints one PASS or FAIL line per check and ends with "N passed, M failed";
# exits non-zero when anything failed. Written for the bash 3.2 that ships
# with macOS.
#
# Single-quoted $vars are deliberate: they expand later, in eval or in the
# sandboxed sh.
# shellcheck disable=SC2016
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(uname -s)" != Darwin ]; then
  echo "ci-macos: this script needs macOS (sandbox-exec); on Linux run scripts/ci-linux.sh" >&2
  exit 1
fi
for tool in go git curl python3; do
  command -v "$tool" >/dev/null || { echo "ci-macos: $tool is required" >&2; exit 1; }
done

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
summary() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

# check NAME CMD... : PASS when CMD succeeds.
check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}

echo "== build, vet, unit tests"
if go build -o bin/zsandbox .; then
  ok "go build -o bin/zsandbox ."
else
  bad "go build -o bin/zsandbox ."
  summary
  exit 1
fi
check "go vet ./..." go vet ./...
check "go test ./..." go test -count=1 ./...

ZSB=$PWD/bin/zsandbox

# Everything lives under the real home, which is not a writable root
# (mktemp's default, $TMPDIR, is one).
work=$(mktemp -d "$HOME/zsandbox-ci.XXXXXX")
work=$(cd "$work" && pwd -P)
pids=""
cleanup() {
  local p
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

fakehome=$work/home # HOME for zsandbox, so the default hidden list lands here
proj=$work/proj     # --cwd: a git repository
outside=$work/outside
# The command's output goes to files outside every writable root on
# purpose: `zsandbox exec ... > file` must work (inherited descriptors).
out=$work/out
err=$work/err
mkdir -p "$fakehome/.ssh" "$fakehome/.gnupg" "$proj" "$outside" "$work/www"
chmod 700 "$fakehome/.gnupg"
secret="zsandbox-secret-$RANDOM$RANDOM$RANDOM"
printf '%s\n' "$secret" >"$fakehome/.ssh/id_rsa"
chmod 600 "$fakehome/.ssh/id_rsa"
printf 'original\n' >"$outside/host.txt"
git -C "$proj" init -q
printf 'tracked\n' >"$proj/tracked.txt"
cp "$proj/.git/config" "$work/config.orig"
# APFS is case-insensitive by default: then .SSH names .ssh.
touch "$work/.Case"
case_insensitive=0
[ -e "$work/.case" ] && case_insensitive=1
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from go") }\n' >"$proj/hello.go"

# run CMD... : run with HOME=$fakehome, stdout to $out, stderr to $err,
# exit status in $rc.
run() {
  rc=0
  env HOME="$fakehome" "$@" >"$out" 2>"$err" </dev/null || rc=$?
}
# sb ARGS... : run `zsandbox exec ARGS...`.
sb() { run "$ZSB" exec "$@"; }

started() { grep -qx ran "$out"; }
denied() { started && [ "$rc" -ne 0 ]; }
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
no_secret() { ! grep -q "$secret" "$out" "$err"; }
show() { echo "  status $rc; stdout: $(head -c 300 "$out" | tr '\n' '|'); stderr: $(head -c 300 "$err" | tr '\n' '|')"; }
expect() { # expect NAME CONDITION... : PASS/FAIL on the condition, details on failure
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; show; fi
}

echo "== the sandbox runs commands"
sb --cwd "$proj" -- /bin/echo ran
expect "a command runs (exit 0, output passes through)" eval '[ "$rc" -eq 0 ] && started'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; echo ok > inside.txt'
expect "writes under --cwd land on the host" eval '[ "$rc" -eq 0 ] && [ "$(cat "$proj/inside.txt")" = ok ]'
sb --cwd "$proj" -- /bin/sh -c 'exit 7'
expect "the command's exit status passes through" eval '[ "$rc" -eq 7 ]'
sb --cwd "$proj" -- /bin/sh -c 'kill -TERM $$'
expect "death by SIGTERM exits 143" eval '[ "$rc" -eq 143 ]'
sb --cwd "$proj" -- zsandbox-no-such-command
expect "a missing command exits 127 with zsandbox: error:" eval '[ "$rc" -eq 127 ] && grep -q "^zsandbox: error:" "$err"'
run /usr/bin/sandbox-exec -p '(version 1)(allow default)' "$ZSB" exec --cwd "$proj" -- /bin/echo ran
expect "no sandbox (nested in another) exits 127 and runs nothing" eval '[ "$rc" -eq 127 ] && ! started && grep -q "^zsandbox: error:" "$err"'

echo "== writes outside the writable roots"
sb --cwd "$proj" -- /bin/sh -c 'echo ran; echo pwned > "$1/host.txt"' sh "$outside"
expect "overwriting a host file fails" denied
expect "the host file is unchanged" eval '[ "$(cat "$outside/host.txt")" = original ]'
expect "a denied write prints a zsandbox: hint: line" grep -q '^zsandbox: hint:' "$err"
sb --cwd "$proj" -- /bin/sh -c 'echo ran; echo pwned > "$1/new.txt"' sh "$outside"
expect "creating a host file fails" eval 'denied && absent "$outside/new.txt"'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; echo pwned >> "$1/.zshrc"' sh "$fakehome"
expect "appending to a shell rc file outside the roots fails" eval 'denied && absent "$fakehome/.zshrc"'

echo "== credentials"
sb --cwd "$proj" -- /bin/sh -c 'echo ran; cat "$1/.ssh/id_rsa"' sh "$fakehome"
expect "reading ~/.ssh/id_rsa fails and the secret stays out of the output" eval 'denied && no_secret'
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; cat .ssh/id_rsa'
expect "with cwd = HOME, ~/.ssh/id_rsa is still unreadable" eval 'denied && no_secret'
if [ "$case_insensitive" = 1 ]; then
  sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; cat .SSH/id_rsa'
  expect "with cwd = HOME, ~/.SSH/id_rsa (case changed) is unreadable" eval 'denied && no_secret'
else
  echo "SKIP: case-changed paths (this disk is case-sensitive)"
fi
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; cat "/System/Volumes/Data$1/.ssh/id_rsa"' sh "$fakehome"
expect "with cwd = HOME, the key is unreadable through the /System/Volumes/Data firmlink" eval 'denied && no_secret'
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; ln -s .ssh/id_rsa alias && cat alias'
expect "with cwd = HOME, the key is unreadable through a symlink" eval 'denied && no_secret'
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; ls -la .ssh; cp .ssh/id_rsa stolen'
expect "with cwd = HOME, ~/.ssh cannot be listed or copied" eval 'denied && no_secret && absent "$fakehome/stolen"'
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; echo "ssh-ed25519 AAAA evil" >> .ssh/authorized_keys'
expect "with cwd = HOME, adding an authorized key fails" eval 'denied && absent "$fakehome/.ssh/authorized_keys"'
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; mv .ssh ssh-aside && cat ssh-aside/id_rsa'
expect "with cwd = HOME, renaming ~/.ssh aside fails" eval 'denied && no_secret && absent "$fakehome/ssh-aside" && [ -f "$fakehome/.ssh/id_rsa" ]'
sb --cwd "$fakehome" -- /bin/sh -c 'echo ran; ln .ssh/id_rsa linked && cat linked'
expect "with cwd = HOME, hard-linking the key out fails" eval 'denied && no_secret && absent "$fakehome/linked"'

echo "== protected paths"
sb --cwd "$proj" -- /bin/sh -c 'echo ran; printf "#!/bin/sh\necho evil\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'
expect "creating .git/hooks/pre-commit fails" eval 'denied && absent "$proj/.git/hooks/pre-commit"'
if [ "$case_insensitive" = 1 ]; then
  sb --cwd "$proj" -- /bin/sh -c 'echo ran; echo evil > .GIT/HOOKS/pre-commit'
  expect "creating .GIT/HOOKS/pre-commit (case changed) fails" eval 'denied && absent "$proj/.git/hooks/pre-commit"'
fi
sb --cwd "$proj" -- /bin/sh -c 'echo ran; mv .git/hooks .git/hooks.aside && mkdir .git/hooks && echo evil > .git/hooks/pre-commit'
expect "moving .git/hooks aside fails" eval 'denied && absent "$proj/.git/hooks.aside" && [ -d "$proj/.git/hooks" ] && absent "$proj/.git/hooks/pre-commit"'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; mv .git .git-aside'
expect "moving .git aside fails" eval 'denied && absent "$proj/.git-aside" && [ -d "$proj/.git" ]'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; printf "[core]\n\tfsmonitor = evil\n" >> .git/config'
expect ".git/config cannot be changed" eval 'denied && cmp -s "$proj/.git/config" "$work/config.orig"'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; rm -rf .git/hooks'
expect "removing .git/hooks fails" eval 'denied && [ -d "$proj/.git/hooks" ]'

echo "== network"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -u -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >"$work/http.log" 2>&1 &
pids="$pids $!"
for _ in $(seq 1 50); do
  curl -s -o /dev/null "http://127.0.0.1:$port/ready" && break
  sleep 0.1
done
tok="$RANDOM$RANDOM"
sb --cwd "$proj" --network deny -- /bin/sh -c 'echo ran; curl -sS -m 5 "$1"' sh "http://127.0.0.1:$port/deny-$tok"
expect "--network deny: curl to 127.0.0.1 fails" denied
expect "--network deny: the listener saw nothing" eval '! grep -q "deny-$tok" "$work/http.log"'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; curl -sS -m 5 "$1"' sh "http://127.0.0.1:$port/default-$tok"
expect "the default network is deny" eval 'denied && ! grep -q "default-$tok" "$work/http.log"'
sb --cwd "$proj" --network allow -- /bin/sh -c 'echo ran; curl -sS -m 5 -o /dev/null "$1"' sh "http://127.0.0.1:$port/allow-$tok"
expect "--network allow: the same request arrives (the listener works)" eval '[ "$rc" -eq 0 ] && grep -q "allow-$tok" "$work/http.log"'
# --allow-domain: only the proxy's loopback port is reachable; the proxy lets
# through the allowed address and refuses the rest (the listener sees nothing).
sb --cwd "$proj" --allow-domain "127.0.0.1:$port" -- /bin/sh -c 'echo ran; curl -sS -m 5 -o /dev/null --noproxy "" "$1"' sh "http://127.0.0.1:$port/al-ok-$tok"
expect "--allow-domain: the allowed address is reachable through the proxy" eval '[ "$rc" -eq 0 ] && grep -q "al-ok-$tok" "$work/http.log"'
sb --cwd "$proj" --allow-domain "127.0.0.1:$port" -- /bin/sh -c 'echo ran; curl -sS -m 5 -o /dev/null --noproxy "*" "$1"' sh "http://127.0.0.1:$port/al-direct-$tok"
expect "--allow-domain: a direct connection (skipping the proxy) fails" eval 'denied && ! grep -q "al-direct-$tok" "$work/http.log"'
sb --cwd "$proj" --allow-domain "127.0.0.1:$port" -- /bin/sh -c 'echo ran; curl -sS -f -m 5 -o /dev/null --noproxy "" "$1"' sh "http://localhost:$port/al-deny-$tok"
expect "--allow-domain: a name not in the allowlist is refused, with the hint" eval 'denied && ! grep -q "al-deny-$tok" "$work/http.log" && grep -q "hint: blocked network access to localhost:$port" "$err"'
sb --cwd "$proj" --allow-domain "127.0.0.1:$port" -- /bin/sh -c 'echo ran; python3 -c "import socket; socket.getaddrinfo(\"example.com\", 443)"'
expect "--allow-domain: DNS has no route (mDNSResponder closed)" denied

# A unix-socket listener inside a hidden folder (an agent socket) and one in
# the project, each logging what connects.
listen_unix() { # listen_unix SOCKET LOG
  python3 -u -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
while True:
    c, _ = s.accept(); print("connected", flush=True); c.close()
' "$1" >"$2" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 1 50); do [ -S "$1" ] && return 0; sleep 0.1; done
}
listen_unix "$fakehome/.gnupg/S.ci" "$work/hidden-sock.log"
listen_unix "$proj/ci.sock" "$work/proj-sock.log"
connect='import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")'
sb --cwd "$proj" --network allow -- /bin/sh -c 'echo ran; python3 -c "$1" "$2"' sh "$connect" "$fakehome/.gnupg/S.ci"
expect "--network allow: a socket in a hidden folder stays unreachable" eval 'denied && ! grep -q connected "$work/hidden-sock.log"'
sb --cwd "$proj" --network allow -- /bin/sh -c 'echo ran; python3 -c "$1" "$2"' sh "$connect" "$proj/ci.sock"
expect "--network allow: a host daemon's unix socket (here in the project) stays unreachable" eval 'denied && ! grep -q connected "$work/proj-sock.log"'
sb --cwd "$proj" --network allow -- /bin/sh -c 'echo ran; curl -sS -m 5 -o /dev/null https://example.com/ || python3 -c "import socket; socket.getaddrinfo(\"example.com\", 443); print(\"resolved\")"'
expect "--network allow: DNS still works (mDNSResponder's socket stays)" eval '[ "$rc" -eq 0 ]'
sb --cwd "$proj" --network allow --allow-unix-sockets --no-warning -- /bin/sh -c 'echo ran; python3 -c "$1" "$2"' sh "$connect" "$proj/ci.sock"
expect "--allow-unix-sockets: the socket is reachable (control)" eval '[ "$rc" -eq 0 ] && grep -q connected "$work/proj-sock.log"'
sb --cwd "$proj" --network allow --allow-unix-sockets --no-warning -- /bin/sh -c 'echo ran; python3 -c "$1" "$2"' sh "$connect" "$fakehome/.gnupg/S.ci"
expect "--allow-unix-sockets: a socket in a hidden folder stays unreachable" eval 'denied && ! grep -q connected "$work/hidden-sock.log"'
sb --cwd "$proj" --network deny -- /bin/sh -c 'echo ran; python3 -c "$1" "$2"' sh "$connect" "$proj/ci.sock"
expect "--network deny: unix sockets are cut too" eval 'denied && [ "$(grep -c connected "$work/proj-sock.log")" -eq 1 ]'

echo "== real tools keep working"
sb --cwd "$proj" -- /bin/sh -c 'echo ran; git add tracked.txt && git -c user.name=ci -c user.email=ci@example.invalid commit -qm ci && git log --oneline | wc -l'
expect "git add and commit inside the repository" eval '[ "$rc" -eq 0 ] && [ "$(git -C "$proj" rev-list --count HEAD)" = 1 ]'
sb --cwd "$proj" -- python3 -c 'import multiprocessing as m; l = m.Lock(); l.acquire(); l.release(); print("ran")'
expect "python3 multiprocessing (POSIX semaphores)" eval '[ "$rc" -eq 0 ] && started'
run env GOCACHE="$proj/.gocache" GOPATH="$proj/.gopath" GOTOOLCHAIN=local "$ZSB" exec --cwd "$proj" -- go run hello.go
expect "go run (compiler, linker, cache in a writable root)" eval '[ "$rc" -eq 0 ] && grep -q "hello from go" "$out"'
if command -v node >/dev/null; then
  sb --cwd "$proj" -- node -e 'require("fs").writeFileSync("node.txt", "ok"); console.log("ran")'
  expect "node writes in the project" eval '[ "$rc" -eq 0 ] && [ "$(cat "$proj/node.txt")" = ok ]'
else
  echo "SKIP: node is not installed"
fi
sb --cwd "$proj" -- /bin/sh -c 'echo ran; cp tracked.txt copy.txt && mv copy.txt moved.txt && rm moved.txt'
expect "cp, mv and rm of ordinary files in the project" eval '[ "$rc" -eq 0 ] && absent "$proj/moved.txt"'
sb --cwd "$proj" -- /bin/sh -c 'echo ran; echo x > /dev/null; ls /dev/fd >/dev/null; echo done >&2'
expect "/dev/null and /dev/fd work" eval '[ "$rc" -eq 0 ] && grep -q done "$err"'

echo "== no orphans"
marker="30$$.5"
"$ZSB" exec --cwd "$proj" -- /bin/sh -c "sleep $marker & sleep $marker; wait" >/dev/null 2>&1 &
zpid=$!
for _ in $(seq 50); do [ "$(pgrep -f "sleep $marker" | wc -l)" -ge 2 ] && break; sleep 0.1; done
kill -9 "$zpid"; wait "$zpid" 2>/dev/null || true
for _ in $(seq 50); do pgrep -f "sleep $marker" >/dev/null || break; sleep 0.1; done
expect "SIGKILL of zsandbox takes the command and its children along (watchdog)" eval '! pgrep -f "sleep $marker" >/dev/null'
pkill -f "sleep $marker" 2>/dev/null || true

echo "== contexts module (zctx; Apple's container when it runs)"
(cd contexts && GOWORK=off go vet ./...) && ok "contexts: go vet" || bad "contexts: go vet"
if (cd contexts && GOWORK=off CGO_ENABLED=0 go build -o ../bin/zctx ./cmd/zctx); then ok "contexts: build bin/zctx"; else bad "contexts: build bin/zctx"; fi
# The process context under the real Seatbelt zsandbox (bin/zsandbox, copied out of the tree by the tests).
check "contexts: go test ./process ./cmd/zctx (process context under Seatbelt)" \
  env GOWORK=off ZSANDBOX_BIN="$ZSB" sh -c 'cd contexts && go test -count=1 ./process ./cmd/zctx ./apple'
run "$PWD/bin/zctx" run --zsandbox "$ZSB" --cwd "$proj" -- /bin/sh -c 'echo ran; cat "$HOME/.ssh/id_rsa"'
expect "zctx run --context process: a credential stays unreadable" eval 'started && no_secret'
if command -v container >/dev/null && container system status >/dev/null 2>&1; then
  check "contexts: apple conformance against the real container CLI" \
    env GOWORK=off ZCTX_APPLE=1 sh -c 'cd contexts && go test -count=1 -run TestReal -v ./apple'
  # Apple's CLI keeps its state under the real home: no fake HOME here.
  hrun() { rc=0; "$@" >"$out" 2>"$err" </dev/null || rc=$?; }
  hrun "$PWD/bin/zctx" run --context local --image docker.io/library/alpine:3 --mount "$proj:/workspace" -- sh -c 'echo ran; touch /workspace/from-local; cat /proc/self/status | grep CapEff'
  expect "zctx run --context local picks Apple's container and writes into the mounted workspace" eval '[ "$rc" -eq 0 ] && [ -e "$proj/from-local" ]'
  hrun "$PWD/bin/zctx" run --context apple --image docker.io/library/alpine:3 -- sh -c 'echo ran; nc -w 2 1.1.1.1 80 </dev/null && echo reached'
  expect "zctx run --context apple: --network none (the default) really cuts the network" eval '! grep -q reached "$out"'
else
  echo "SKIP: Apple's container is not running (container system start); the apple context was not run for real"
fi

summary
