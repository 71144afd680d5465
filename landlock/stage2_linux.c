//go:build linux && cgo

// Stage 2 in C: zsandbox's Landlock stage 2, run from an ELF constructor
// before the Go runtime starts (the technique runc's nsenter uses).
//
// bwrap runs "zsandbox __stage2 RULESET... -- COMMAND..." (Ruleset.Command):
// the ruleset the parent planned, as exact numbers. Starting a static cgo
// Go binary costs about 1.4 ms, and execve from a multi-threaded Go
// process another 0.6 ms; this constructor sees argv[1] == "__stage2" and
// does the whole stage 2 itself, single-threaded, before main: it never
// returns. Any other argv[1] returns at once.
//
// It is an executor, not a planner: it derives nothing. It parses the
// ruleset, checks the kernel offers the ABI it was planned for (else 127),
// adds the rules, restricts itself, closes inherited descriptors and execs
// the command. It mirrors the Go stage 2, which stays the implementation
// of builds without cgo:
//
//   parse_args        ParseArgs (args.go)
//   enforce           apply, rulesetFD, addPathRule, restrictSelf
//                     (enforce_linux.go)
//   close_inherited   closeInherited (stage2_linux.go)
//   run_command       execvp, searchPath, execFile (stage2_linux.go)
//   buf_quote         quote (args.go)
//   buf_errno         errText (stage2_linux.go)
//
// The keys, rights' names, errno texts and messages it shares with Go come
// from stage2_consts_linux.h, generated from the Go values (go generate;
// TestStage2Consts checks it is current). stage2_diff_linux_test.go runs
// both stage 2s on the same cases and compares exit status, output and
// effects; stage2_c_linux_test.go compares parsing, quoting and errno
// texts directly.
//
// Memory: the only allocations are message buffers, the PATH candidate
// buffer and, for a script without #!, the /bin/sh argv, each sized from
// the actual strings with overflow checks; running out of memory exits 127
// with a message. The rules are never collected: enforce reads each from
// its argument.

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

