package seatbelt

// The fixed parts of the profile. Seatbelt applies the last rule that
// matches an operation, so the order below is security: broad allows first,
// then the writable roots, then every deny that must beat them (protected
// paths, their ancestors, hidden paths), then the network.
//
// No text here names a path that comes from the policy; those arrive as
// parameters in the rules Render writes between these blocks.

// tag marks every deny so `log stream --predicate 'eventMessage CONTAINS
// "zsandbox"'` shows what this profile refused.
const tag = `(with message "zsandbox")`

const baseRules = `; zsandbox Seatbelt profile. Every path comes from a sandbox-exec
; parameter, read as (param "NAME"); none is written into this text.
(version 1)

; Closed by default: whatever is not allowed below is denied.
(deny default (with message "zsandbox"))

; --- processes ---------------------------------------------------------
; Run programs and fork. Children inherit this sandbox and cannot leave it.
(allow process-exec)
(allow process-fork)
; Signals only to processes inside this sandbox: never to zsandbox, the
; caller's shell or any other process of the user.
(allow signal (target same-sandbox))
; Process information (paths, open files, sockets of a pid) is not covered
; by (deny default): close it, then open it for this sandbox's processes.
(deny process-info* (with message "zsandbox"))
(allow process-info* (target same-sandbox))

; --- system information ------------------------------------------------
; CPU count, page size, OS version: the Go runtime, node, python and clang
; read these at startup.
(allow sysctl-read)
; Except kern.procargs and kern.procargs2, which return the arguments and
; the environment of any process of the same user (tokens included).
(deny sysctl-read (sysctl-name-prefix "kern.procargs") (with message "zsandbox"))

; --- Mach services -------------------------------------------------------
; Only what command-line tools need. Not allowed, on purpose: the keychain
; (securityd), the pasteboard, LaunchServices (open, lsopen) and Apple
; events, certificate and DNS daemons while the network is denied (trustd
; fetches OCSP and CRL URLs, a way out).
(allow mach-lookup
  ; User and group lookups (getpwuid): git, ssh, python's pwd, id, whoami.
  (global-name "com.apple.system.opendirectoryd.libinfo")
  ; Group membership and the per-user temporary directory (confstr), which
  ; clang and xcrun ask for.
  (global-name "com.apple.system.opendirectoryd.membership")
  ; notify(3): libc's time zone and name cache invalidation.
  (global-name "com.apple.system.notification_center")
  ; os_log and syslog(3), so tools that log do not fail.
  (global-name "com.apple.logd")
  (global-name "com.apple.diagnosticd")
  (global-name "com.apple.system.logger")
  ; Preference reads (CFPreferences): xcrun, clang, swift and other
  ; Foundation tools. Writes stay denied: no user-preference-write.
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent"))
(allow user-preference-read)

; --- IPC -----------------------------------------------------------------
; Named POSIX semaphores: python's multiprocessing locks and queues.
(allow ipc-posix-sem)
; Read-only views of the shared pages behind notify(3) and cfprefsd.
(allow ipc-posix-shm-read*
  (ipc-posix-name "apple.shm.notification_center")
  (ipc-posix-name-prefix "apple.cfprefs."))

; --- reading files -------------------------------------------------------
; The command may read the machine; hidden paths are taken away below.
(allow file-read*)
; Not the data of the user's terminals, though: reading one steals its
; keystrokes. (Their metadata stays readable, for ls and ttyname.)
(deny file-read-data (regex #"^/dev/ttys[0-9]+$") (with message "zsandbox"))

; --- terminals -----------------------------------------------------------
; openpty(): script, expect, python's pty module. The multiplexer and the
; terminals the command creates itself (the kernel marks them with the
; com.apple.sandbox.pty extension), never another terminal of the user.
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write*
  (require-all
    (regex #"^/dev/ttys[0-9]+$")
    (extension "com.apple.sandbox.pty")))
; Terminal ioctls (isatty, window size) on a terminal the command was
; given. TIOCSTI cannot push input into it: Exec starts the command in a
; new session, without a controlling terminal.
(allow file-ioctl
  (literal "/dev/tty")
  (regex #"^/dev/ttys[0-9]+$"))

; --- devices -------------------------------------------------------------
; The sinks every script uses; the command's own open descriptors
; (/dev/fd/N and /dev/stdout duplicate a descriptor, they grant nothing
; new); and dyld's DTrace helper, which node and python open at startup.
(allow file-write*
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (regex #"^/dev/fd/[0-9]+$")
  (literal "/dev/dtracehelper"))
(allow file-ioctl (literal "/dev/dtracehelper"))
`

