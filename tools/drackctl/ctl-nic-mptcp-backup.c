// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic mptcp backup|follow.
 *
 * "backup" is drack-fmd's queue-depth rule for MPTCP subflows, on the
 * host: the endpoints of a vNIC whose NIC's published queue reached
 * "high" packets, while another vNIC's NIC is under half of it, get the
 * backup flag (ip mptcp endpoint change id ID backup: the kernel sends
 * MP_PRIO on each connection's subflow from that address and its
 * scheduler prefers the others); the flag goes once that queue is under
 * half of "high" again. A vNIC without an up NIC is left as it is.
 * "follow" does so every "interval" ms on depths averaged over the
 * rounds, until SIGINT or SIGTERM; it clears only flags it set and lets
 * an endpoint it changed rest MP_HOLD rounds (a flow whose own subflow
 * made the queue would otherwise swing back as soon as it drained).
 */
#include <errno.h>
#include <ifaddrs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ctl.h"
#include "ctl-nic-mptcp.h"

#define MP_HIGH		8	/* packets, as drack-fmd's queue-depth-high */
#define MP_INTERVAL	500	/* ms between two rounds of follow */
#define MP_HOLD		10	/* rounds an endpoint follow changed rests */
#define MP_MAX_LOADS	256	/* NICs remembered by follow */
#define MP_IDS		256	/* MPTCP endpoint ids are 8 bits */

/* A NIC's queue depth, averaged over follow's rounds. */
struct mp_avg {
	uint32_t pool, nic;
	double depth;
};

struct mp_backup {
	uint32_t high;
	bool follow;		/* average over rounds, own flags only, hold */
	struct mp_avg avg[MP_MAX_LOADS];
	int navg;
	uint64_t round;
	bool mine[MP_IDS];	/* follow: backup flags it set */
	uint64_t rest[MP_IDS];	/* follow: no change before this round */
};

/* The depth of NIC @nic of @pool (averaged by follow), -1: not up. */
static double mp_depth(struct mp_backup *b, const struct ctl_vnics *vs,
		       uint32_t pool, uint32_t nic)
{
	int64_t now = ctl_nic_depth(vs, pool, nic);
	int i;

	if (now < 0)
		return -1;
	for (i = 0; i < b->navg; i++)
		if (b->avg[i].pool == pool && b->avg[i].nic == nic)
			return b->avg[i].depth;
	if (b->follow && b->navg < MP_MAX_LOADS) {
		b->avg[b->navg].pool = pool;
		b->avg[b->navg].nic = nic;
		b->avg[b->navg++].depth = (double)now;
	}
	return (double)now;
}

/* Average this round's depths in (once per round, before any lookup). */
static void mp_depth_update(struct mp_backup *b, const struct ctl_vnics *vs)
{
	int i;

	for (i = 0; i < b->navg; i++) {
		int64_t now = ctl_nic_depth(vs, b->avg[i].pool, b->avg[i].nic);

		if (now >= 0)
			b->avg[i].depth = (b->avg[i].depth + (double)now) / 2;
	}
}

/* Does a vNIC of @pool go through an up NIC whose queue is short? */
static bool mp_shallow_elsewhere(struct mp_backup *b,
				 const struct ctl_vnics *vs, uint32_t pool)
{
	double d;
	int i;

	for (i = 0; i < vs->n; i++) {
		if (vs->v[i].pool != pool)
			continue;
		d = mp_depth(b, vs, pool, vs->v[i].via);
		if (d >= 0 && d < b->high / 2.0)
			return true;
	}
	return false;
}

static int mp_change(const struct mp_addr *a, bool backup)
{
	char addr[INET6_ADDRSTRLEN], id[16], what[INET6_ADDRSTRLEN + 64];
	char *argv[MP_ARGS] = { "ip", "mptcp", "endpoint", "change", "id", id,
				backup ? "backup" : "nobackup", NULL };

	snprintf(id, sizeof(id), "%u", a->id);
	snprintf(what, sizeof(what), "changing endpoint %s id %u",
		 mp_ntop(a, addr, sizeof(addr)), a->id);
	return ctl_run_ip(what, argv, NULL);
}

/* Should endpoint @a on @v be a backup? Its NIC unknown or down: as is. */
static bool mp_want_backup(struct mp_backup *b, const struct ctl_vnics *vs,
			   const struct ctl_vnic *v, const struct mp_addr *a,
			   double d)
{
	if (d < 0)
		return a->backup;
	if (a->backup)	/* follow leaves the admin's own flags alone */
		return (b->follow && !b->mine[a->id % MP_IDS]) ||
		       d >= b->high / 2.0;
	return d >= b->high && mp_shallow_elsewhere(b, vs, v->pool);
}