#include "stage2_consts_linux.h"
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
#define ZS_RULE_NET_PORT 2
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
	for (size_t i = 0; i < sizeof zs_errno_texts / sizeof zs_errno_texts[0]; i++) {
		if (zs_errno_texts[i].e == e) {
			buf_str(b, zs_errno_texts[i].text);
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

// zs_plan is the Ruleset: the numbers, and the arguments before "--", where
// the rules are (read by rule_at, never copied).
struct zs_plan {
	int abi;
	uint64_t fs, net, scope;
	char **items;
	int nitems;
};

struct zs_rule {
	const char *path;
	uint64_t access;
	int exact, if_exists, no_follow;
};

static int has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

// parse_abi is parseABIArg: a decimal number of at most ZS_MAX_ABI_DIGITS
// digits. It returns 0 with the error in err.
static int parse_abi(int *abi, int *seen, const char *v, struct zs_buf *err)
{
	if (*seen) {
		buf_str(err, "abi= given twice");
		return 0;
	}
	*seen = 1;
	int n = 0;
	for (int i = 0; v[i] != '\0'; i++) {
		if (v[i] < '0' || v[i] > '9' || i >= ZS_MAX_ABI_DIGITS) {
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
	*abi = n;
	return 1;
}

// parse_hex is parseHex on v[:len]: 1 to ZS_MAX_HEX_DIGITS lowercase
// hexadecimal digits.
static int parse_hex(const char *v, size_t len, uint64_t *out)
{
	if (len == 0 || len > ZS_MAX_HEX_DIGITS)
		return 0;
	uint64_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = v[i];
		if (c >= '0' && c <= '9')
			n = n << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			n = n << 4 | (uint64_t)(c - 'a' + 10);
		else
			return 0;
	}
	*out = n;
	return 1;
}

// parse_hex_arg is parseHexArg. It returns 0 with the error in err.
static int parse_hex_arg(uint64_t *dst, int *seen, const char *key, const char *v, struct zs_buf *err)
{
	if (*seen) {
		buf_str(err, key);
		buf_str(err, " given twice");
		return 0;
	}
	*seen = 1;
	if (!parse_hex(v, strlen(v), dst)) {
		buf_str(err, key);
		buf_quote(err, v);
		buf_str(err, ": must be a hexadecimal number");
		return 0;
	}
	return 1;
}

// parse_rule is parseRuleArg: ACCESS,FLAGS,/PATH. It returns 0 when v is
// not one.
static int parse_rule(const char *v, struct zs_rule *r)
{
	const char *c1 = strchr(v, ',');
	if (c1 == NULL)
		return 0;
	const char *c2 = strchr(c1 + 1, ',');
	if (c2 == NULL || c2[1] != '/' || !parse_hex(v, (size_t)(c1 - v), &r->access))
		return 0;
	const char *f = c1 + 1;
	r->exact = *f == ZS_FLAG_EXACT;
	f += r->exact;
	r->if_exists = *f == ZS_FLAG_IF_EXISTS;
	f += r->if_exists;
	r->no_follow = *f == ZS_FLAG_NO_FOLLOW;
	f += r->no_follow;
	r->path = c2 + 1;
	return f == c2;
}

// parse_port is parsePortArg: ACCESS,PORT with PORT 1 to
// ZS_MAX_PORT_DIGITS decimal digits, 1 to 65535. It returns 0 when v is
// not one.
static int parse_port(const char *v, uint64_t *access, unsigned *port)
{
	const char *c = strchr(v, ',');
	if (c == NULL || !parse_hex(v, (size_t)(c - v), access))
		return 0;
	const char *d = c + 1;
	size_t len = strlen(d);
	if (len == 0 || len > ZS_MAX_PORT_DIGITS)
		return 0;
	unsigned n = 0;
	for (size_t i = 0; i < len; i++) {
		if (d[i] < '0' || d[i] > '9')
			return 0;
		n = n * 10 + (unsigned)(d[i] - '0');
	}
	if (n < 1 || n > 65535)
		return 0;
	*port = n;
	return 1;
}

// parse_args is ParseArgs on args[:n]: it returns the index of the "--"
// before the command, or -1 with the error in err.
static int parse_args(int n, char **args, struct zs_plan *p, struct zs_buf *err)
{
	int seen_abi = 0, seen_fs = 0, seen_net = 0, seen_scope = 0, nrules = 0;
	*p = (struct zs_plan){.items = args};
	buf_str(err, "stage 2: ");
	for (int i = 0; i < n; i++) {
		const char *a = args[i];
		struct zs_rule r;
		if (strcmp(a, "--") == 0) {
			const char *missing = !seen_abi ? "abi" : !seen_fs ? "fs" : !seen_net ? "net" : !seen_scope ? "scope" : NULL;
			if (missing != NULL) {
				buf_str(err, "no ");
				buf_str(err, missing);
				buf_str(err, "= argument");
				return -1;
			}
			if (i + 1 >= n) {
				buf_str(err, "no command");
				return -1;
			}
			if (p->abi == 0 && (p->fs != 0 || p->net != 0 || p->scope != 0 || nrules != 0)) {
				buf_str(err, "abi=0 with rights or rules");
				return -1;
			}
			p->nitems = i;
			return i;
		}
		int ok;
		if (has_prefix(a, ZS_KEY_ABI)) {
			ok = parse_abi(&p->abi, &seen_abi, a + strlen(ZS_KEY_ABI), err);
		} else if (has_prefix(a, ZS_KEY_FS)) {
			ok = parse_hex_arg(&p->fs, &seen_fs, ZS_KEY_FS, a + strlen(ZS_KEY_FS), err);
		} else if (has_prefix(a, ZS_KEY_NET)) {
			ok = parse_hex_arg(&p->net, &seen_net, ZS_KEY_NET, a + strlen(ZS_KEY_NET), err);
		} else if (has_prefix(a, ZS_KEY_SCOPE)) {
			ok = parse_hex_arg(&p->scope, &seen_scope, ZS_KEY_SCOPE, a + strlen(ZS_KEY_SCOPE), err);
		} else if (has_prefix(a, ZS_KEY_RULE)) {
			ok = parse_rule(a + strlen(ZS_KEY_RULE), &r);
			nrules++;
			if (!ok) {
				buf_str(err, "rule=");
				buf_quote(err, a + strlen(ZS_KEY_RULE));
				buf_str(err, ": must be ACCESS,FLAGS,/PATH");
			}
		} else if (has_prefix(a, ZS_KEY_PORT)) {
			uint64_t access;
			unsigned port;
			ok = parse_port(a + strlen(ZS_KEY_PORT), &access, &port);
			nrules++;
			if (!ok) {
				buf_str(err, "port=");
				buf_quote(err, a + strlen(ZS_KEY_PORT));
				buf_str(err, ": must be ACCESS,PORT");
			}
		} else {
			buf_str(err, "unknown argument ");
			buf_quote(err, a);
			ok = 0;
		}
		if (!ok)
			return -1;
	}
	buf_str(err, "no \"--\" before the command");
	return -1;
}

// rule_at is the rule in item i, if it is one (parse_args checked them).
static int rule_at(const struct zs_plan *p, int i, struct zs_rule *r)
{
	return has_prefix(p->items[i], ZS_KEY_RULE) && parse_rule(p->items[i] + strlen(ZS_KEY_RULE), r);
}

// port_at is the port rule in item i, if it is one (parse_args checked them).
static int port_at(const struct zs_plan *p, int i, uint64_t *access, unsigned *port)
{
	return has_prefix(p->items[i], ZS_KEY_PORT) && parse_port(p->items[i] + strlen(ZS_KEY_PORT), access, port);
}

// ---- apply (enforce_linux.go) ----------------------------------------------

// landlock_abi is ABI(): 0 without Landlock or when the call fails.
static int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, ZS_CREATE_RULESET_VERSION);
	return v < 0 || v > 0x7fffffff ? 0 : (int)v;
}

// rule_fail dies with addPathRule's and openRulePath's messages:
// "landlock: landlock rule for PATH", then " (RIGHTS)" if access is not 0,
// then ": " and errno e's text. It closes fd (if not -1) and the ruleset
// first.
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
	buf_errno(&b, e);
	die_not_run(&b, NULL);
}

