//go:build linux && cgo

// Stage 2 in C: zsandbox's Landlock stage 2, run from an ELF constructor
// before the Go runtime starts (the technique runc's nsenter uses).
//
// bwrap runs "zsandbox __stage2 CONFIG... -- COMMAND..." (Config.Command).
// Starting a static cgo Go binary costs about 1.4 ms, and execve from a
// multi-threaded Go process another 0.6 ms; this constructor sees argv[1]
// == "__stage2" and does the whole stage 2 itself, single-threaded, before
// main: it never returns. Any other argv[1] returns at once.
//
// It mirrors the Go stage 2, which stays the implementation of builds
// without cgo:
//
//   parse_args        ParseArgs (args.go)
//   make_plan, ...    Rules, Check, RequireError (rules.go, access.go)
//   enforce           enforce, rulesetFD, addPathRule, restrictSelf
//                     (enforce_linux.go)
//   close_inherited   closeInherited (stage2_linux.go)
//   run_command       execvp, searchPath, execFile (stage2_linux.go)
//   buf_quote         quote (args.go)
//   buf_errno         errText (stage2_linux.go)
//
// stage2_diff_linux_test.go runs both on the same cases and compares exit
// status, output and effects; stage2_c_linux_test.go compares the pieces
// (parsing, the rules at every ABI, quoting, errno texts) directly.
//
// Memory: the only allocations are message buffers, the PATH candidate
// buffer and, for a script without #!, the /bin/sh argv, each sized from
// the actual strings with overflow checks; running out of memory exits 127
// with a message. The path rules are never collected: rule_at walks the
// arguments again for each (as allowRules, quadratic in the roots).

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stage2_linux.h"

// openat2 and its RESOLVE_* flags (linux/openat2.h), spelled out for older
// headers; the number is the same on every architecture.
#define ZS_SYS_OPENAT2 437
#define ZS_RESOLVE_NO_MAGICLINKS 0x02
#define ZS_RESOLVE_NO_SYMLINKS 0x04

// glibc passes (argc, argv, envp) to constructors (musl does not); amd64
// and arm64 are the architectures zsandbox ships and tests. Elsewhere, and
// with -tags zsandbox_gostage2, the Go stage 2 runs.
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(ZS_GO_STAGE2)
#define ZS_ACTIVE 1
#else
#define ZS_ACTIVE 0
#endif

// System call numbers, in case the build host's headers predate them (the
// same on x86_64 and on every architecture with the generic table).
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define ZS_CREATE_RULESET_VERSION 1U
#define ZS_RULE_PATH_BENEATH 1
#define ZS_CLOSE_RANGE_CLOEXEC 4U

// struct landlock_ruleset_attr up to scoped, as enforce_linux.go passes it.
struct zs_ruleset_attr {
	uint64_t handled_fs;
	uint64_t handled_net;
	uint64_t scoped;
};

// struct landlock_path_beneath_attr (packed in the kernel's header too).
struct zs_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

// ---- Access rights (access.go) -------------------------------------------

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)        // ABI 2
#define FS_TRUNCATE (1ULL << 14)     // ABI 3
#define FS_IOCTL_DEV (1ULL << 15)    // ABI 5
#define FS_RESOLVE_UNIX (1ULL << 16) // ABI 9

#define NET_BIND_TCP (1ULL << 0)         // ABI 4
#define NET_CONNECT_TCP (1ULL << 1)      // ABI 4
#define NET_BIND_UDP (1ULL << 2)         // ABI 10
#define NET_CONNECT_SEND_UDP (1ULL << 3) // ABI 10

#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) // ABI 6
#define SCOPE_SIGNAL (1ULL << 1)               // ABI 6

// fileAccess, readAccess, writeAccess, deviceAccess (access.go, rules.go).
#define FILE_ACCESS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define READ_ACCESS (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
#define WRITE_ACCESS                                                                          \
	(FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR |        \
	 FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER | \
	 FS_TRUNCATE | FS_IOCTL_DEV)
#define DEVICE_ACCESS (FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

static const char *const zs_fs_names[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
	"make_sym", "refer", "truncate", "ioctl_dev", "resolve_unix",
};

