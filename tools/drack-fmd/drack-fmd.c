// SPDX-License-Identifier: GPL-2.0-only
/*
 * drack-fmd: the fabric manager daemon. Registers as the fabric manager
 * of every pool of the local kernel it is configured for, grants free
 * Sections to the hosts that ask for them within a per-host quota,
 * spreading each host's Sections across the pool's Regions, revokes
 * Sections hosts do not need, and fences and reclaims hosts whose
 * heartbeat stopped, and assigns every exported NIC of the NIC pool to
 * every host that is up. Waits for drack.ko if it is not loaded yet and
 * follows it across reloads; new pools are picked up by polling.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include "fmd-daemon.h"

static void fmd_reclaim(struct fmd *f)
{
	size_t i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].registered)
			fmd_reclaim_pass(f->nl, &f->pools[i]);
}

static void fmd_nic_load(struct fmd *f)
{
	size_t i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].registered)
			fmd_nic_load_log(f->nl, &f->pools[i]);
}

static void fmd_event(const struct drack_event *e, void *arg)
{
	struct fmd *f = arg;
	struct fmd_pool *fp = fmd_pool_lookup(f, e->pool, false);

	if (!fp || !fp->registered)	/* not ours (yet) */
		return;
	switch (e->type) {
	case DRACK_EVENT_SECTION_REQUEST:
		fmd_dbg("pool %u host %u: wants %u %s Section(s)", e->pool,
			e->host, e->count, drack_class_name(e->buf_class));
		fmd_handle_request(f->nl, fp, e->host, e->buf_class, e->count);
		break;
	case DRACK_EVENT_HOST_NOTIFY:
		if (e->host < DRACK_MAX_HOSTS) {
			fmd_host_state(fp, e->host, e->state);
			fmd_nic_hosts_changed(f->nl, fp);
		}
		break;
	case DRACK_EVENT_SECTION_NOTIFY:
		fmd_reclaim_section_event(fp, e->section, e->owner);
		break;
	case DRACK_EVENT_NIC_NOTIFY:
		fmd_nic_event(f->nl, fp, e->nic, e->state, e->owner);
		break;
	case DRACK_EVENT_PEER_NOTIFY:
		/* Heard; fencing stays with the heartbeat's dead timeout. */
		fmd_info("pool %u host %u: peer %u %s", e->pool, e->host,
			 e->peer, e->stalled ? "stalled: frames to it are dropped" :
			 "consumes again");
		break;
	case DRACK_EVENT_NIC_STEER:
		break;		/* our own decisions, logged by fmd-sched.c */
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

/* SIGTERM, SIGINT: hand the pools back; granted Sections stay. */
static void fmd_shutdown(struct fmd *f)
{
	size_t i;

	if (f->nl)
		for (i = 0; i < f->npools; i++)
			fmd_pool_unregister(f->nl, &f->pools[i]);
	fmd_disconnect(f);
}

static int fmd_load_conf(struct fmd *f, struct fmd_conf *c, char *err,
			 size_t errlen)
{
	return fmd_conf_load(c, f->conf_path, f->conf_must_exist,
			     f->overrides, f->noverrides, err, errlen);
}

/* SIGHUP. A configuration with an error is not applied at all. */
static void fmd_reload(struct fmd *f)
{
	char err[FMD_CONF_ERR_MAX], desc[1024];
	struct fmd_conf c;
	int ret;

	ret = fmd_load_conf(f, &c, err, sizeof(err));
	if (ret < 0) {
		fmd_err("configuration not reloaded, keeping the previous one: %s",
			err);
		return;
	}
	fmd_conf = c;
	fmd_log_level = c.log_level;
	fmd_conf_describe(&c, desc, sizeof(desc));
	if (ret == 1)
		fmd_info("configuration reloaded (%s absent, defaults): %s",
			 f->conf_path, desc);
	else
		fmd_info("configuration reloaded from %s: %s", f->conf_path,
			 desc);
	f->check_pools = true;
	f->next_poll = 0;	/* apply pools = ... now */
	f->next_reclaim = 0;
	f->next_nic_load = 0;
}

/*
 * Before detaching: if drack.ko is loaded and every pool we would manage
 * already has a fabric manager, say so on stderr and fail now rather
 * than in the daemon's syslog.
 */
static int fmd_preflight(void)
{
	struct drack_nl *nl = drack_nl_open();
	struct fmd_pool_dump d;
	size_t i, managed = 0, busy = 0;

	if (!nl)
		return 0;
	if (!fmd_pool_dump(nl, &d)) {
		for (i = 0; i < d.n; i++) {
			if (!fmd_conf_manages(&fmd_conf, d.pi[i].id))
				continue;
			managed++;
			if (!d.pi[i].fm_pid)
				continue;
			busy++;
			fmd_err("pool %u is already managed by another drack-fmd (pid %u)",
				d.pi[i].id, d.pi[i].fm_pid);
		}
		free(d.pi);
	}
	drack_nl_close(nl);
	return managed && busy == managed ? -1 : 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drack-fmd [OPTIONS]\n"
		"The drack fabric manager: grants pool Sections to hosts, takes back\n"
		"unused ones, fences hosts that stopped, assigns exported NICs to hosts.\n\n"
		"  -c, --config FILE   configuration file (default " FMD_CONF_DEFAULT ",\n"
		"                      which may be absent)\n"
		"  -f, --foreground    stay in the foreground, log to stderr (default)\n"
		"  -d, --daemon        detach and log to syslog\n"
		"  -q, --quota N       at most N Sections per host and pool (quota = N)\n"
		"                      (default: max(2, data Sections / hosts up))\n"
		"      --format        format idle pools when taking them on (format = yes)\n"
		"      --nic-load-interval S\n"
		"                      log the load of every NIC every S seconds, 0: never\n"
		"                      (nic-load-interval = S; default 10)\n"
		"  -o, --set KEY=VALUE set a configuration key, over the file\n"
		"  -t, --test-config   check the configuration, print it, exit\n"
		"  -v, --verbose       log grants, hosts and pools (log-level = debug)\n"
		"  -h, --help          this text\n"
		"      --version       print the version\n"
		"Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT exit.\n");
}