// open_exact is openRulePath's Exact open: openat2 with no symlink (or
// magic link) anywhere in the path.
static int open_exact(const char *path, int flags)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = {.flags = (uint64_t)flags, .mode = 0, .resolve = ZS_RESOLVE_NO_SYMLINKS | ZS_RESOLVE_NO_MAGICLINKS};
	return (int)syscall(ZS_SYS_OPENAT2, AT_FDCWD, path, &how, sizeof how);
}

// add_path_rule is addPathRule and openRulePath. It dies on failure.
static void add_path_rule(int ruleset, const struct zs_rule *r)
{
	int flags = O_PATH | O_CLOEXEC | (r->no_follow ? O_NOFOLLOW : 0);
	int fd = r->exact ? open_exact(r->path, flags) : open(r->path, flags);
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
		access &= ZS_FILE_ACCESS; // the kernel refuses directory rights on a file
	// else nothing to allow (the kernel refuses an empty rule), or a
	// symlink where the rule must not follow one
	if (access != 0 && !(r->no_follow && (st.st_mode & S_IFMT) == S_IFLNK)) {
		struct zs_path_beneath_attr attr = {.allowed_access = access, .parent_fd = fd};
		if (syscall(SYS_landlock_add_rule, ruleset, ZS_RULE_PATH_BENEATH, &attr, 0) != 0)
			rule_fail(ruleset, fd, r->path, access, errno);
	}
	close(fd);
}

// add_port_rule is rulesetFD's port rule. It dies on failure.
static void add_port_rule(int ruleset, uint64_t access, unsigned port)
{
	struct {
		uint64_t allowed_access, port;
	} attr = {.allowed_access = access, .port = port};
	if (syscall(SYS_landlock_add_rule, ruleset, ZS_RULE_NET_PORT, &attr, 0) != 0) {
		int e = errno;
		struct zs_buf b = {0};
		close(ruleset);
		buf_str(&b, "landlock: landlock rule for port ");
		buf_uint(&b, port);
		buf_str(&b, ": ");
		buf_errno(&b, e);
		die_not_run(&b, NULL);
	}
}