// fsAt, netAt, scopeAt.
static uint64_t fs_at(int abi)
{
	uint64_t a = 0;
	if (abi >= 1)
		a = (FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		a |= FS_REFER;
	if (abi >= 3)
		a |= FS_TRUNCATE;
	if (abi >= 5)
		a |= FS_IOCTL_DEV;
	if (abi >= 9)
		a |= FS_RESOLVE_UNIX;
	return a;
}

static uint64_t net_at(int abi)
{
	uint64_t a = 0;
	if (abi >= 4)
		a = NET_BIND_TCP | NET_CONNECT_TCP;
	if (abi >= 10)
		a |= NET_BIND_UDP | NET_CONNECT_SEND_UDP;
	return a;
}

static uint64_t scope_at(int abi) { return abi >= 6 ? SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL : 0; }

// ---- Messages ---------------------------------------------------------------

struct zs_buf {
	char *p;
	size_t len, cap;
};

static void zs_oom(void) __attribute__((noreturn));
static void zs_oom(void)
{
	static const char msg[] = "zsandbox: error: stage 2: out of memory; the command did not run\n";
	ssize_t n = write(2, msg, sizeof msg - 1);
	(void)n;
	_exit(127);
}

static void buf_put(struct zs_buf *b, const void *s, size_t n)
{
	if (n == 0)
		return;
	if (n > SIZE_MAX / 4 - b->len)
		zs_oom();
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (p == NULL)
			zs_oom();
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void buf_str(struct zs_buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void buf_byte(struct zs_buf *b, char c) { buf_put(b, &c, 1); }

static void buf_uint(struct zs_buf *b, unsigned long long v)
{
	char d[24];
	size_t i = sizeof d;
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	buf_put(b, d + i, sizeof d - i);
}

static void buf_hex(struct zs_buf *b, unsigned long long v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = digits - 1; i >= 0; i--)
		buf_byte(b, hex[(v >> (4 * i)) & 0xf]);
}

// buf_quote is quote (args.go): s in double quotes, printable ASCII as is
// but for \" and \\, every other byte as \xNN.
static void buf_quote(struct zs_buf *b, const char *s)
{
	buf_byte(b, '"');
	for (const unsigned char *u = (const unsigned char *)s; *u != '\0'; u++) {
		if (*u == '"' || *u == '\\') {
			buf_byte(b, '\\');
			buf_byte(b, (char)*u);
		} else if (*u >= 0x20 && *u < 0x7f) {
			buf_byte(b, (char)*u);
		} else {
			buf_str(b, "\\x");
			buf_hex(b, *u, 2);
		}
	}
	buf_byte(b, '"');
}

// buf_errno is errText (stage2_linux.go): Go's text for the errnos stage 2
// reports, "errno N" for any other.
static void buf_errno(struct zs_buf *b, int e)
{
	static const struct {
		int e;
		const char *text;
	} texts[] = {
		{EPERM, "operation not permitted"},
		{ENOENT, "no such file or directory"},
		{E2BIG, "argument list too long"},
		{ENOEXEC, "exec format error"},
		{ENOMEM, "cannot allocate memory"},
		{EACCES, "permission denied"},
		{ETXTBSY, "text file busy"},
		{ENOTDIR, "not a directory"},
		{EISDIR, "is a directory"},
		{ENAMETOOLONG, "file name too long"},
		{ENOSYS, "function not implemented"},
		{ELOOP, "too many levels of symbolic links"},
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		if (texts[i].e == e) {
			buf_str(b, texts[i].text);
			return;
		}
	}
	buf_str(b, "errno ");
	if (e < 0) {
		buf_byte(b, '-');
		buf_uint(b, -(long long)e);
	} else {
		buf_uint(b, (unsigned)e);
	}
}

// buf_fs_names is AccessFS.String: the rights' names, space-separated.
static void buf_fs_names(struct zs_buf *b, uint64_t a)
{
	int first = 1;
	for (unsigned i = 0; a != 0; i++, a >>= 1) {
		if ((a & 1) == 0)
			continue;
		if (!first)
			buf_byte(b, ' ');
		first = 0;
		if (i < sizeof zs_fs_names / sizeof zs_fs_names[0]) {
			buf_str(b, zs_fs_names[i]);
		} else {
			buf_str(b, "bit");
			buf_uint(b, i);
		}
	}
}

// die is Stage2's die: "zsandbox: error: MSG" and an optional hint line,
// in one write (retried after EINTR and short writes), then exit.
static void die(int code, const struct zs_buf *msg, const char *hint) __attribute__((noreturn));
static void die(int code, const struct zs_buf *msg, const char *hint)
{
	struct zs_buf b = {0};
	buf_str(&b, "zsandbox: error: ");
	buf_put(&b, msg->p, msg->len);
	buf_byte(&b, '\n');
	if (hint != NULL && hint[0] != '\0') {
		buf_str(&b, "zsandbox: hint: ");
		buf_str(&b, hint);
		buf_byte(&b, '\n');
	}
	for (const char *p = b.p; p < b.p + b.len;) {
		ssize_t w = write(2, p, (size_t)(b.p + b.len - p));
		if (w > 0)
			p += w;
		else if (w == 0 || errno != EINTR)
			break;
	}
	_exit(code);
}

// die_not_run ends msg with "; the command did not run" and dies with 127.
static void die_not_run(struct zs_buf *msg, const char *hint) __attribute__((noreturn));
static void die_not_run(struct zs_buf *msg, const char *hint)
{
	buf_str(msg, "; the command did not run");
	die(127, msg, hint);
}

// ---- ParseArgs (args.go) ----------------------------------------------------

enum { MODE_UNSET, MODE_AUTO, MODE_REQUIRE, MODE_OFF };

// zs_config is Config: items are the arguments before "--", the writable
// roots among them in order (no copy is made).
struct zs_config {
	int mode;
	int abi; // Config.ABI: the ABI the parent planned the fence for
	int deny;
	int unix_allow; // Config.UnixSockets
	char **items;
	int nitems;
};

#define KEY_MODE "landlock="
#define KEY_ABI "abi="
#define KEY_NETWORK "network="
#define KEY_UNIX "unix="
#define KEY_WRITABLE "writable="
#define MAX_ABI_DIGITS 4 // maxABIDigits

static int has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

// parse_allow_deny is parseAllowDeny: key's allow or deny into *flag, deny
// setting it to true_for_deny. It returns 0 with the error in err.
static int parse_allow_deny(int *flag, int true_for_deny, int *seen, const char *key, const char *v, struct zs_buf *err)
{
	if (*seen) {
		buf_str(err, key);
		buf_str(err, " given twice");
		return 0;
	}
	*seen = 1;
	if (strcmp(v, "deny") == 0) {
		*flag = true_for_deny;
	} else if (strcmp(v, "allow") == 0) {
		*flag = !true_for_deny;
	} else {
		buf_str(err, key);
		buf_quote(err, v);
		buf_str(err, ": must be allow or deny");
		return 0;
	}
	return 1;
}

// parse_abi is parseABIArg: a decimal number of at most MAX_ABI_DIGITS
// digits. It returns 0 with the error in err.
static int parse_abi(struct zs_config *c, int *seen, const char *v, struct zs_buf *err)
{
	if (*seen) {
		buf_str(err, "abi= given twice");
		return 0;
	}
	*seen = 1;
	int n = 0;
	for (int i = 0; v[i] != '\0'; i++) {
		if (v[i] < '0' || v[i] > '9' || i >= MAX_ABI_DIGITS) {
			n = -1;
			break;
		}
		n = n * 10 + (v[i] - '0');
	}
	if (v[0] == '\0' || n < 0) {
		buf_str(err, "abi=");
		buf_quote(err, v);
		buf_str(err, ": must be a Landlock ABI version");
		return 0;
	}
	c->abi = n;
	return 1;
}

// parse_args is ParseArgs on args[:n]: it returns the index of the "--"
// before the command, or -1 with the error in err.
static int parse_args(int n, char **args, struct zs_config *c, struct zs_buf *err)
{
	int saw_abi = 0, saw_network = 0, saw_unix = 0;
	memset(c, 0, sizeof *c);
	buf_str(err, "stage 2: ");
	for (int i = 0; i < n; i++) {
		const char *a = args[i];
		if (strcmp(a, "--") == 0) { // finishArgs
			if (c->mode == MODE_UNSET) {
				buf_str(err, "no landlock= argument");
				return -1;
			}
			if (!saw_abi) {
				buf_str(err, "no abi= argument");
				return -1;
			}
			if (!saw_network) {
				buf_str(err, "no network= argument");
				return -1;
			}
			if (!saw_unix) {
				buf_str(err, "no unix= argument");
				return -1;
			}
			if (i + 1 >= n) {
				buf_str(err, "no command");
				return -1;
			}
			c->items = args;
			c->nitems = i;
			return i;
		}
		if (has_prefix(a, KEY_MODE)) { // parseModeArg
			const char *v = a + strlen(KEY_MODE);
			if (c->mode != MODE_UNSET) {
				buf_str(err, "landlock= given twice");
				return -1;
			}
			if (v[0] == '\0') {
				buf_str(err, "landlock= is empty");
				return -1;
			}
			if (strcmp(v, "auto") == 0) {
				c->mode = MODE_AUTO;
			} else if (strcmp(v, "require") == 0) {
				c->mode = MODE_REQUIRE;
			} else if (strcmp(v, "off") == 0) {
				c->mode = MODE_OFF;
			} else {
				buf_str(err, "--landlock ");
				buf_quote(err, v);
				buf_str(err, ": must be auto, require or off");
				return -1;
			}
		} else if (has_prefix(a, KEY_ABI)) {
			if (!parse_abi(c, &saw_abi, a + strlen(KEY_ABI), err))
				return -1;
		} else if (has_prefix(a, KEY_NETWORK)) {
			if (!parse_allow_deny(&c->deny, 1, &saw_network, KEY_NETWORK, a + strlen(KEY_NETWORK), err))
				return -1;
		} else if (has_prefix(a, KEY_UNIX)) {
			if (!parse_allow_deny(&c->unix_allow, 0, &saw_unix, KEY_UNIX, a + strlen(KEY_UNIX), err))
				return -1;
		} else if (has_prefix(a, KEY_WRITABLE)) { // parseWritableArg
			const char *v = a + strlen(KEY_WRITABLE);
			if (v[0] != '/') {
				buf_str(err, "writable root ");
				buf_quote(err, v);
				buf_str(err, ": not an absolute path");
				return -1;
			}
		} else {
			buf_str(err, "unknown argument ");
			buf_quote(err, a);
			return -1;
		}
	}
	buf_str(err, "no \"--\" before the command");
	return -1;
}

// ---- Rules and Check (rules.go) --------------------------------------------

enum { ST_ENFORCED, ST_OFF, ST_UNAVAILABLE, ST_REFUSED };

// zs_fence is fence(c): deny_only items are there under --network deny,
// unix_only ones without --allow-unix-sockets, abstract_only ones where
// scopes_abstract(c).
static const struct {
	const char *what;
	int abi, required, deny_only, unix_only, abstract_only;
} zs_fence[] = {
	{"writes outside the writable roots", 1, 1, 0, 0, 0},
	{"truncation of files outside the writable roots", 3, 1, 0, 0, 0},
	{"TCP connect and bind", 4, 1, 1, 0, 0},
	{"signals to processes outside the sandbox", 6, 1, 0, 0, 0},
	{"connections to abstract unix sockets outside the sandbox", 6, 1, 0, 0, 1},
	{"connections to pathname unix sockets made outside the sandbox", 9, 0, 0, 1, 0},
	{"UDP bind and send", 10, 0, 1, 0, 0},
};

#define ZS_FENCE_LEN ((int)(sizeof zs_fence / sizeof zs_fence[0]))

// scopes_abstract is scopesAbstract(c).
static int scopes_abstract(const struct zs_config *c)
{
	return !c->unix_allow || c->deny;
}

// in_required_fence: fence item i is required under c.
static int in_required_fence(const struct zs_config *c, int i)
{
	return zs_fence[i].required && (c->deny || !zs_fence[i].deny_only) &&
	       (!c->unix_allow || !zs_fence[i].unix_only) && (scopes_abstract(c) || !zs_fence[i].abstract_only);
}

// zs_plan is the Ruleset without its paths (see rule_at).
struct zs_plan {
	int status, abi, required;
	uint64_t fs, net, scoped;
};

// make_plan is Rules(c, abi) but for the paths.
static void make_plan(const struct zs_config *c, int abi, struct zs_plan *p)
{
	memset(p, 0, sizeof *p);
	p->abi = abi > 0 ? abi : 0;
	for (int i = 0; i < ZS_FENCE_LEN; i++)
		if (in_required_fence(c, i) && zs_fence[i].abi > p->required)
			p->required = zs_fence[i].abi;
	if (c->mode == MODE_OFF)
		p->status = ST_OFF;
	else if (c->mode == MODE_REQUIRE && p->abi < p->required)
		p->status = ST_REFUSED;
	else if (p->abi == 0)
		p->status = ST_UNAVAILABLE;
	else
		p->status = ST_ENFORCED;
	if (p->status != ST_ENFORCED)
		return;
	p->fs = fs_at(p->abi);
	if (c->deny)
		p->net = net_at(p->abi); // no port is allowed
	p->scoped = scope_at(p->abi);
	if (c->unix_allow)
		p->fs &= ~FS_RESOLVE_UNIX;
	if (!scopes_abstract(c))
		p->scoped &= ~SCOPE_ABSTRACT_UNIX_SOCKET;
}

// require_message is RequireError's Error (into msg) and Hint (into hint)
// for a refused plan.
static void require_message(const struct zs_config *c, const struct zs_plan *p, struct zs_buf *msg,
			    struct zs_buf *hint)
{
	static const char *const kernel_for[] = {NULL, "5.13", "5.19", "6.2", "6.7", "6.10", "6.12", "6.15"};
	if (p->abi == 0) {
		buf_str(msg, "--landlock require: this kernel has no Landlock");
		buf_str(hint, "Landlock needs Linux 5.13 or newer with landlock in the lsm= boot parameter "
			      "(see /sys/kernel/security/lsm); or use --landlock auto to run with bubblewrap alone");
		return;
	}
	buf_str(msg, "--landlock require: the kernel offers Landlock ABI ");
	buf_uint(msg, (unsigned)p->abi);
	buf_str(msg, ", the policy needs ABI ");
	buf_uint(msg, (unsigned)p->required);
	buf_str(msg, " (missing: ");
	const char *sep = "";
	for (int i = 0; i < ZS_FENCE_LEN; i++) {
		if (in_required_fence(c, i) && zs_fence[i].abi > p->abi) {
			buf_str(msg, sep);
			buf_str(msg, zs_fence[i].what);
			sep = "; ";
		}
	}
	buf_byte(msg, ')');
	buf_str(hint, "Landlock ABI ");
	buf_uint(hint, (unsigned)p->required);
	buf_str(hint, " needs Linux ");
	if (p->required < (int)(sizeof kernel_for / sizeof kernel_for[0])) { // kernelFor
		buf_str(hint, kernel_for[p->required]);
	} else {
		buf_str(hint, "a release with Landlock ABI ");
		buf_uint(hint, (unsigned)p->required);
	}
	buf_str(hint, " or newer; or use --landlock auto to enforce what ABI ");
	buf_uint(hint, (unsigned)p->abi);
	buf_str(hint, " can");
}

// allowRules' list, before merging, is "/" (read), each writable root (read
// and every write right), the devices (device rights, if they exist) and
// the device directories (read and write, if they exist).
static const char *const zs_devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"};
static const char *const zs_device_dirs[] = {"/dev/shm"};

#define ZS_NDEVICES ((int)(sizeof zs_devices / sizeof zs_devices[0]))
#define ZS_NDEVICE_DIRS ((int)(sizeof zs_device_dirs / sizeof zs_device_dirs[0]))

struct zs_rule {
	const char *path;
	uint64_t access;
	int if_exists;
	int exact; // PathRule.Exact: opened with no symlink in the path
};

static int cand_count(const struct zs_config *c) { return 1 + c->nitems + ZS_NDEVICES + ZS_NDEVICE_DIRS; }

// cand_at is entry i of that list: 0 is "/", 1..nitems the items (0 is
// returned for an item that is not a writable root), then the devices.
static int cand_at(const struct zs_config *c, int i, struct zs_rule *r)
{
	if (i == 0) {
		*r = (struct zs_rule){"/", READ_ACCESS, 0, 0};
		return 1;
	}
	i--;
	if (i < c->nitems) {
		if (!has_prefix(c->items[i], KEY_WRITABLE))
			return 0;
		*r = (struct zs_rule){c->items[i] + strlen(KEY_WRITABLE), READ_ACCESS | WRITE_ACCESS, 0, 1};
		return 1;
	}
	i -= c->nitems;
	if (i < ZS_NDEVICES) {
		*r = (struct zs_rule){zs_devices[i], DEVICE_ACCESS, 1, 0};
		return 1;
	}
	i -= ZS_NDEVICES;
	if (i < ZS_NDEVICE_DIRS) {
		*r = (struct zs_rule){zs_device_dirs[i], READ_ACCESS | WRITE_ACCESS, 1, 0};
		return 1;
	}
	return 0;
}

// rule_at is allowRules' merging: the rule for entry i's path with the
// rights of every entry naming it (cut to handled), present-only if every
// one is. It returns 0 when i is not a rule's first entry, so that walking
// i upwards yields allowRules' rules in its order.
static int rule_at(const struct zs_config *c, uint64_t handled, int i, struct zs_rule *r)
{
	struct zs_rule o;
	int n = cand_count(c);
	if (!cand_at(c, i, r))
		return 0;
	for (int j = 0; j < i; j++)
		if (cand_at(c, j, &o) && strcmp(o.path, r->path) == 0)
			return 0;
	r->access &= handled;
	for (int j = i + 1; j < n; j++) {
		if (cand_at(c, j, &o) && strcmp(o.path, r->path) == 0) {
			r->access |= o.access & handled;
			r->if_exists = r->if_exists && o.if_exists;
			r->exact = r->exact || o.exact;
		}
	}
	return 1;
}

// ---- Enforce (enforce_linux.go) --------------------------------------------

// landlock_abi is ABI(): 0 without Landlock or when the call fails.
static int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, ZS_CREATE_RULESET_VERSION);
	return v < 0 || v > 0x7fffffff ? 0 : (int)v;
}