/* Remember "@key=@value" (@key NULL: @value is "KEY=VALUE") for the loads. */
static int fmd_add_override(struct fmd *f, const char *key, const char *value)
{
	size_t len = (key ? strlen(key) + 1 : 0) + strlen(value) + 1;
	char **o, *s;

	o = realloc(f->overrides, (f->noverrides + 1) * sizeof(*o));
	if (!o)
		return -1;
	f->overrides = o;
	s = malloc(len);
	if (!s)
		return -1;
	if (key)
		snprintf(s, len, "%s=%s", key, value);
	else
		snprintf(s, len, "%s", value);
	f->overrides[f->noverrides++] = s;
	return 0;
}

/* One pass of signalfd: false once asked to exit. */
static bool fmd_signals(struct fmd *f, int sfd)
{
	struct signalfd_siginfo si;
	bool running = true;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			fmd_reload(f);
			continue;
		}
		fmd_info("signal %u, exiting", si.ssi_signo);
		running = false;
	}
	return running;
}

int main(int argc, char **argv)
{
	enum { OPT_VERSION = 256, OPT_FORMAT, OPT_NIC_LOAD };
	static const struct option opts[] = {
		{ "config",	required_argument,	NULL, 'c' },
		{ "foreground",	no_argument,		NULL, 'f' },
		{ "daemon",	no_argument,		NULL, 'd' },
		{ "quota",	required_argument,	NULL, 'q' },
		{ "format",	no_argument,		NULL, OPT_FORMAT },
		{ "nic-load-interval", required_argument, NULL, OPT_NIC_LOAD },
		{ "set",	required_argument,	NULL, 'o' },
		{ "test-config", no_argument,		NULL, 't' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	char err[FMD_CONF_ERR_MAX], desc[1024];
	static char conf_path[PATH_MAX];
	struct fmd f = { .conf_path = FMD_CONF_DEFAULT, .check_pools = true };
	bool daemonize = false, test_only = false, running = true;
	sigset_t mask;
	int c, sfd, ret, rc = 0;
	size_t i;

	while ((c = getopt_long(argc, argv, "c:fdq:o:tvh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			f.conf_path = optarg;
			f.conf_must_exist = true;
			break;
		case 'f':
			daemonize = false;
			break;
		case 'd':
			daemonize = true;
			break;
		case 'q':
			ret = fmd_add_override(&f, "quota", optarg);
			break;
		case OPT_FORMAT:
			ret = fmd_add_override(&f, "format", "yes");
			break;
		case OPT_NIC_LOAD:
			ret = fmd_add_override(&f, "nic-load-interval", optarg);
			break;
		case 'o':
			ret = fmd_add_override(&f, NULL, optarg);
			break;
		case 't':
			test_only = true;
			break;
		case 'v':
			ret = fmd_add_override(&f, "log-level", "debug");
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("drack-fmd %s\n", FMD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if ((c == 'q' || c == 'o' || c == 'v' || c == OPT_FORMAT ||
		     c == OPT_NIC_LOAD) && ret) {
			fprintf(stderr, "drack-fmd: out of memory\n");
			return 1;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	/* daemon() changes to /: keep reading the same file on SIGHUP */
	if (f.conf_must_exist && f.conf_path[0] != '/') {
		if (!realpath(f.conf_path, conf_path)) {
			fmd_err("%s: %s", f.conf_path, strerror(errno));
			return 2;
		}
		f.conf_path = conf_path;
	}
	ret = fmd_load_conf(&f, &fmd_conf, err, sizeof(err));
	if (ret < 0) {
		fmd_err("%s", err);
		return 2;
	}
	fmd_log_level = fmd_conf.log_level;
	fmd_conf_describe(&fmd_conf, desc, sizeof(desc));
	if (test_only) {
		printf("%s: %s\n", ret == 1 ? "defaults (no file)" : f.conf_path,
		       desc);
		return 0;
	}

	if (daemonize) {
		if (fmd_preflight())
			return 1;
		if (daemon(0, 0)) {
			perror("drack-fmd: daemon");
			return 1;
		}
		fmd_log_syslog();
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sfd = -1;
	if (!sigprocmask(SIG_BLOCK, &mask, NULL))
		sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fmd_err("signalfd: %s", strerror(errno));
		return 1;
	}

	if (fmd_conf.quota)
		fmd_info("drack-fmd %s starting, quota %u Sections per host",
			 FMD_VERSION, fmd_conf.quota);
	else
		fmd_info("drack-fmd %s starting, automatic quota", FMD_VERSION);
	if (ret == 1)
		fmd_info("configuration: defaults (%s absent): %s",
			 f.conf_path, desc);
	else
		fmd_info("configuration: %s: %s", f.conf_path, desc);

	while (running) {
		struct pollfd pfd[2] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = -1, .events = POLLIN },
		};
		uint64_t now = fmd_now_ms(), wake, period;
		int timeout;

		if (now >= f.next_poll) {
			if (f.nl || fmd_connect(&f))
				fmd_poll(&f);
			if (f.fatal) {
				rc = 1;
				break;
			}
			now = fmd_now_ms();
			period = fmd_conf.poll_interval_ms;
			if (!f.nl)
				period = FMD_RETRY_MS;
			else if (f.reclaim_pending &&
				 period > FMD_RECLAIM_RETRY_MS)
				period = FMD_RECLAIM_RETRY_MS;
			f.next_poll = now + period;
		}
		if (!f.nl || !fmd_conf.reclaim_interval_ms) {
			f.next_reclaim = 0;
		} else if (!f.next_reclaim) {
			f.next_reclaim = now + fmd_conf.reclaim_interval_ms;
		} else if (now >= f.next_reclaim) {
			fmd_reclaim(&f);
			now = fmd_now_ms();
			f.next_reclaim = now + fmd_conf.reclaim_interval_ms;
		}

		if (!f.nl || !fmd_conf.nic_load_interval_s) {
			f.next_nic_load = 0;
		} else if (!f.next_nic_load) {
			f.next_nic_load = now +
				(uint64_t)fmd_conf.nic_load_interval_s * 1000;
		} else if (now >= f.next_nic_load) {
			fmd_nic_load(&f);
			now = fmd_now_ms();
			f.next_nic_load = now +
				(uint64_t)fmd_conf.nic_load_interval_s * 1000;
		}

		wake = f.next_poll;
		if (f.next_reclaim && f.next_reclaim < wake)
			wake = f.next_reclaim;
		if (f.next_nic_load && f.next_nic_load < wake)
			wake = f.next_nic_load;
		timeout = wake > now ? (int)(wake - now) : 0;
		if (f.ev)
			pfd[1].fd = drack_events_fd(f.ev);

		if (poll(pfd, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fmd_err("poll: %s", strerror(errno));
			rc = 1;
			break;
		}
		if (pfd[0].revents & POLLIN)
			running = fmd_signals(&f, sfd);
		if (running && f.ev &&
		    (pfd[1].revents & (POLLIN | POLLERR)))
			fmd_read_events(&f);
	}

	fmd_shutdown(&f);
	close(sfd);
	for (i = 0; i < f.noverrides; i++)
		free(f.overrides[i]);
	free(f.overrides);
	return rc;
}