const writableRules = `
; --- writable roots ------------------------------------------------------
; The only places the command may write.
`

const protectedRules = `
; --- protected paths -----------------------------------------------------
; Read-only although they lie in a writable root, whether or not they exist
; yet. The literal rule covers the path itself (create, unlink, rename onto
; it), the subpath rule everything beneath; both, because an allow with a
; richer filter can shadow a plain subpath deny.
`

const ancestorRules = `
; --- ancestors of hidden and protected paths -----------------------------
; Each directory above a hidden or protected path, up to and including the
; writable root that holds it, can be neither removed nor renamed
; (file-write-unlink is checked on the source of a rename), so the path
; cannot be carried away from its rule; nor created, so a missing one
; cannot be planted as a symlink or a gitfile pointing elsewhere.
`

const hiddenRules = `
; --- hidden paths --------------------------------------------------------
; Neither readable nor writable, even inside a writable root: hidden beats
; writable. Last among the file rules so nothing above can undo it.
`

const linkRules = `
; --- links and clones ----------------------------------------------------
; A hard link or a copy-on-write clone of a hidden or protected file made
; inside a writable root would be a second name the rules above never
; see. None are allowed: git, cargo and pnpm fall back to rename or copy,
; and copyfile(3), behind cp, to a plain copy.
(deny file-link file-clone (with message "zsandbox"))
`

const networkDenyRules = `
; --- network: deny -------------------------------------------------------
; No sockets out: IP of any kind (loopback included), unix sockets to
; daemons, and DNS, which goes through mDNSResponder's unix socket.
(deny network* (with message "zsandbox"))
`

const networkAllowRules = `
; --- network: allow ------------------------------------------------------
; The host's network, and the daemons that make it usable.
(allow network*)
(allow mach-lookup
  ; TLS certificate evaluation: git and curl over https, Go's crypto/x509.
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent")
  ; Resolver configuration and proxy settings.
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd"))
`

// networkAllowlistRules follow networkDenyRules under --allow-domain.
const networkAllowlistRules = `; --- network: allowlist (--allow-domain) ---------------------------------
; Out only to zsandbox's proxy, on the host's loopback at the port it chose
; at start (HTTP_PROXY and friends name it); the proxy, in zsandbox's own
; process, decides each connection by name. No other address or port, no
; DNS (the proxy resolves names; mDNSResponder stays closed), no listening,
; no UDP. zsandbox holds the port on both 127.0.0.1 and ::1.
(allow network-outbound (remote tcp "localhost:ZSANDBOX_PROXY_PORT"))
(allow mach-lookup
  ; TLS certificate evaluation inside the tunnels: curl, git, crypto/x509.
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent"))
`

const unixSocketDenyRules = `
; --- unix sockets: off -----------------------------------------------------
; No connection to a unix socket (on macOS every one has a path): the
; host's daemons stay out of reach (a tmux server in /tmp, ssh-agent,
; docker.sock). Seatbelt cannot tell a socket the command made from the
; host's, so the command's own cannot be reached either. DNS goes through
; mDNSResponder's socket, which stays. --allow-unix-sockets lifts this.
(deny network-outbound (regex #"^/") (with message "zsandbox"))
(allow network-outbound (literal "/private/var/run/mDNSResponder"))
`

const unixSocketAllowRules = `
; --- unix sockets: allowed (--allow-unix-sockets) ------------------------------
; Unix sockets (every one has a path), the host's daemons included; IP
; stays denied (it has no path).
(allow network* (regex #"^/"))
`

const hiddenSocketRules = `; Sockets inside hidden paths (an agent socket in a credential folder)
; stay unreachable.
`