// rule_fail dies with addPathRule's and openRulePath's messages:
// "landlock: landlock rule for PATH", then " (RIGHTS)" if access is not 0,
// then ": " and errno e's text, or ": not an absolute path" if e is 0. It
// closes fd (if not -1) and the ruleset first.
static void rule_fail(int ruleset, int fd, const char *path, uint64_t access, int e) __attribute__((noreturn));
static void rule_fail(int ruleset, int fd, const char *path, uint64_t access, int e)
{
	struct zs_buf b = {0};
	if (fd >= 0)
		close(fd);
	close(ruleset);
	buf_str(&b, "landlock: landlock rule for ");
	buf_quote(&b, path);
	if (access != 0) {
		buf_str(&b, " (");
		buf_fs_names(&b, access);
		buf_byte(&b, ')');
	}
	buf_str(&b, ": ");
	if (e != 0)
		buf_errno(&b, e);
	else
		buf_str(&b, "not an absolute path");
	die_not_run(&b, NULL);
}

// open_exact is openRulePath's Exact open: openat2 with no symlink (or
// magic link) anywhere in the path.
static int open_exact(const char *path)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = {.flags = O_PATH | O_CLOEXEC, .mode = 0, .resolve = ZS_RESOLVE_NO_SYMLINKS | ZS_RESOLVE_NO_MAGICLINKS};
	return (int)syscall(ZS_SYS_OPENAT2, AT_FDCWD, path, &how, sizeof how);
}