// enforce is apply(rs, false) with Stage2's error handling: it restricts
// this (only) thread with the planned ruleset or dies with 127.
static void enforce(const struct zs_plan *p)
{
	struct zs_buf msg = {0};
	if (p->abi == 0)
		return;
	int seen = landlock_abi();
	if (seen < p->abi) { // PlannedError
		buf_str(&msg, ZS_PLANNED_SEES);
		buf_uint(&msg, (unsigned)seen);
		buf_str(&msg, ZS_PLANNED_FOR);
		buf_uint(&msg, (unsigned)p->abi);
		buf_str(&msg, ZS_PLANNED_END);
		die_not_run(&msg, ZS_SECCOMP_HINT);
	}

	// rulesetFD: network rights handled with no port rule deny every
	// TCP (and, from ABI 10, UDP) connect and bind.
	struct zs_ruleset_attr attr = {.handled_fs = p->fs, .handled_net = p->net, .scoped = p->scope};
	long ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (ruleset < 0) {
		int e = errno;
		buf_str(&msg, "landlock: landlock_create_ruleset: ");
		buf_errno(&msg, e);
		die_not_run(&msg, NULL);
	}
	for (int i = 0; i < p->nitems; i++) {
		struct zs_rule r;
		if (rule_at(p, i, &r))
			add_path_rule((int)ruleset, &r);
	}
	for (int i = 0; i < p->nitems; i++) {
		uint64_t access;
		unsigned port;
		if (port_at(p, i, &access, &port))
			add_port_rule((int)ruleset, access, port);
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
	struct zs_plan p;
	struct zs_buf err = {0};
	int sep = parse_args(n, args, &p, &err);
	if (sep < 0)
		die_not_run(&err, NULL);
	// Only this thread exists: the domain and no_new_privs cover the
	// process, and execve keeps them.
	enforce(&p);
	close_inherited();
	run_command(args + sep + 1, envp);
}

// zs_stage2_ctor runs before main (and so before the Go runtime). glibc
// passes constructors main's arguments, in static binaries too.
__attribute__((constructor, used)) static void zs_stage2_ctor(int argc, char **argv, char **envp)
{
#if ZS_ACTIVE
	if (argc >= 2 && argv != NULL && argv[1] != NULL && envp != NULL && strcmp(argv[1], ZS_STAGE2_ARG) == 0)
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
	struct zs_plan p;
	struct zs_buf b = {0};
	int sep = parse_args(n, args, &p, &b);
	if (sep >= 0) { // the ruleset, re-encoded, and the command index
		b.len = 0;
		buf_str(&b, "abi=");
		buf_uint(&b, (unsigned)p.abi);
		buf_str(&b, "\nfs=");
		buf_hex(&b, p.fs, 16);
		buf_str(&b, "\nnet=");
		buf_hex(&b, p.net, 16);
		buf_str(&b, "\nscope=");
		buf_hex(&b, p.scope, 16);
		buf_byte(&b, '\n');
		for (int i = 0; i < p.nitems; i++) {
			struct zs_rule r;
			if (!rule_at(&p, i, &r))
				continue;
			buf_str(&b, "rule ");
			buf_hex(&b, r.access, 16);
			buf_str(&b, r.exact ? " exact" : "");
			buf_str(&b, r.if_exists ? " if-exists" : "");
			buf_str(&b, r.no_follow ? " no-follow" : "");
			buf_byte(&b, ' ');
			buf_quote(&b, r.path);
			buf_byte(&b, '\n');
		}
		for (int i = 0; i < p.nitems; i++) {
			uint64_t access;
			unsigned port;
			if (!port_at(&p, i, &access, &port))
				continue;
			buf_str(&b, "port ");
			buf_hex(&b, access, 16);
			buf_byte(&b, ' ');
			buf_uint(&b, port);
			buf_byte(&b, '\n');
		}
		buf_str(&b, "command=");
		buf_uint(&b, (unsigned)(sep + 1));
		buf_byte(&b, '\n');
	}
	hand_over(&b, out, outlen);
	return sep >= 0;
}
