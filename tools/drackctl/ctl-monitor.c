// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl monitor: the "events" multicast group of the drack family,
 * one line per event (-j: one JSON object per line), until SIGINT or
 * SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "ctl.h"

#define MON_CHECK_MS	1000	/* is the family still there? */

#define MON_SECTION	(1U << DRACK_EVENT_SECTION_REQUEST | \
			 1U << DRACK_EVENT_SECTION_NOTIFY)
#define MON_HOST	(1U << DRACK_EVENT_HOST_NOTIFY)
#define MON_NIC		(1U << DRACK_EVENT_NIC_NOTIFY | \
			 1U << DRACK_EVENT_NIC_STEER)
#define MON_PEER	(1U << DRACK_EVENT_PEER_NOTIFY)
#define MON_ALL		(MON_SECTION | MON_HOST | MON_NIC | MON_PEER)

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl [ -j ] monitor [ all | section | host | nic | peer ]\n"
		"       drackctl monitor help\n"
		"section: Section requests of hosts short of Buffers, Sections\n"
		"granted and given back;\n"
		"host: hosts joining, leaving, fenced and reclaimed;\n"
		"nic: NICs exported, unexported, going down and up, vNICs steered\n"
		"by the fabric manager;\n"
		"peer: peers a local host found stalled, and recovered. Stops at SIGINT.\n");
}

static volatile sig_atomic_t mon_stop;

static void mon_signal(int sig)
{
	(void)sig;
	mon_stop = 1;
}

/*
 * A Section's new owner, as in section show: " owner 3 class 2k", or
 * " owner free" (JSON: "state" granted, free or meta; owner and class
 * only when granted).
 */
static void mon_owner(const struct drack_event *e)
{
	bool granted = e->owner != DRACK_SECTION_FREE &&
		       e->owner != DRACK_SECTION_META;
	char buf[16];

	print_string(PRINT_FP, NULL, " owner %s",
		     ctl_owner(e->owner, buf, sizeof(buf)));
	if (granted) {
		print_string(PRINT_JSON, "state", NULL, "granted");
		print_uint(PRINT_JSON, "owner", NULL, e->owner);
		print_string(PRINT_ANY, "class", " class %s",
			     drack_class_name(e->buf_class));
	} else {
		print_string(PRINT_JSON, "state", NULL,
			     ctl_owner(e->owner, buf, sizeof(buf)));
	}
}

static void mon_event(const struct drack_event *e, void *arg)
{
	unsigned int *mask = arg;

	if (!(*mask & (1U << e->type)))
		return;
	open_json_object(NULL);
	switch (e->type) {
	case DRACK_EVENT_SECTION_REQUEST:
		print_string(PRINT_ANY, "event", "%s", "section_request");
		print_uint(PRINT_ANY, "pool", " pool %u", e->pool);
		print_uint(PRINT_ANY, "host", " host %u", e->host);
		print_string(PRINT_ANY, "class", " class %s",
			     drack_class_name(e->buf_class));
		print_uint(PRINT_ANY, "count", " count %u", e->count);
		break;
	case DRACK_EVENT_HOST_NOTIFY:
		print_string(PRINT_ANY, "event", "%s", "host_notify");
		print_uint(PRINT_ANY, "pool", " pool %u", e->pool);
		print_uint(PRINT_ANY, "host", " host %u", e->host);
		print_string(PRINT_ANY, "state", " state %s",
			     drack_host_state_name(e->state));
		break;
	case DRACK_EVENT_SECTION_NOTIFY:
		print_string(PRINT_ANY, "event", "%s", "section_notify");
		print_uint(PRINT_ANY, "pool", " pool %u", e->pool);
		print_uint(PRINT_ANY, "section", " section %u", e->section);
		mon_owner(e);
		break;
	case DRACK_EVENT_NIC_NOTIFY:
		print_string(PRINT_ANY, "event", "%s", "nic_notify");
		print_uint(PRINT_ANY, "pool", " pool %u", e->pool);
		print_uint(PRINT_ANY, "nic", " nic %u", e->nic);
		print_string(PRINT_ANY, "state", " state %s",
			     drack_nic_state_name(e->state));
		print_uint(PRINT_ANY, "owner", " owner %u", e->owner);
		break;
	case DRACK_EVENT_NIC_STEER:
		print_string(PRINT_ANY, "event", "%s", "nic_steer");
		print_uint(PRINT_ANY, "pool", " pool %u", e->pool);
		print_uint(PRINT_ANY, "nic", " nic %u", e->nic);
		print_uint(PRINT_ANY, "host", " host %u", e->host);
		if (e->steer >= 0)
			print_uint(PRINT_ANY, "steer", " via %u",
				   (unsigned int)e->steer);
		else
			print_string(PRINT_FP, NULL, "%s", " via home");
		break;
	case DRACK_EVENT_PEER_NOTIFY:
		print_string(PRINT_ANY, "event", "%s", "peer_notify");
		print_uint(PRINT_ANY, "pool", " pool %u", e->pool);
		print_uint(PRINT_ANY, "host", " host %u", e->host);
		print_uint(PRINT_ANY, "peer", " peer %u", e->peer);
		print_bool(PRINT_JSON, "stalled", NULL, e->stalled);
		print_string(PRINT_FP, NULL, " %s",
			     e->stalled ? "stalled" : "recovered");
		break;
	}
	close_json_object();
	print_nl();
	fflush(stdout);
}

