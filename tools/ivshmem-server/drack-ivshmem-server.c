// SPDX-License-Identifier: GPL-2.0-only
/*
 * drack-ivshmem-server: the server behind QEMU's ivshmem-doorbell device,
 * for hosts without QEMU's contrib ivshmem-server (Debian ships none).
 * Hands every VM that connects to its Unix socket a peer id, the shared
 * memory (a file, normally the drack pool under /dev/shm) and one eventfd
 * per vector of each peer, so that the VMs can interrupt one another.
 * The memory outlives the server: an existing file of the right size is
 * served as it is, formatted pool included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "ivs.h"

#define IVS_NAME		"drack-ivshmem-server"
#define IVS_DEFAULT_SOCKET	"/run/drack/ivshmem.sock"
#define IVS_DEFAULT_SHM		"/dev/shm/drack-ivshmem"

enum ivs_level ivs_log_level = IVS_INFO;
static bool ivs_use_syslog;

void ivs_log_syslog(void)
{
	openlog(IVS_NAME, LOG_PID, LOG_DAEMON);
	ivs_use_syslog = true;
}

void ivs_log(enum ivs_level level, const char *fmt, ...)
{
	static const int prio[] = {
		[IVS_ERR] = LOG_ERR, [IVS_WARN] = LOG_WARNING,
		[IVS_INFO] = LOG_INFO, [IVS_DEBUG] = LOG_DEBUG,
	};
	va_list ap;

	if (level > ivs_log_level)
		return;
	va_start(ap, fmt);
	if (ivs_use_syslog) {
		vsyslog(prio[level], fmt, ap);
	} else {
		fputs(IVS_NAME ": ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " IVS_NAME " [-F | -d] [-S SOCKET] [-m SHM_PATH] [-l SIZE] [-n VECTORS]\n"
		"       [-p PIDFILE] [-v]\n"
		"Doorbell server for QEMU's ivshmem-doorbell device.\n"
		"  -S SOCKET   Unix socket to listen on (default " IVS_DEFAULT_SOCKET ")\n"
		"  -m PATH     shared memory file (default " IVS_DEFAULT_SHM ");\n"
		"              an existing file of SIZE bytes is served as it is\n"
		"  -l SIZE     its size, a power of two, suffix K, M or G; needed\n"
		"              when the file is new or empty (default: its size)\n"
		"  -n VECTORS  interrupt vectors per peer, 1 to %d (default 1)\n"
		"  -F          stay in the foreground, log to stderr (default)\n"
		"  -d          detach once listening, log to syslog\n"
		"  -p PIDFILE  write the process id to PIDFILE\n"
		"  -v          also log every message sent\n"
		"  -h          this help\n", IVS_MAX_VECTORS);
}

/* "64M" -> 67108864; 0 if malformed or beyond 2^62. */
static uint64_t parse_size(const char *arg)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*arg < '0' || *arg > '9')
		return 0;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || v > (1ULL << 62) >> shift)
		return 0;
	return (uint64_t)v << shift;
}

/* The daemon runs in /: keep the paths it touches later absolute. */
static char *abspath(const char *path)
{
	char cwd[PATH_MAX], *p;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (asprintf(&p, "%s/%s", cwd, path) < 0)
		return NULL;
	return p;
}

/*
 * Open (or create) the shared memory. Locked through the description we
 * hand to QEMU, so the lock lasts as long as any VM of ours runs: no second
 * server gives the same ids out on the same memory.
 */
static int shm_setup(const char *path, uint64_t *size, bool *created)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		*created = true;
	else if (errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ivs_err("%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ivs_err("%s is locked: another server serves it, or VMs of an earlier one still run",
			path);
		goto err;
	}
	if (fstat(fd, &st)) {
		ivs_err("%s: %s", path, strerror(errno));
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		ivs_err("%s is not a regular file", path);
		goto err;
	}
	if (st.st_size == 0 && *size) {
		if (ftruncate(fd, (off_t)*size)) {
			ivs_err("%s: cannot grow to %llu bytes: %s", path,
				(unsigned long long)*size, strerror(errno));
			goto err;
		}
		ivs_info("%s: %s, %llu bytes", path, *created ? "created" : "was empty",
			 (unsigned long long)*size);
		return fd;
	}
	if (st.st_size == 0) {
		ivs_err("%s is empty: give its size with -l", path);
		goto err;
	}
	if (*size && (uint64_t)st.st_size != *size) {
		ivs_err("%s has %llu bytes, not %llu: remove it or match -l, it is not resized",
			path, (unsigned long long)st.st_size, (unsigned long long)*size);
		goto err;
	}
	*size = (uint64_t)st.st_size;
	if (*size & (*size - 1)) {
		ivs_err("%s has %llu bytes, not a power of two (QEMU needs one)", path,
			(unsigned long long)*size);
		goto err;
	}
	ivs_info("%s: %llu bytes, contents kept", path, (unsigned long long)*size);
	return fd;
err:
	if (*created)
		unlink(path);
	close(fd);
	return -1;
}

