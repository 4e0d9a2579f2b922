// SPDX-License-Identifier: GPL-2.0-only
/*
 * drack-fmd: the fabric manager daemon. Grants free Sections of every
 * pool of the local kernel to the hosts that ask for them, within a
 * per-host quota. Waits for drack.ko if it is not loaded yet and follows
 * it across reloads; new pools are picked up by polling.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include "fmd.h"

#define FMD_POLL_MS	500	/* pools and hosts re-read */
#define FMD_RETRY_MS	1000	/* waiting for the drack family */

struct fmd {
	struct drack_nl *nl;
	struct drack_events *ev;
	struct fmd_pool *pools;
	size_t npools;
	bool waiting_logged;
};

static struct fmd_pool *fmd_pool_lookup(struct fmd *f, uint32_t id,
					bool create)
{
	struct fmd_pool *p;
	size_t i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].id == id)
			return &f->pools[i];
	if (!create)
		return NULL;
	p = realloc(f->pools, (f->npools + 1) * sizeof(*p));
	if (!p)
		return NULL;
	f->pools = p;
	p = &f->pools[f->npools++];
	memset(p, 0, sizeof(*p));
	p->id = id;
	return p;
}

static void fmd_disconnect(struct fmd *f)
{
	drack_events_close(f->ev);
	drack_nl_close(f->nl);
	f->ev = NULL;
	f->nl = NULL;
	free(f->pools);
	f->pools = NULL;
	f->npools = 0;
}

/* Log why we cannot talk to drack.ko, once per outage. */
static void fmd_waiting(struct fmd *f, int err)
{
	if (f->waiting_logged)
		return;
	f->waiting_logged = true;
	if (err == ENOENT)
		fmd_info("generic netlink family \"%s\" not found (drack.ko not loaded?), retrying every second",
			 DRACK_GENL_NAME);
	else
		fmd_warn("cannot open the \"%s\" family: %s, retrying every second",
			 DRACK_GENL_NAME, strerror(err));
}

static bool fmd_connect(struct fmd *f)
{
	f->nl = drack_nl_open();
	if (!f->nl) {
		fmd_waiting(f, errno);
		return false;
	}
	f->ev = drack_events_open();
	if (!f->ev) {
		int err = errno;

		drack_nl_close(f->nl);
		f->nl = NULL;
		fmd_waiting(f, err);
		return false;
	}
	fmd_dbg("connected to the \"%s\" family", DRACK_GENL_NAME);
	f->waiting_logged = false;
	return true;
}

static int fmd_pool_seen(const struct drack_pool_info *pi, void *arg)
{
	struct fmd *f = arg;
	struct fmd_pool *fp = fmd_pool_lookup(f, pi->id, false);

	if (!fp) {
		fp = fmd_pool_lookup(f, pi->id, true);
		if (!fp)
			return -ENOMEM;
		fmd_dbg("managing pool %u: %s, %u Sections (%u metadata, %u free), %u hosts max",
			pi->id, pi->backend, pi->section_count,
			pi->meta_sections, pi->free_sections, pi->max_hosts);
	}
	fp->seen = true;
	return 0;
}

struct fmd_host_scan {
	struct fmd_pool *fp;
	bool present[DRACK_MAX_HOSTS];
};

static void fmd_host_state(struct fmd_pool *fp, uint32_t host,
			   uint32_t state)
{
	struct fmd_host_mem *hm = &fp->host[host];

	if (hm->state == state)
		return;
	fmd_dbg("pool %u host %u: %s -> %s", fp->id, host,
		drack_host_state_name(hm->state),
		drack_host_state_name(state));
	if (state != DRACK_HOST_UP && state != DRACK_HOST_JOINING)
		memset(hm, 0, sizeof(*hm));	/* forget rate limits */
	hm->state = state;
}

static int fmd_host_seen(const struct drack_host_info *h, void *arg)
{
	struct fmd_host_scan *s = arg;

	if (h->id < DRACK_MAX_HOSTS) {
		s->present[h->id] = true;
		fmd_host_state(s->fp, h->id, h->state);
	}
	return 0;
}

static void fmd_scan_hosts(struct fmd *f, struct fmd_pool *fp)
{
	struct fmd_host_scan s = { .fp = fp };
	uint32_t i;

	if (drack_host_list(f->nl, fp->id, fmd_host_seen, &s))
		return;
	for (i = 0; i < DRACK_MAX_HOSTS; i++)
		if (!s.present[i])
			fmd_host_state(fp, i, DRACK_HOST_FREE);
}

/*
 * Periodic: the family still there, pools appearing or going, host
 * states. Section requests come as events, re-sent by the kernel while
 * outstanding, so missing one only delays it.
 */