// add_path_rule is addPathRule and openRulePath (never NoFollow here). It
// dies on failure.
static void add_path_rule(int ruleset, const struct zs_rule *r)
{
	if (r->path[0] != '/')
		rule_fail(ruleset, -1, r->path, 0, 0);
	int fd = r->exact ? open_exact(r->path) : open(r->path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (r->if_exists && errno == ENOENT)
			return;
		rule_fail(ruleset, -1, r->path, 0, errno);
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
		rule_fail(ruleset, fd, r->path, 0, errno);
	uint64_t access = r->access;
	if ((st.st_mode & S_IFMT) != S_IFDIR)
		access &= FILE_ACCESS; // the kernel refuses directory rights on a file
	if (access != 0) {         // else nothing to allow (the kernel refuses an empty rule)
		struct zs_path_beneath_attr attr = {.allowed_access = access, .parent_fd = fd};
		if (syscall(SYS_landlock_add_rule, ruleset, ZS_RULE_PATH_BENEATH, &attr, 0) != 0)
			rule_fail(ruleset, fd, r->path, access, errno);
	}
	close(fd);
}

// enforce is enforce(c, false) with Stage2's error handling: it restricts
// this (only) thread with the planned fence or dies with 127.
static void enforce(const struct zs_config *c)
{
	struct zs_plan p;
	struct zs_buf msg = {0};
	make_plan(c, c->abi, &p);
	if (p.status == ST_REFUSED) {
		struct zs_buf hint = {0};
		require_message(c, &p, &msg, &hint);
		buf_byte(&hint, '\0');
		die_not_run(&msg, hint.p);
	}
	if (p.status != ST_ENFORCED)
		return;
	int seen = landlock_abi();
	if (seen < p.abi) { // PlannedError
		buf_str(&msg, "landlock: the sandbox sees Landlock ABI ");
		buf_uint(&msg, (unsigned)seen);
		buf_str(&msg, ", but zsandbox planned the fence for ABI ");
		buf_uint(&msg, (unsigned)p.abi);
		buf_str(&msg, " (is a seccomp filter refusing landlock_create_ruleset?)");
		die_not_run(&msg, "let the seccomp profile allow landlock_create_ruleset, landlock_add_rule and "
				  "landlock_restrict_self, or use --landlock off");
	}

	// rulesetFD: network rights handled with no port rule deny every
	// TCP (and, from ABI 10, UDP) connect and bind.
	struct zs_ruleset_attr attr = {.handled_fs = p.fs, .handled_net = p.net, .scoped = p.scoped};
	long ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (ruleset < 0) {
		int e = errno;
		buf_str(&msg, "landlock: landlock_create_ruleset: ");
		buf_errno(&msg, e);
		die_not_run(&msg, NULL);
	}
	for (int i = 0, n = cand_count(c); i < n; i++) {
		struct zs_rule r;
		if (rule_at(c, p.fs, i, &r))
			add_path_rule((int)ruleset, &r);
	}

	// restrictSelf: no_new_privs (landlock_restrict_self requires it of an
	// unprivileged thread; it also keeps setuid programs from escaping).
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		int e = errno;
		buf_str(&msg, "landlock: prctl(PR_SET_NO_NEW_PRIVS): ");
		buf_errno(&msg, e);
		die_not_run(&msg, NULL);
	}
	if (syscall(SYS_landlock_restrict_self, (int)ruleset, 0) != 0) {
		int e = errno;
		buf_str(&msg, "landlock: landlock_restrict_self: ");
		if (e == E2BIG)
			buf_str(&msg, "too many nested Landlock domains: ");
		buf_errno(&msg, e);
		die_not_run(&msg, NULL);
	}
	close((int)ruleset);
}