/* Listen on @path, replacing a stale socket but never a live server. */
static int sock_setup(const char *path, struct stat *st)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *dir, *slash;
	int fd;

	strcpy(sa.sun_path, path);	/* length checked by the caller */
	dir = strdup(path);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			ivs_warn("cannot create %s: %s", dir, strerror(errno));
	}
	free(dir);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		ivs_err("socket: %s", strerror(errno));
		return -1;
	}
	if (!lstat(path, st)) {
		if (!S_ISSOCK(st->st_mode)) {
			ivs_err("%s exists and is not a socket", path);
			goto err;
		}
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || errno != ECONNREFUSED) {
			ivs_err("%s: another server listens there", path);
			goto err;
		}
		ivs_info("%s: removing a stale socket", path);
		unlink(path);
		close(fd);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			ivs_err("socket: %s", strerror(errno));
			return -1;
		}
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		ivs_err("%s: %s", path, strerror(errno));
		goto err;
	}
	if (stat(path, st)) {
		ivs_err("%s: %s", path, strerror(errno));
		goto err_unlink;
	}
	return fd;
err_unlink:
	unlink(path);
err:
	close(fd);
	return -1;
}

/* Remove the socket unless somebody replaced it meanwhile. */
static void sock_unlink(const char *path, const struct stat *ours)
{
	struct stat st;

	if (!lstat(path, &st) && st.st_dev == ours->st_dev && st.st_ino == ours->st_ino)
		unlink(path);
}

int main(int argc, char **argv)
{
	const char *sock_arg = IVS_DEFAULT_SOCKET, *shm_path = IVS_DEFAULT_SHM;
	const char *optarg_pid = NULL;
	char *sock_path = NULL, *pid_path = NULL;
	struct ivs_server s = { .shm_fd = -1, .nvectors = 1 };
	bool daemonize = false, created = false;
	uint64_t size = 0;
	struct stat sock_st;
	FILE *pidf = NULL;
	struct rlimit rl;
	sigset_t mask;
	int opt, lfd, sfd, ret = 1;
	char *end;
	long v;

	while ((opt = getopt(argc, argv, "S:m:l:n:p:Fdvh")) != -1) {
		switch (opt) {
		case 'S':
			sock_arg = optarg;
			break;
		case 'm':
			shm_path = optarg;
			break;
		case 'l':
			size = parse_size(optarg);
			if (size < 4096 || size & (size - 1)) {
				fprintf(stderr, IVS_NAME ": -l %s: need a power of two of at least 4K\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > IVS_MAX_VECTORS) {
				fprintf(stderr, IVS_NAME ": -n %s: need 1 to %d\n", optarg,
					IVS_MAX_VECTORS);
				return 2;
			}
			s.nvectors = (unsigned int)v;
			break;
		case 'p':
			optarg_pid = optarg;
			break;
		case 'F':
			daemonize = false;
			break;
		case 'd':
			daemonize = true;
			break;
		case 'v':
			ivs_log_level = IVS_DEBUG;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	sock_path = abspath(sock_arg);
	if (optarg_pid)
		pid_path = abspath(optarg_pid);
	if (!sock_path || (optarg_pid && !pid_path)) {
		ivs_err("out of memory");
		return 1;
	}
	if (strlen(sock_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		fprintf(stderr, IVS_NAME ": socket path too long: %s\n", sock_path);
		return 2;
	}

	/* Each peer costs a socket and an eventfd per vector. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	s.gone = calloc(IVS_MAX_PEERS, sizeof(*s.gone));
	if (!s.gone) {
		ivs_err("out of memory");
		goto out;
	}
	s.shm_fd = shm_setup(shm_path, &size, &created);
	if (s.shm_fd < 0)
		goto out;
	lfd = sock_setup(sock_path, &sock_st);
	if (lfd < 0)
		goto out_shm;
	/* Opened before detaching, so that a bad path fails the start. */
	if (pid_path) {
		pidf = fopen(pid_path, "we");
		if (!pidf) {
			ivs_err("%s: %s", pid_path, strerror(errno));
			free(pid_path);
			pid_path = NULL;
			goto out_sock;
		}
	}
	if (daemonize) {
		if (daemon(0, 0)) {
			ivs_err("daemon: %s", strerror(errno));
			goto out_sock;
		}
		ivs_log_syslog();
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		ivs_err("signalfd: %s", strerror(errno));
		goto out_sock;
	}
	if (pidf) {
		fprintf(pidf, "%d\n", (int)getpid());
		if (fclose(pidf)) {
			pidf = NULL;
			ivs_err("%s: %s", pid_path, strerror(errno));
			goto out_sfd;
		}
		pidf = NULL;
	}
	ivs_info("listening on %s: %s, %llu bytes, %u vector%s per peer", sock_path,
		 shm_path, (unsigned long long)size, s.nvectors, s.nvectors == 1 ? "" : "s");
	created = false;	/* served: the memory is the VMs' now */
	ret = ivs_serve(&s, lfd, sfd);
	ivs_release(&s);
out_sfd:
	close(sfd);
out_sock:
	if (pidf)
		fclose(pidf);
	if (pid_path)
		unlink(pid_path);
	sock_unlink(sock_path, &sock_st);
	close(lfd);
out_shm:
	if (created)
		unlink(shm_path);
	close(s.shm_fd);
out:
	free(s.gone);
	free(sock_path);
	free(pid_path);
	return ret;
}
