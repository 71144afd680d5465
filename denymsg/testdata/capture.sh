#!/bin/bash
# capture.sh regenerates testdata/captures/*.txtar: the real output of real tools
# that hit a denial (or a near miss) inside a bwrap sandbox shaped like zsandbox's.
#
#   cd denymsg && bash testdata/capture.sh        # Linux x86_64, bwrap >= 0.5, root or userns
#
# Tools captured: dash, bash, zsh, busybox, coreutils, sed, grep, find, git, python3 (+pip),
# node (+npm), go, gcc, make, perl, rustc, cargo, java, curl, wget, ssh, getent. A missing
# tool records "not found" and its capture then fails the tests: install it or drop the line.
#
# Sandbox layout (matches captureFacts in capture_test.go):
#   /                    read-only
#   /home/u              read-only (HOME)
#   /home/u/proj         writable root (cwd); .git/hooks and .git/config protected (read-only)
#   /tmp, /var/tmp       writable roots (tmpfs)
#   /home/u/.ssh         hidden: empty tmpfs with mode 000 (reads fail with EACCES)
#   /home/u/.aws         hidden: empty read-only tmpfs (reads fail with ENOENT)
#   /home/u/.netrc       hidden: mode-000 file
#   /home/u/proj/secrets hidden under a writable root (hidden beats writable)
#   network              off (--unshare-net) unless a capture says "allow"
#
# Each capture names the tool, the command, the sandbox mode, the exit status, the
# findings Classify must report line by line ("want: KIND [PATH]", a trailing * matches
# a random suffix, or "want: none") and the combined stdout+stderr. The outputs are
# committed; rerun this only to refresh them, then regenerate the golden hints with
#   go test ./denymsg -run TestCaptureHints -update
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$here/captures
B=$(mktemp -d /tmp/zsandbox-capture.XXXXXX)
trap 'chmod -R u+rwx "$B" 2>/dev/null; rm -rf "$B"' EXIT
mkdir -p "$out"

py=$(python3 -c 'import sys; print(sys.executable)')
gobin=$(dirname "$(command -v go)")
cargobin=$(dirname "$(command -v cargo)")
export PATH="$cargobin:$gobin:/usr/local/bin:/usr/bin:/bin"