// ---- closeInherited (stage2_linux.go) ----------------------------------------

struct zs_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

// close_inherited marks every descriptor above stderr close-on-exec (the
// one bwrap executed zsandbox from included); before Linux 5.11, through
// /proc/self/fd. It dies when neither works.
static void close_inherited(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, ZS_CLOSE_RANGE_CLOEXEC) == 0)
		return;
	int err = errno;
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir >= 0) {
		uint64_t buf[1024]; // 8-byte aligned, as struct linux_dirent64 needs
		long n;
		while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
			for (long off = 0; off < n;) {
				const struct zs_dirent64 *d = (const void *)((const char *)buf + off);
				if (d->d_reclen == 0)
					break;
				off += d->d_reclen;
				// The names are decimal descriptor numbers (and "." and "..").
				long fd = 0;
				const char *s = d->d_name;
				for (; *s >= '0' && *s <= '9' && fd <= 0x7fffffff; s++)
					fd = fd * 10 + (*s - '0');
				if (*s == '\0' && s != d->d_name && fd > 2 && fd <= 0x7fffffff)
					fcntl((int)fd, F_SETFD, FD_CLOEXEC);
			}
		}
		close(dir);
		if (n == 0)
			return;
		// As os.ReadDir failing: report close_range's error.
	}
	struct zs_buf msg = {0};
	buf_str(&msg, "closing inherited descriptors: ");
	buf_errno(&msg, err);
	die_not_run(&msg, NULL);
}