static void mon_lost(void)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "event", "%s", "overflow");
	print_string(PRINT_FP, NULL, "%s", ": events were lost");
	close_json_object();
	print_nl();
	fflush(stdout);
}

static int mon_open(struct drack_events **ev)
{
	*ev = drack_events_open();
	if (!*ev) {
		fprintf(stderr, "Error: cannot listen to \"%s\" events: %s.\n",
			DRACK_GENL_NAME, strerror(errno));
		return CTL_EKERNEL;
	}
	return CTL_OK;
}

int do_monitor(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = mon_signal };
	unsigned int mask = 0;
	struct drack_events *ev;
	sigset_t block, orig;
	int n, ret = CTL_OK;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		} else if (matches(*argv, "all")) {
			mask |= MON_ALL;
		} else if (matches(*argv, "section")) {
			mask |= MON_SECTION;
		} else if (matches(*argv, "host")) {
			mask |= MON_HOST;
		} else if (matches(*argv, "nic")) {
			mask |= MON_NIC;
		} else if (matches(*argv, "peer")) {
			mask |= MON_PEER;
		} else {
			return garbage("monitor", *argv);
		}
	}
	if (!mask)
		mask = MON_ALL;

	if (!ctl_nl())
		return CTL_EKERNEL;
	ret = mon_open(&ev);
	if (ret)
		return ret;

	/* Signals only interrupt ppoll: no event is cut in half. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	while (!mon_stop) {
		struct pollfd pfd = { .fd = drack_events_fd(ev), .events = POLLIN };
		struct timespec ts = { .tv_sec = MON_CHECK_MS / 1000 };

		n = ppoll(&pfd, 1, &ts, &orig);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = ctl_err(-errno, NULL, "poll");
			break;
		}
		if (n == 0) {
			n = drack_nl_check(ctl_nl());
			if (n < 0) {
				fprintf(stderr, "Error: the \"%s\" family is gone: drack.ko was unloaded.\n",
					DRACK_GENL_NAME);
				ret = CTL_EKERNEL;
				break;
			}
			if (n > 0) {	/* reloaded: a new family, a new group */
				drack_events_close(ev);
				ret = mon_open(&ev);
				if (ret)
					return ret;
			}
			continue;
		}
		n = drack_events_read(ev, mon_event, &mask);
		if (n == -ENOBUFS) {
			mon_lost();
		} else if (n < 0) {
			ret = ctl_err(n, NULL, "reading events");
			break;
		}
	}
	drack_events_close(ev);
	return ret;
}