setup() {
	mkdir -p "$B/home/proj" "$B/home/.ssh" "$B/home/.aws" "$B/proj/secrets" "$B/proj/notmine" "$B/proj/rs/src"
	echo 'SECRET-CANARY-netrc' >"$B/home/.netrc" && chmod 000 "$B/home/.netrc"
	echo 'SECRET-CANARY-ssh' >"$B/home/.ssh/id_ed25519"
	git init -q "$B/home/rorepo" && git -C "$B/home/rorepo" -c user.name=u -c user.email=u@x commit -q --allow-empty -m init
	git init -q "$B/proj"
	chmod 555 "$B/proj/notmine"
	mkdir -p "$B/home/locked" && chmod 000 "$B/home/locked"
	printf 'int main(void){return 0;}\n' >"$B/proj/hello.c"
	printf 'fn main() {}\n' >"$B/proj/hello.rs"
	printf '[package]\nname = "rs"\nversion = "0.1.0"\nedition = "2021"\n' >"$B/proj/rs/Cargo.toml"
	printf 'fn main() {}\n' >"$B/proj/rs/src/main.rs"
	mkdir -p "$B/proj/gow"
	printf 'module w\n\ngo 1.21\n' >"$B/proj/gow/go.mod"
	cat >"$B/proj/gow/main.go" <<'GO'
package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	switch os.Args[1] {
	case "write":
		if err := os.WriteFile(os.Args[2], []byte("x"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "read":
		if _, err := os.ReadFile(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "get":
		if _, err := http.Get(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "panic":
		f, err := os.Create(os.Args[2])
		if err != nil {
			panic(err)
		}
		f.Close()
	}
}
GO
	printf 'all:\n\techo hi > /etc/zs-out\n\ninstall:\n\tinstall -m 755 hello.c /usr/local/bin/zs-hello\n' >"$B/proj/Makefile"
	(cd "$B/proj/gow" && GOCACHE=$B/gocache CGO_ENABLED=0 go build -o "$B/proj/gowrite" .) || exit 1
	# A minimal wheel, so pip installs offline without a build backend.
	python3 - "$B/proj/zspkg-0.1-py3-none-any.whl" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("zspkg/__init__.py", "")
    z.writestr("zspkg-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: zspkg\nVersion: 0.1\n")
    z.writestr("zspkg-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: capture\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("zspkg-0.1.dist-info/RECORD", "")
PY
	cat >"$B/proj/Net.java" <<'JAVA'
public class Net {
    public static void main(String[] a) throws Exception {
        new java.net.Socket(a[0], Integer.parseInt(a[1])).close();
    }
}
JAVA
	# BPF for `--seccomp`: x86_64 only, no arch check (a capture harness, not a policy).
	python3 - "$B" <<'PY'
import struct, sys
def prog(nr, action):
    ld = struct.pack('HBBI', 0x20, 0, 0, 0)            # A = seccomp_data.nr
    jeq = struct.pack('HBBI', 0x15, 0, 1, nr)          # if A == nr: next, else skip one
    hit = struct.pack('HBBI', 0x06, 0, 0, action)      # return action
    ok = struct.pack('HBBI', 0x06, 0, 0, 0x7fff0000)   # return ALLOW
    return ld + jeq + hit + ok
open(sys.argv[1] + '/socket-eperm.bpf', 'wb').write(prog(41, 0x00050000 | 1))  # socket -> EPERM
open(sys.argv[1] + '/uname-kill.bpf', 'wb').write(prog(63, 0x80000000))        # uname -> KILL_PROCESS
PY
}

# sbx MODE CMD: run CMD with /bin/sh -c inside the sandbox.
sbx() {
	mode=$1
	shift
	net=()
	seccomp=()
	case $mode in
	allow) net=(--share-net) ;;
	seccomp) seccomp=(--seccomp 9) ;;
	sigsys) seccomp=(--seccomp 9) ;;
	esac
	bpf=/dev/null
	[ "$mode" = seccomp ] && bpf=$B/socket-eperm.bpf
	[ "$mode" = sigsys ] && bpf=$B/uname-kill.bpf
	bwrap --unshare-all "${net[@]}" --die-with-parent --new-session --cap-drop ALL \
		--ro-bind / / --dev /dev --proc /proc \
		--tmpfs /tmp --tmpfs /var/tmp --tmpfs /home \
		--ro-bind "$B/home" /home/u \
		--bind "$B/proj" /home/u/proj \
		--ro-bind "$B/proj/.git/hooks" /home/u/proj/.git/hooks \
		--ro-bind "$B/proj/.git/config" /home/u/proj/.git/config \
		--perms 0000 --tmpfs /home/u/.ssh \
		--tmpfs /home/u/.aws --remount-ro /home/u/.aws \
		--perms 0000 --tmpfs /home/u/proj/secrets \
		--remount-ro /home \
		--chdir /home/u/proj --clearenv \
		--setenv HOME /home/u --setenv PATH "$PATH" --setenv LANG C.UTF-8 \
		--setenv GOCACHE /tmp/gocache --setenv GOTOOLCHAIN local --setenv GOFLAGS -mod=mod \
		--setenv CARGO_HOME /root/.cargo --setenv RUSTUP_HOME /root/.rustup \
		"${seccomp[@]}" -- /bin/sh -c "$*" 9<"$bpf" 2>&1
}

# cap NAME TOOL MODE WANT CMD...: WANT is "none" or "KIND [PATH]" items joined by ";".
cap() {
	name=$1 tool=$2 mode=$3 want=$4
	shift 4
	cmd="$*"
	output=$(sbx "$mode" "$cmd")
	rc=$?
	{
		echo "tool: $tool"
		echo "cmd: $cmd"
		echo "sandbox: $mode"
		echo "exit: $rc"
		IFS=';' read -ra ws <<<"$want"
		for w in "${ws[@]}"; do echo "want: $w"; done
		[ -n "${note:-}" ] && echo "note: $note"
		echo "-- output --"
		printf '%s\n' "$output"
	} >"$out/$name.txtar"
	printf '%-28s exit %3d  %s\n' "$name" "$rc" "$(printf '%s' "$output" | head -c 110 | tr '\n' '|')"
	note=
}

setup
[ "${CAPTURE_SOURCE_ONLY:-}" = 1 ] && return 0

# --- writes outside the writable roots -------------------------------------------
cap dash-redirect      sh       deny 'write /etc/zs-x'              'echo hi > /etc/zs-x'
note='the shell changed directory, so the relative path cannot be placed: the hint names no path'
cap dash-redirect-rel  sh       deny 'write'                        'cd .. && echo hi > zs-x'
cap bash-redirect      bash     deny 'write /etc/zs-x'              'bash -c "echo hi > /etc/zs-x"'
cap bash-redirect-space bash    deny 'write /etc/zs a:b'            'bash -c "echo hi > \"/etc/zs a:b\""'
cap bash-noclobber     bash     deny 'write /usr/zs-x'              'bash -c "set -C; echo hi > /usr/zs-x"'
cap zsh-redirect       zsh      deny 'write /etc/zs-x'              'zsh -c "echo hi > /etc/zs-x"'
cap zsh-redirect-rel   zsh      deny 'protected /home/u/proj/.git/hooks/pre-commit' 'zsh -c "echo hi > .git/hooks/pre-commit"'
cap busybox-sh         busybox  deny 'write /etc/zs-x'              'busybox sh -c "echo hi > /etc/zs-x"'
cap busybox-touch      busybox  deny 'write /etc/zs-x'              'busybox touch /etc/zs-x'
cap busybox-mkdir      busybox  deny 'write /etc/zs-dir'            'busybox mkdir /etc/zs-dir'
cap busybox-cp         busybox  deny 'write /etc/zs-x'              'busybox cp /etc/hostname /etc/zs-x'
cap touch              touch    deny 'write /etc/zs-x'              'touch /etc/zs-x'
cap touch-space        touch    deny "write /etc/zs x's"            "touch \"/etc/zs x's\""
cap touch-escape       touch    deny 'write /etc/zs	x'              'touch "$(printf "/etc/zs\tx")"'
cap touch-home         touch    deny 'write /home/u/.zs-history'    'touch ~/.zs-history'
cap mkdir              mkdir    deny 'write /etc/zs-dir'            'mkdir /etc/zs-dir'
cap mkdir-p            mkdir    deny 'write /usr/local/zs'          'mkdir -p /usr/local/zs/a/b'
cap cp                 cp       deny 'write /etc/zs-x'              'cp /etc/hostname /etc/zs-x'
cap cp-r               cp       deny 'write /opt/zs-etc'            'cp -r /etc/apt /opt/zs-etc'
cap rm                 rm       deny 'write /etc/hostname'          'rm -f /etc/hostname'
cap rm-r               rm       deny 'write /etc/apt/sources.list.d/*' 'rm -rf /etc/apt/sources.list.d'
cap mv                 mv       deny 'write /etc/hostname'          'mv /etc/hostname /etc/zs-h'
cap mv-cross           mv       deny 'write /etc/zs-x'              'echo x > /tmp/x && mv /tmp/x /etc/zs-x'
cap ln                 ln       deny 'write /etc/zs-link'           'ln -s /tmp/x /etc/zs-link'
cap chmod              chmod    deny 'write /etc/hostname'          'chmod 600 /etc/hostname'
cap tee                tee      deny 'write /etc/zs-x'              'echo x | tee /etc/zs-x'
cap sed-i              sed      deny 'write /etc/sed*'              'sed -i s/a/b/ /etc/hostname'
cap dd                 dd       deny 'write /etc/zs-x'              'dd if=/dev/zero of=/etc/zs-x count=1'
cap git-init           git      deny 'write /usr/local/zs-repo'     'git init /usr/local/zs-repo'
cap git-config-global  git      deny 'write /home/u/.gitconfig'     'git config --global user.name zs'
cap git-commit-ro      git      deny 'write /home/u/rorepo/.git/index.lock' 'cd ~/rorepo && git -c user.name=u -c user.email=u@x commit --allow-empty -m x'
cap git-clone-ro       git      deny 'write /opt/zs-clone'          'git clone -q /home/u/rorepo /opt/zs-clone'
cap python-open        python   deny 'write /etc/zs-x'              "$py -c 'open(\"/etc/zs-x\", \"w\")'"
cap python-mkdir       python   deny 'write /usr/zs-dir'            "$py -c 'import os; os.makedirs(\"/usr/zs-dir/a\")'"
cap python-rename      python   deny 'write /etc/hostname'          "$py -c 'import os; os.rename(\"/etc/hostname\", \"/etc/zs-h\")'"
cap python-shutil      python   deny 'write /etc/zs-x'              "$py -c 'import shutil; shutil.copy(\"/etc/hostname\", \"/etc/zs-x\")'"
cap python-pathlib     python   deny 'write /home/u/zs.txt'         "$py -c 'import pathlib; pathlib.Path(\"~/zs.txt\").expanduser().write_text(\"x\")'"
cap node-write         node     deny 'write /etc/zs-x'              "node -e 'require(\"fs\").writeFileSync(\"/etc/zs-x\", \"x\")'"
note='node reports a recursive mkdir refused by a read-only mount as ENOENT: a known miss'
cap node-mkdir         node     deny 'none'                         "node -e 'require(\"fs\").mkdirSync(\"/usr/zs-dir/a\", {recursive: true})'"
cap node-mkdir-one     node     deny 'write /usr/zs-dir'            "node -e 'require(\"fs\").mkdirSync(\"/usr/zs-dir\")'"
cap node-promise       node     deny 'write /etc/zs-x'              "node -e 'require(\"fs/promises\").writeFile(\"/etc/zs-x\", \"x\")'"
cap go-writefile       go       deny 'write /etc/zs-x'              './gowrite write /etc/zs-x'
cap go-panic           go       deny 'write /etc/zs-x'              './gowrite panic /etc/zs-x'
cap go-build-o         go       deny 'write /usr/local/bin/zs'      'cd gow && go build -o /usr/local/bin/zs .'
cap go-install         go       deny 'write /home/u/go'             'cd gow && GOPATH=/home/u/go go install .'
cap make-recipe        make     deny 'write /etc/zs-out'            'make all'
cap make-install       make     deny 'write /usr/local/bin/zs-hello' 'make install'
cap gcc-o              gcc      deny 'write /usr/local/bin/zs-hello' 'gcc -o /usr/local/bin/zs-hello hello.c'
cap cc-c               cc       deny 'write /etc/hello.o'           'cc -c -o /etc/hello.o hello.c'
cap rustc-o            rustc    deny 'write /usr/local/bin/rmeta*'  'rustc -o /usr/local/bin/zs-hello hello.rs'
cap cargo-target       cargo    deny 'write /opt/zs-target*'        'cd rs && CARGO_TARGET_DIR=/opt/zs-target cargo build -q --offline'
cap npm-config         npm      deny 'write /home/u/.npmrc'         'npm config set fund false'
cap npm-cache-home     npm      deny 'network'                   'npm install --no-audit --no-fund --fetch-retries=0 left-pad'
cap pip-user           pip      deny 'write /home/u/.local'         "$py -m pip install -q --user --no-index --no-deps ./zspkg-0.1-py3-none-any.whl"
cap pip-target         pip      deny 'write /opt/zs-site'           "$py -m pip install -q --no-index --no-deps --target /opt/zs-site ./zspkg-0.1-py3-none-any.whl"
cap perl-open          perl     deny 'write /etc/zs-x'              "perl -e 'open(my \$f, \">\", \"/etc/zs-x\") or die \"cannot open /etc/zs-x: \$!\n\"'"
cap java-write         java     deny 'write /etc/zs-x'              "printf 'public class W { public static void main(String[] a) throws Exception { java.nio.file.Files.writeString(java.nio.file.Path.of(\"/etc/zs-x\"), \"x\"); } }' > /tmp/W.java && java /tmp/W.java"

# --- protected paths inside a writable root --------------------------------------
cap protected-hook     sh       deny 'protected /home/u/proj/.git/hooks/pre-commit' 'echo "#!/bin/sh" > .git/hooks/pre-commit'
cap protected-hook-cp  cp       deny 'protected /home/u/proj/.git/hooks/post-checkout' 'cp hello.c /home/u/proj/.git/hooks/post-checkout'
cap protected-git-config git    deny 'protected /home/u/proj/.git/config' 'git config core.hooksPath /tmp/hooks'
cap protected-append   sh       deny 'protected /home/u/proj/.git/config' 'echo "[core]" >> .git/config'
cap protected-python   python   deny 'protected /home/u/proj/.git/hooks/pre-push' "$py -c 'open(\".git/hooks/pre-push\", \"w\")'"
cap protected-rm       rm       deny 'protected /home/u/proj/.git/config' 'rm -f .git/config'
cap protected-mv       mv       deny 'protected /home/u/proj/.git/hooks' 'mv .git/hooks .git/hooks.old'

# --- hidden paths -------------------------------------------------------------
cap hidden-cat-eacces  cat      deny 'hidden /home/u/.ssh/id_ed25519' 'cat ~/.ssh/id_ed25519'
cap hidden-cat-enoent  cat      deny 'hidden /home/u/.aws/credentials' 'cat ~/.aws/credentials'
cap hidden-ls          ls       deny 'hidden /home/u/.ssh'          'ls ~/.ssh'
cap hidden-netrc       cat      deny 'hidden /home/u/.netrc'        'cat /home/u/.netrc'
cap hidden-write       sh       deny 'hidden /home/u/.ssh/authorized_keys' 'echo key >> ~/.ssh/authorized_keys'
cap hidden-write-erofs sh       deny 'hidden /home/u/.aws/credentials' 'echo key > ~/.aws/credentials'
cap hidden-in-root     cat      deny 'hidden /home/u/proj/secrets/token' 'cat secrets/token'
cap hidden-python      python   deny 'hidden /home/u/.aws/config'  "$py -c 'open(\"/home/u/.aws/config\").read()'"
cap hidden-node        node     deny 'hidden /home/u/.ssh/id_rsa'  "node -e 'require(\"fs\").readFileSync(\"/home/u/.ssh/id_rsa\")'"
cap hidden-go          go       deny 'hidden /home/u/.aws/credentials' './gowrite read /home/u/.aws/credentials'
cap hidden-grep        grep     deny 'hidden /home/u/.ssh'          'grep -r BEGIN ~/.ssh'
cap hidden-zsh         zsh      deny 'hidden /home/u/.netrc'        'zsh -c "cat < ~/.netrc"'
cap hidden-busybox     busybox  deny 'hidden /home/u/.ssh/id_ed25519' 'busybox cat /home/u/.ssh/id_ed25519'
cap hidden-git-ssh     git      deny 'hidden /home/u/.ssh/config;network' 'GIT_SSH_COMMAND="ssh -F /home/u/.ssh/config" git ls-remote git@example.com:x/y; ssh -o BatchMode=yes git@example.com true'
cap hidden-wget-netrc  wget     deny 'hidden /home/u/.netrc'        'wget -q http://example.com/'

# --- network off ----------------------------------------------------------------
cap curl-dns           curl     deny 'network'                      'curl -sS http://example.com/'
cap curl-ip            curl     deny 'network'                      'curl -sS http://192.0.2.1/'
cap curl-loopback      curl     deny 'network'                      'curl -sS http://127.0.0.1:9/'
cap wget-dns           wget     deny 'network;hidden /home/u/.netrc' 'wget -nv http://example.com/'
cap busybox-wget       busybox  deny 'network'                      'busybox wget -q http://example.com/'
cap busybox-nc         busybox  deny 'network'                      'busybox nc 192.0.2.1 80 </dev/null'
note='getent prints nothing when a name does not resolve: nothing to recognise'
cap getent-hosts       getent   deny 'none'                         'getent hosts example.com'
cap git-clone-https    git      deny 'network'                      'git clone -q https://github.com/zsandbox/nothing /tmp/n'
cap git-clone-ip       git      deny 'network'                      'git clone -q http://192.0.2.1/x /tmp/n'
cap ssh-dns            ssh      deny 'network'                      'ssh -o BatchMode=yes git@example.com true'
cap ssh-ip             ssh      deny 'network'                      'ssh -o BatchMode=yes git@192.0.2.1 true'
cap python-urllib      python   deny 'network'                      "$py -c 'import urllib.request; urllib.request.urlopen(\"http://example.com/\")'"
cap python-socket      python   deny 'network'                      "$py -c 'import socket; socket.create_connection((\"192.0.2.1\", 80))'"
cap python-gai         python   deny 'network'                      "$py -c 'import socket; socket.getaddrinfo(\"example.com\", 80)'"
cap python-loopback    python   deny 'network'                      "$py -c 'import socket; socket.create_connection((\"127.0.0.1\", 5432))'"
cap node-fetch         node     deny 'network'                      "node -e 'fetch(\"http://example.com/\").catch(e => { console.error(e); process.exit(1) })'"
cap node-net           node     deny 'network'                      "node -e 'require(\"net\").connect(80, \"192.0.2.1\")'"
cap node-dns           node     deny 'network'                      "node -e 'require(\"dns\").lookup(\"example.com\", e => { if (e) throw e })'"
cap node-loopback      node     deny 'network'                      "node -e 'require(\"net\").connect(6379, \"127.0.0.1\")'"
cap go-get             go       deny 'network'                      './gowrite get http://example.com/'
cap go-get-ip          go       deny 'network'                      './gowrite get http://192.0.2.1/'
cap go-get-loopback    go       deny 'network'                      './gowrite get http://127.0.0.1:8080/'
cap go-mod-download    go       deny 'network'                      'GOFLAGS= GOPROXY=https://proxy.golang.org GOPATH=/tmp/gopath go mod download golang.org/x/text@v0.14.0'
cap cargo-search       cargo    deny 'network'                      'cargo search serde --limit 1'
cap npm-install        npm      deny 'network'                      'npm_config_cache=/tmp/npm npm install --no-audit --no-fund --fetch-retries=0 left-pad'
cap pip-install        pip      deny 'network'                      "$py -m pip install --no-cache-dir --retries 1 --timeout 2 --target /tmp/site zs-no-such-pkg"
cap java-dns           java     deny 'network'                      'java Net.java example.com 80'
cap java-loopback      java     deny 'network'                      'java Net.java 127.0.0.1 5432'
cap java-ip            java     deny 'network'                      'java Net.java 192.0.2.1 80'

# --- network off, socket() refused by seccomp (zsandbox's --network deny filter) --
cap seccomp-curl       curl     seccomp 'network'                   'curl -sS http://example.com/'
cap seccomp-curl-ip    curl     seccomp 'network'                   'curl -sS http://192.0.2.1/'
cap seccomp-python     python   seccomp 'network'                   "$py -c 'import socket; socket.create_connection((\"192.0.2.1\", 80))'"
cap seccomp-node       node     seccomp 'network'                   "node -e 'require(\"net\").connect(80, \"192.0.2.1\")'"
cap seccomp-go         go       seccomp 'network'                   './gowrite get http://192.0.2.1/'
cap seccomp-go-dns     go       seccomp 'network'                   './gowrite get http://example.com/'
cap seccomp-git        git      seccomp 'network'                   'git clone -q https://github.com/zsandbox/nothing /tmp/n'
cap seccomp-busybox-nc busybox  seccomp 'network'                   'busybox nc 192.0.2.1 80 </dev/null'

# --- seccomp kill -----------------------------------------------------------------
cap sigsys-exec        uname    sigsys 'seccomp'                    'uname -a'
cap sigsys-bash        bash     sigsys 'seccomp'                    'bash -c "uname -a; exit \$?"'
cap sigsys-python      python   sigsys 'seccomp'                       "$py -c 'import os; os.uname()'"

# --- near misses: must not produce a hint --------------------------------------------
cap near-enoent        cat      deny 'none'                         'cat /etc/zs-no-such-file'
cap near-enoent-py     python   deny 'none'                         "$py -c 'open(\"/home/u/proj/missing.txt\")'"
cap near-root-eacces   touch    deny 'none'                         'touch notmine/x'
cap near-root-eacces-py python  deny 'none'                         "$py -c 'open(\"/home/u/proj/notmine/x\", \"w\")'"
cap near-tmp-eacces    sh       deny 'none'                         'mkdir /tmp/ro && chmod 555 /tmp/ro && touch /tmp/ro/x'
cap near-noexec        sh       deny 'none'                         './hello.c'
note='a read refused by the mode of a directory outside the writable roots is not the sandbox'
cap near-find-unreadable find   deny 'none'                         'find /home/u/locked -name x'
note='a read refused by the mode of a directory outside the writable roots is not the sandbox'
cap near-ls-unreadable ls       deny 'none'                         'ls /home/u/locked'
cap touch-unreadable   touch    deny 'write /home/u/locked/x'       'touch /home/u/locked/x'
cap near-chown-root    chown    deny 'none'                         'chown 1:1 hello.c'
note='exit 0: the findings stay silent'
cap near-success-echo  sh       deny 'write /etc/x'                'echo "touch: cannot touch /etc/x: Read-only file system"'
note='exit 0: the findings stay silent'
cap near-grep-source   grep     deny 'write'                        'printf "%s\n" "// returns EACCES (Permission denied) when the mount is read-only" > /tmp/src.go; grep -n EACCES /tmp/src.go'
note='network allowed: a refused connection is not the sandbox'
cap near-loopback-allow curl    allow 'none'                        'curl -sS http://127.0.0.1:9/'
note='network allowed: a refused connection is not the sandbox'
cap near-loopback-allow-py python allow 'none'                      "$py -c 'import socket; socket.create_connection((\"127.0.0.1\", 5432))'"
cap near-go-test-fail  go       deny 'none'                         'echo "--- FAIL: TestOpen (0.00s)"; echo "    open_test.go:12: want error, got nil"; exit 1'
cap near-ssh-auth      sh       deny 'none'                         'echo "git@github.com: Permission denied (publickey)." >&2; exit 128'