// ---- execvp (stage2_linux.go) ------------------------------------------------

// exec_file is execFile: execve file, and a file the kernel cannot execute
// (ENOEXEC: a script without #!) with /bin/sh. It returns only on failure,
// with execve's first errno.
static int exec_file(const char *file, char **argv, char **env)
{
	execve(file, argv, env);
	int e = errno;
	if (e == ENOEXEC) {
		size_t argc = 0;
		while (argv[argc] != NULL)
			argc++;
		if (argc > SIZE_MAX / sizeof(char *) - 2)
			zs_oom();
		char **sh = malloc((argc + 2) * sizeof *sh);
		if (sh == NULL)
			zs_oom();
		sh[0] = (char *)"/bin/sh";
		sh[1] = (char *)file;
		for (size_t i = 1; i <= argc; i++) // argv[1:] and its NULL
			sh[i + 1] = argv[i];
		execve("/bin/sh", sh, env); // on failure, report ENOEXEC
		free(sh);
	}
	return e;
}

// die_exec is die(code, name + mid + text), text an errno's (e > 0) or
// literal.
static void die_exec(int code, const char *name, const char *mid, int e, const char *text) __attribute__((noreturn));
static void die_exec(int code, const char *name, const char *mid, int e, const char *text)
{
	struct zs_buf msg = {0};
	buf_str(&msg, name);
	buf_str(&msg, mid);
	if (e > 0)
		buf_errno(&msg, e);
	else
		buf_str(&msg, text);
	die(code, &msg, NULL);
}

