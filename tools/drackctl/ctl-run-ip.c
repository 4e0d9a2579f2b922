// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running ip(8) for drackctl: fork and exec iproute2 (no shell), collect
 * its output, and turn its failure into drackctl's own error line quoting
 * the command and ip's message. Used where iproute2 already owns the
 * kernel interface (the MPTCP path manager, ctl-nic-mptcp.c).
 */
#define _GNU_SOURCE	/* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "ctl.h"

/* A growing buffer for what ip writes. */
struct run_buf {
	char *s;
	size_t len, cap;
};

/* Read what @fd has into @b: 0 at end of file, 1 for more, -errno. */
static int run_buf_read(struct run_buf *b, int fd)
{
	ssize_t n;
	char *s;

	if (b->cap - b->len < 4096) {
		s = realloc(b->s, b->cap + 65536);
		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap += 65536;
	}
	n = read(fd, b->s + b->len, b->cap - b->len - 1);
	if (n < 0)
		return errno == EINTR ? 1 : -errno;
	b->len += (size_t)n;
	b->s[b->len] = '\0';
	return n > 0;
}

static void run_cmdline(char *const argv[], char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; argv[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? " " : "", argv[i]);
}

/*
 * Run ip with @argv (argv[0] "ip"), its stdout into *@out (free() it) if
 * @out, else to /dev/null. CTL_OK, or "Error: WHAT: `ip ...` failed: its
 * message." and CTL_EKERNEL.
 */
int ctl_run_ip(const char *what, char *const argv[], char **out)
{
	struct run_buf o = { 0 }, e = { 0 };
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	char cmd[256], *msg;
	int status, err = 0, r;
	struct pollfd pfd[2];
	size_t n;
	pid_t pid;

	run_cmdline(argv, cmd, sizeof(cmd));
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto fail;
	}
	if (!pid) {
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		execvp("ip", argv);
		/* not in PATH: where Debian puts it */
		execv("/usr/sbin/ip", argv);
		execv("/sbin/ip", argv);
		fprintf(stderr, "cannot run ip (iproute2): %s", strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	pfd[0] = (struct pollfd){ .fd = po[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (n = 0; n < 2; n++) {
			if (pfd[n].fd < 0 || !pfd[n].revents)
				continue;
			r = run_buf_read(n ? &e : &o, pfd[n].fd);
			if (r < 0 && !err)
				err = r;
			if (r <= 0)
				pfd[n].fd = -1;
		}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err = -errno;
			break;
		}
	if (err)
		goto fail;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		if (out)
			*out = o.s ? o.s : strdup("");
		else
			free(o.s);
		free(e.s);
		close(po[0]);
		close(pe[0]);
		return out && !*out ? ctl_err(-ENOMEM, NULL, what) : CTL_OK;
	}
	/* ip's message: its last line, without its own "Error: " */
	msg = e.s ? e.s : "";
	while (e.len && (msg[e.len - 1] == '\n' || msg[e.len - 1] == '.'))
		msg[--e.len] = '\0';
	if (strrchr(msg, '\n'))
		msg = strrchr(msg, '\n') + 1;
	if (!strncmp(msg, "Error: ", 7))
		msg += 7;
	if (WIFEXITED(status))
		fprintf(stderr, "Error: %s: `%s` failed (exit status %d)%s%s.\n",
			what, cmd, WEXITSTATUS(status), *msg ? ": " : "", msg);
	else
		fprintf(stderr, "Error: %s: `%s` was killed by signal %d.\n",
			what, cmd, WTERMSIG(status));
	free(o.s);
	free(e.s);
	close(po[0]);
	close(pe[0]);
	return CTL_EKERNEL;
fail:
	free(o.s);
	free(e.s);
	for (n = 0; n < 2; n++) {
		if (po[n] >= 0)
			close(po[n]);
		if (pe[n] >= 0)
			close(pe[n]);
	}
	return ctl_err(err, NULL, what);
}