/* One round: flags where the queues say so, each change printed. */
static int mp_backup_round(struct mp_backup *b, const struct ctl_vnics *vs,
			   struct mp *m)
{
	char addr[INET6_ADDRSTRLEN];
	const struct ctl_vnic *v;
	struct ifaddrs *ifa = NULL;
	const struct mp_addr *a;
	int j, ret = CTL_OK;
	unsigned int id;
	bool want;
	double d;

	if (getifaddrs(&ifa))
		ifa = NULL;
	b->round++;
	if (b->follow)
		mp_depth_update(b, vs);
	for (j = 0; j < m->nep; j++) {
		a = &m->ep[j];
		id = a->id % MP_IDS;
		v = mp_ep_vnic(vs, a, ifa);
		if (!v || (b->follow && b->round < b->rest[id]))
			continue;
		d = mp_depth(b, vs, v->pool, v->via);
		want = mp_want_backup(b, vs, v, a, d);
		if (want == a->backup)
			continue;
		if (mp_change(a, want)) {
			ret = CTL_EKERNEL;	/* reported; the others go on */
			continue;
		}
		b->mine[id] = want;
		b->rest[id] = b->round + MP_HOLD;
		open_json_object(NULL);
		print_string(PRINT_ANY, "dev", "%s", v->name);
		print_string(PRINT_ANY, "address", " %s",
			     mp_ntop(a, addr, sizeof(addr)));
		print_uint(PRINT_ANY, "id", " id %u", a->id);
		print_bool(PRINT_JSON, "backup", NULL, want);
		print_string(PRINT_FP, NULL, " %s", want ? "backup" : "nobackup");
		print_uint(PRINT_ANY, "nic", " nic %u", v->via);
		print_uint(PRINT_ANY, "queue", " queue %u", (unsigned int)(d + 0.5));
		close_json_object();
		print_nl();
	}
	if (ifa)
		freeifaddrs(ifa);
	return ret;
}

static volatile sig_atomic_t mp_stop;

static void mp_on_signal(int sig)
{
	(void)sig;
	mp_stop = 1;
}

static int mp_backup_run(struct mp_backup *b, uint32_t interval_ms,
			 bool follow)
{
	struct timespec ts = { .tv_sec = interval_ms / 1000,
			       .tv_nsec = (long)(interval_ms % 1000) * 1000000L };
	struct sigaction sa = { .sa_handler = mp_on_signal };
	struct ctl_vnics vs;
	struct mp m = { 0 };
	int ret = CTL_OK;

	if (!mp_present()) {
		fprintf(stderr, "Error: the kernel has no MPTCP (no /proc/sys/net/mptcp): is it built with CONFIG_MPTCP?\n");
		return CTL_EKERNEL;
	}
	b->follow = follow;
	if (follow) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	new_json_obj();
	do {	/* follow: an error is reported, the next round tries again */
		ret = ctl_vnics(&vs);
		if (!ret) {
			ret = mp_dump(&m);
			if (!ret)
				ret = mp_backup_round(b, &vs, &m);
			ctl_vnics_free(&vs);
		}
		fflush(stdout);
		if (follow && !mp_stop)
			nanosleep(&ts, NULL);	/* a signal cuts it short */
	} while (follow && !mp_stop);
	delete_json_obj();
	if (follow)
		ret = CTL_OK;
	free(m.ep);
	return ret;
}

int mp_backup_cmd(int argc, char **argv, bool follow,
		  void (*usage)(FILE *out))
{
	uint32_t high = MP_HIGH, interval = MP_INTERVAL;
	bool have_high = false, have_interval = false;
	struct ctl_arg args[] = {
		{ .key = "high", .get = get_u32, .u32 = &high,
		  .have = &have_high, .invalid = "queue depth" },
		{ .key = "interval", .get = get_u32, .u32 = &interval,
		  .have = &have_interval, .invalid = "interval" },
		{ 0 }
	};
	struct mp_backup *b;
	int ret;

	if (!follow)
		args[1].key = NULL;	/* backup takes "high" only */
	ret = ctl_args(argc, argv, args, "nic mptcp", usage);
	if (ret != CTL_MORE)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return ctl_err(-ENOMEM, NULL, "nic mptcp");
	b->high = high;
	if (!high || high > 100000) {
		fprintf(stderr, "Error: high must be 1 to 100000 packets.\n");
		ret = CTL_EUSAGE;
	} else if (interval < 50 || interval > 600000) {
		fprintf(stderr, "Error: interval must be 50 to 600000 ms.\n");
		ret = CTL_EUSAGE;
	} else {
		ret = mp_backup_run(b, interval, follow);
	}
	free(b);
	return ret;
}