// run_command is execvp: a name with a slash as is, any other on each
// entry of PATH (the first PATH= in env; unset: /bin:/usr/bin; an empty
// entry is the current directory). It never returns: 127 when nothing was
// found, 126 when something was found but could not be executed.
static void run_command(char **argv, char **env) __attribute__((noreturn));
static void run_command(char **argv, char **env)
{
	const char *name = argv[0];
	if (name[0] == '\0')
		die_exec(127, "\"\"", ": ", 0, "command not found");
	if (strchr(name, '/') != NULL) {
		int e = exec_file(name, argv, env);
		if (e == ENOENT || e == ENOTDIR)
			die_exec(127, name, ": ", e, NULL);
		die_exec(126, name, ": cannot execute: ", e, NULL);
	}
	const char *path = "/bin:/usr/bin";
	for (char **kv = env; *kv != NULL; kv++) {
		if (strncmp(*kv, "PATH=", 5) == 0) {
			path = *kv + 5;
			break;
		}
	}

	// searchPath: the longest candidate is the longest entry (or ".") +
	// "/" + name.
	size_t plen = strlen(path), nlen = strlen(name);
	if (plen > SIZE_MAX / 2 || nlen > SIZE_MAX / 2 - 3)
		zs_oom();
	char *file = malloc(plen + nlen + 3);
	if (file == NULL)
		zs_oom();
	int denied = 0;
	for (const char *dir = path;;) {
		const char *colon = strchr(dir, ':');
		size_t dlen = colon != NULL ? (size_t)(colon - dir) : strlen(dir);
		if (dlen == 0) {
			file[0] = '.';
			dlen = 1;
		} else {
			memcpy(file, dir, dlen);
		}
		file[dlen] = '/';
		memcpy(file + dlen + 1, name, nlen + 1);
		int e = exec_file(file, argv, env);
		struct stat st;
		switch (e) {
		case EACCES:
			// A PATH directory the user cannot search hides nothing
			// from us: only a file that is there but not executable
			// makes this a 126, as in bash.
			denied = denied || stat(file, &st) == 0;
			break;
		case ENOENT:
		case ENOTDIR:
		case ESTALE:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			die_exec(126, file, ": cannot execute: ", e, NULL);
		}
		if (colon == NULL)
			break;
		dir = colon + 1;
	}
	if (denied)
		die_exec(126, name, ": cannot execute: ", 0, "permission denied");
	die_exec(127, name, ": ", 0, "command not found");
}

// ---- Stage2 -----------------------------------------------------------------

