//go:build linux && cgo

// The netns role in C, run from an ELF constructor before the Go runtime
// starts (as the Landlock stage 2 is: see landlock/stage2_linux.c). Starting
// the Go runtime costs about 1.5 ms per run; this constructor sees argv[1]
// == "__netns" and does the whole role itself, single-threaded, before
// main: it never returns. Any other argv[1] returns at once. It mirrors
// Role and listen (role_linux.go), which stay the implementation of builds
// without cgo; the e2e tests run this one (their binary is built with cgo)
// and TestRoleGo the Go one.
//
// argv: zsandbox __netns FD BWRAP ARGV... It brings lo up, listens on
// 127.0.0.1:3128, sends the listener over FD (SCM_RIGHTS; a failure sends
// its reason instead and exits 127), closes both, clears the ambient
// capabilities and execs bwrap.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

// glibc passes (argc, argv, envp) to constructors (musl does not).
#if defined(__GLIBC__)
#define ZS_NETNS_ACTIVE 1
#else
#define ZS_NETNS_ACTIVE 0
#endif

#define ZS_NETNS_ARG "__netns"
#define ZS_NETNS_PORT 3128 // netns.Port

// netns_fail sends what failed to zsandbox, which prints it (exit 127).
static void netns_fail(int sock, const char *what, int e)
{
	char msg[256];
	int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(e));
	if (n > 0)
		send(sock, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1, MSG_NOSIGNAL);
	_exit(127);
}

static void netns_die(const char *msg)
{
	ssize_t r = write(2, msg, strlen(msg));
	(void)r;
	_exit(127);
}

static int loopback_up(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	int r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

static void netns_role(int argc, char **argv, char **envp)
{
	if (argc < 5)
		netns_die("zsandbox: error: " ZS_NETNS_ARG ": bad arguments\n");
	char *end;
	errno = 0;
	long sock = strtol(argv[2], &end, 10);
	if (errno != 0 || *end != '\0' || end == argv[2] || sock < 3 || sock > 1 << 20)
		netns_die("zsandbox: error: " ZS_NETNS_ARG ": bad descriptor\n");
	if (fcntl((int)sock, F_SETFD, FD_CLOEXEC) != 0)
		netns_die("zsandbox: error: " ZS_NETNS_ARG ": bad descriptor\n");
#ifdef ZS_NETNS_TEST
	if (getenv("ZSANDBOX_TEST_NETNS_FAIL") != NULL) { // see testfail.go
		const char *m = "ZSANDBOX_TEST_NETNS_FAIL is set";
		send((int)sock, m, strlen(m), MSG_NOSIGNAL);
		_exit(127);
	}
#endif
	if (loopback_up() != 0)
		netns_fail((int)sock, "bringing up lo", errno);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		netns_fail((int)sock, "proxy socket", errno);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(ZS_NETNS_PORT), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(l, (struct sockaddr *)&sa, sizeof sa) != 0)
		netns_fail((int)sock, "binding 127.0.0.1:3128", errno);
	if (listen(l, 512) != 0)
		netns_fail((int)sock, "listening on 127.0.0.1:3128", errno);

	char zero = 0;
	struct iovec iov = {.iov_base = &zero, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof u);
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &l, sizeof(int));
	if (sendmsg((int)sock, &m, MSG_NOSIGNAL) != 1)
		_exit(127);
	// Nothing of the namespace stays open here: the listener is zsandbox's.
	close(l);
	close((int)sock);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
		netns_die("zsandbox: error: " ZS_NETNS_ARG ": dropping capabilities failed\n");
	execve(argv[3], argv + 4, envp);
	char msg[512];
	int n = snprintf(msg, sizeof msg, "zsandbox: error: starting %s: %s; the command did not run\n", argv[3], strerror(errno));
	if (n > 0) {
		ssize_t r = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
		(void)r;
	}
	_exit(127);
}

__attribute__((constructor, used)) static void zs_netns_ctor(int argc, char **argv, char **envp)
{
#if ZS_NETNS_ACTIVE
	if (argc >= 2 && argv != NULL && argv[1] != NULL && envp != NULL && strcmp(argv[1], ZS_NETNS_ARG) == 0)
		netns_role(argc, argv, envp);
#else
	(void)argc;
	(void)argv;
	(void)envp;
#endif
}

int zs_netns_active(void) { return ZS_NETNS_ACTIVE; }