static void fmd_poll(struct fmd *f)
{
	size_t i, j;
	int err;

	err = drack_nl_check(f->nl);
	if (err < 0) {
		fmd_disconnect(f);
		fmd_waiting(f, -err);
		return;
	}
	if (err > 0) {
		fmd_info("drack.ko was reloaded, reconnecting");
		fmd_disconnect(f);
		if (!fmd_connect(f))
			return;
	}

	for (i = 0; i < f->npools; i++)
		f->pools[i].seen = false;
	err = drack_pool_list(f->nl, fmd_pool_seen, f);
	if (err) {
		fmd_warn("cannot list pools: %s", strerror(-err));
		return;
	}
	for (i = j = 0; i < f->npools; i++) {
		if (!f->pools[i].seen) {
			fmd_dbg("pool %u gone", f->pools[i].id);
			continue;
		}
		f->pools[j++] = f->pools[i];
	}
	f->npools = j;
	for (i = 0; i < f->npools; i++)
		fmd_scan_hosts(f, &f->pools[i]);
}

static void fmd_event(const struct drack_event *e, void *arg)
{
	struct fmd *f = arg;
	struct fmd_pool *fp = fmd_pool_lookup(f, e->pool, true);

	if (!fp)
		return;
	switch (e->type) {
	case DRACK_EVENT_SECTION_REQUEST:
		fmd_dbg("pool %u host %u: wants %u %s Section(s)", e->pool,
			e->host, e->count, drack_class_name(e->buf_class));
		fmd_handle_request(f->nl, fp, e->host, e->buf_class, e->count);
		break;
	case DRACK_EVENT_HOST_NOTIFY:
		if (e->host < DRACK_MAX_HOSTS)
			fmd_host_state(fp, e->host, e->state);
		break;
	}
}

static void fmd_read_events(struct fmd *f)
{
	int n = drack_events_read(f->ev, fmd_event, f);

	if (n == -ENOBUFS)
		fmd_dbg("event queue overflowed; pending requests will be re-sent");
	else if (n < 0) {
		fmd_warn("reading events: %s, reconnecting", strerror(-n));
		fmd_disconnect(f);
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drack-fmd [OPTIONS]\n"
		"The drack fabric manager: grants pool Sections to hosts.\n\n"
		"  -f, --foreground  stay in the foreground, log to stderr (default)\n"
		"  -d, --daemon      detach and log to syslog\n"
		"  -q, --quota N     at most N Sections per host and pool\n"
		"                    (default: max(2, data Sections / hosts up))\n"
		"  -v, --verbose     log grants, hosts and pools\n"
		"  -h, --help        this text\n"
		"      --version     print the version\n");
}

static int fmd_parse_quota(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || !v || v > UINT32_MAX ||
	    s[0] == '-') {
		fprintf(stderr, "drack-fmd: invalid quota '%s'\n", s);
		return -1;
	}
	fmd_quota = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground",	no_argument,		NULL, 'f' },
		{ "daemon",	no_argument,		NULL, 'd' },
		{ "quota",	required_argument,	NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct fmd f = { 0 };
	bool daemonize = false, running = true;
	uint64_t next = 0;
	sigset_t mask;
	int c, sfd;

	while ((c = getopt_long(argc, argv, "fdq:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			daemonize = false;
			break;
		case 'd':
			daemonize = true;
			break;
		case 'q':
			if (fmd_parse_quota(optarg))
				return 2;
			break;
		case 'v':
			fmd_verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("drack-fmd %s\n", FMD_VERSION);
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

	if (daemonize) {
		if (daemon(0, 0)) {
			perror("drack-fmd: daemon");
			return 1;
		}
		fmd_log_syslog();
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sfd = -1;
	if (!sigprocmask(SIG_BLOCK, &mask, NULL))
		sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fmd_err("signalfd: %s", strerror(errno));
		return 1;
	}

	if (fmd_quota)
		fmd_info("drack-fmd %s starting, quota %u Sections per host",
			 FMD_VERSION, fmd_quota);
	else
		fmd_info("drack-fmd %s starting, automatic quota", FMD_VERSION);

	while (running) {
		struct pollfd pfd[2] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = -1, .events = POLLIN },
		};
		uint64_t now = fmd_now_ms();
		int timeout;

		if (now >= next) {
			if (f.nl || fmd_connect(&f))
				fmd_poll(&f);
			now = fmd_now_ms();
			next = now + (f.nl ? FMD_POLL_MS : FMD_RETRY_MS);
		}
		if (f.ev)
			pfd[1].fd = drack_events_fd(f.ev);
		timeout = (int)(next - now);

		if (poll(pfd, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fmd_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				fmd_dbg("signal %u, exiting", si.ssi_signo);
			running = false;
		} else if (f.ev && (pfd[1].revents & (POLLIN | POLLERR))) {
			fmd_read_events(&f);
		}
	}

	fmd_disconnect(&f);
	close(sfd);
	return running ? 1 : 0;
}