// stage2 is Stage2(args[:n]). args[n] is NULL.
//
// The command inherits the signal dispositions, signal mask, standard
// descriptors and environment this process was executed with, as from any
// execve-based launcher. (The Go stage 2 hands on what the Go runtime made
// of them: a few SIG_IGN reset, some signals unblocked, a closed stdin,
// stdout or stderr opened on /dev/null, duplicate environment entries
// dropped. None of it bears on the sandbox.)
static void stage2(int n, char **args, char **envp) __attribute__((noreturn));
static void stage2(int n, char **args, char **envp)
{
	struct zs_config c;
	struct zs_buf err = {0};
	int sep = parse_args(n, args, &c, &err);
	if (sep < 0)
		die_not_run(&err, NULL);
	// Only this thread exists: the domain and no_new_privs cover the
	// process, and execve keeps them.
	enforce(&c);
	close_inherited();
	run_command(args + sep + 1, envp);
}

// zs_stage2_ctor runs before main (and so before the Go runtime). glibc
// passes constructors main's arguments, in static binaries too.
__attribute__((constructor, used)) static void zs_stage2_ctor(int argc, char **argv, char **envp)
{
#if ZS_ACTIVE
	if (argc >= 2 && argv != NULL && argv[1] != NULL && envp != NULL && strcmp(argv[1], "__stage2") == 0)
		stage2(argc - 2, argv + 2, envp);
#else
	(void)argc;
	(void)argv;
	(void)envp;
#endif
}

// ---- Test hooks (stage2_linux.h) ----------------------------------------------

int zs_stage2_active(void) { return ZS_ACTIVE; }

static void hand_over(struct zs_buf *b, char **out, size_t *outlen)
{
	buf_byte(b, '\0'); // never an empty allocation
	*out = b->p;
	*outlen = b->len - 1;
}

void zs_test_quote(const char *s, char **out, size_t *outlen)
{
	struct zs_buf b = {0};
	buf_quote(&b, s);
	hand_over(&b, out, outlen);
}

void zs_test_errno(int e, char **out, size_t *outlen)
{
	struct zs_buf b = {0};
	buf_errno(&b, e);
	hand_over(&b, out, outlen);
}

int zs_test_parse(int n, char **args, char **out, size_t *outlen)
{
	static const char *const modes[] = {"", "auto", "require", "off"};
	struct zs_config c;
	struct zs_buf b = {0};
	int sep = parse_args(n, args, &c, &b);
	if (sep >= 0) { // the Config and command index, one fact a line
		b.len = 0;
		buf_str(&b, "landlock=");
		buf_str(&b, modes[c.mode]);
		buf_str(&b, "\nabi=");
		buf_uint(&b, (unsigned)c.abi);
		buf_str(&b, c.deny ? "\nnetwork=deny\n" : "\nnetwork=allow\n");
		buf_str(&b, c.unix_allow ? "unix=allow\n" : "unix=deny\n");
		for (int i = 0; i < c.nitems; i++) {
			if (has_prefix(c.items[i], KEY_WRITABLE)) {
				buf_str(&b, c.items[i]);
				buf_byte(&b, '\n');
			}
		}
		buf_str(&b, "command=");
		buf_uint(&b, (unsigned)(sep + 1));
		buf_byte(&b, '\n');
	}
	hand_over(&b, out, outlen);
	return sep >= 0;
}

int zs_test_rules(int n, char **args, char **out, size_t *outlen)
{
	static const char *const statuses[] = {"enforced", "off", "unavailable", "refused"};
	struct zs_config c;
	struct zs_plan p;
	struct zs_buf b = {0};
	if (parse_args(n, args, &c, &b) < 0) {
		hand_over(&b, out, outlen);
		return 0;
	}
	b.len = 0;
	make_plan(&c, c.abi, &p);
	buf_str(&b, "status=");
	buf_str(&b, statuses[p.status]);
	buf_str(&b, "\nabi=");
	buf_uint(&b, (unsigned)p.abi);
	buf_str(&b, "\nrequired=");
	buf_uint(&b, (unsigned)p.required);
	buf_str(&b, "\nfs=");
	buf_fs_names(&b, p.fs);
	buf_str(&b, "\nnet=");
	buf_hex(&b, p.net, 2);
	buf_str(&b, "\nscoped=");
	buf_hex(&b, p.scoped, 2);
	buf_byte(&b, '\n');
	if (p.status == ST_REFUSED) {
		struct zs_buf msg = {0}, hint = {0};
		require_message(&c, &p, &msg, &hint);
		buf_str(&b, "error=");
		buf_put(&b, msg.p, msg.len);
		buf_str(&b, "\nhint=");
		buf_put(&b, hint.p, hint.len);
		buf_byte(&b, '\n');
		free(msg.p);
		free(hint.p);
	}
	if (p.status == ST_ENFORCED) {
		for (int i = 0, m = cand_count(&c); i < m; i++) {
			struct zs_rule r;
			if (!rule_at(&c, p.fs, i, &r))
				continue;
			buf_str(&b, "allow ");
			buf_quote(&b, r.path);
			buf_str(&b, r.if_exists ? " if-exists: " : ": ");
			buf_fs_names(&b, r.access);
			buf_byte(&b, '\n');
		}
	}
	hand_over(&b, out, outlen);
	return 1;
}
