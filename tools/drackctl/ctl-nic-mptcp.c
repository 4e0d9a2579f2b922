// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic mptcp: spread flows over the vNICs with MPTCP. "on" adds
 * an endpoint with the subflow flag for every IPv4 and IPv6 address (not
 * link-local) of every vNIC of this network namespace and raises the
 * limits to 8 subflows and 8 accepted ADD_ADDRs; "off" deletes the
 * endpoints of the vNICs (the limits stay); "show" lists them.
 *
 * The kernel's MPTCP path manager is iproute2's business: this runs
 *
 *	ip mptcp limits set subflows 8 add_addr_accepted 8
 *	ip mptcp endpoint add ADDR dev VNIC subflow
 *	ip mptcp endpoint delete id ID
 *	ip -j mptcp endpoint show
 *
 * (ctl_run_ip() in ctl-run-ip.c: fork and exec, no shell) and reports
 * ip's own message when it fails.
 * "nic policy" (ctl-nic-policy.c) turns the endpoints on and off and
 * counts them with ctl_nic_mptcp_set() and ctl_nic_mptcp_count().
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
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <json-c/json.h>
#include "ctl.h"

#define MP_LIMIT	"8"	/* the kernel's maximum (MPTCP_PM_ADDR_MAX) */
#define MP_ARGS		12	/* the longest ip command line, NULL included */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl nic mptcp { on | off | show }\n"
		"       drackctl nic mptcp backup [ high PACKETS ]\n"
		"       drackctl nic mptcp follow [ high PACKETS ] [ interval MS ]\n"
		"on:     an MPTCP endpoint (subflow) for every address of every vNIC of this\n"
		"        network namespace, limits subflows 8 add_addr_accepted 8;\n"
		"off:    delete the endpoints of the vNICs (the limits stay);\n"
		"show:   the MPTCP endpoints of the vNICs;\n"
		"backup: the backup flag on the endpoints of vNICs whose NIC's queue holds\n"
		"        high (8) packets or more while another vNIC's NIC holds under\n"
		"        half of that, off again once under half; prints the changes;\n"
		"follow: backup every interval (500) ms, on averaged queues, until killed.\n");
}

/* ---- the endpoints ------------------------------------------------------ */

struct mp_addr {
	int family;			/* AF_INET, AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} a;
	unsigned int id;
	bool signal, subflow, backup, fullmesh;
	char dev[IF_NAMESIZE];		/* empty: no device */
};

struct mp {
	struct mp_addr *ep;		/* the endpoints, after mp_dump() */
	int nep;
};

/* Does the kernel have MPTCP (in this network namespace)? */
static bool mp_present(void)
{
	return !access("/proc/sys/net/mptcp", F_OK);
}

static bool mp_json_bool(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_get_boolean(v);
}

/* One object of `ip -j mptcp endpoint show` into @a: 0, or -EINVAL. */
static int mp_parse_ep(struct json_object *o, struct mp_addr *a)
{
	struct json_object *v;
	const char *s;

	memset(a, 0, sizeof(*a));
	if (!json_object_object_get_ex(o, "address", &v) ||
	    !(s = json_object_get_string(v)))
		return -EINVAL;
	if (inet_pton(AF_INET, s, &a->a.v4) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, s, &a->a.v6) == 1)
		a->family = AF_INET6;
	else
		return -EINVAL;
	if (json_object_object_get_ex(o, "id", &v))
		a->id = (unsigned int)json_object_get_int(v);
	if (json_object_object_get_ex(o, "dev", &v) &&
	    (s = json_object_get_string(v)))
		snprintf(a->dev, sizeof(a->dev), "%s", s);
	a->signal = mp_json_bool(o, "signal");
	a->subflow = mp_json_bool(o, "subflow");
	a->backup = mp_json_bool(o, "backup");
	a->fullmesh = mp_json_bool(o, "fullmesh");
	return 0;
}

/* Every MPTCP endpoint of this network namespace into m->ep. */
static int mp_dump(struct mp *m)
{
	static char *const argv[] = { "ip", "-j", "mptcp", "endpoint", "show",
				      NULL };
	const char *what = "listing MPTCP endpoints";
	struct json_object *all, *o;
	char *out = NULL;
	size_t i, n;
	int ret;

	free(m->ep);
	m->ep = NULL;
	m->nep = 0;
	ret = ctl_run_ip(what, argv, &out);
	if (ret)
		return ret;
	/* nothing at all when there is no endpoint */
	all = *out ? json_tokener_parse(out) : json_object_new_array();
	free(out);
	if (!all || !json_object_is_type(all, json_type_array)) {
		json_object_put(all);
		fprintf(stderr, "Error: %s: `ip -j mptcp endpoint show` printed no JSON array.\n",
			what);
		return CTL_EKERNEL;
	}
	n = json_object_array_length(all);
	m->ep = calloc(n ? n : 1, sizeof(*m->ep));
	if (!m->ep) {
		json_object_put(all);
		return ctl_err(-ENOMEM, NULL, what);
	}
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(all, i);
		if (!mp_parse_ep(o, &m->ep[m->nep]))
			m->nep++;
	}
	json_object_put(all);
	return CTL_OK;
}

static bool mp_same_addr(const struct mp_addr *x, const struct mp_addr *y)
{
	if (x->family != y->family)
		return false;
	if (x->family == AF_INET)
		return x->a.v4.s_addr == y->a.v4.s_addr;
	return !memcmp(&x->a.v6, &y->a.v6, sizeof(x->a.v6));
}

static const char *mp_ntop(const struct mp_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, &a->a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static int mp_add(const struct mp_addr *a, const char *dev)
{
	char addr[INET6_ADDRSTRLEN], what[INET6_ADDRSTRLEN + 64];
	char *argv[MP_ARGS] = { "ip", "mptcp", "endpoint", "add", addr, "dev",
				(char *)dev, "subflow", NULL };

	mp_ntop(a, addr, sizeof(addr));
	snprintf(what, sizeof(what), "adding endpoint %s dev %s", addr, dev);
	return ctl_run_ip(what, argv, NULL);
}

static int mp_del(const struct mp_addr *a)
{
	char addr[INET6_ADDRSTRLEN], id[16], what[INET6_ADDRSTRLEN + 64];
	char *argv[MP_ARGS] = { "ip", "mptcp", "endpoint", "delete", "id", id,
				NULL };

	snprintf(id, sizeof(id), "%u", a->id);
	snprintf(what, sizeof(what), "deleting endpoint %s id %u",
		 mp_ntop(a, addr, sizeof(addr)), a->id);
	return ctl_run_ip(what, argv, NULL);
}

static int mp_limits(void)
{
	static char *const argv[] = { "ip", "mptcp", "limits", "set",
				      "subflows", MP_LIMIT,
				      "add_addr_accepted", MP_LIMIT, NULL };

	return ctl_run_ip("setting MPTCP limits", argv, NULL);
}

/* ---- on, off, show --------------------------------------------------- */

static bool mp_usable(const struct sockaddr *sa)
{
	const struct sockaddr_in6 *s6 = (const void *)sa;
	const struct sockaddr_in *s4 = (const void *)sa;

	if (sa->sa_family == AF_INET)	/* not 169.254.0.0/16 */
		return (ntohl(s4->sin_addr.s_addr) >> 16) != 0xa9fe;
	if (sa->sa_family == AF_INET6)
		return !IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) &&
		       !IN6_IS_ADDR_MULTICAST(&s6->sin6_addr);
	return false;
}

static void mp_warn_disabled(void)
{
	FILE *f = fopen("/proc/sys/net/mptcp/enabled", "r");
	int c;

	if (!f)
		return;
	c = fgetc(f);
	fclose(f);
	if (c == '0')
		fprintf(stderr, "Warning: MPTCP is disabled in this network namespace (sysctl net.mptcp.enabled = 0).\n");
}

static void mp_sockaddr(const struct sockaddr *sa, struct mp_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = sa->sa_family;
	if (a->family == AF_INET)
		a->a.v4 = ((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (a->family == AF_INET6)
		a->a.v6 = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
}

static int mp_on(struct mp *m, const struct ctl_vnics *vs)
{
	struct ifaddrs *ifa, *i;
	const struct ctl_vnic *v;
	struct mp_addr a;
	int j, ret, usable = 0;
	bool exists;

	mp_warn_disabled();
	ret = mp_limits();
	if (ret)
		return ret;
	if (getifaddrs(&ifa))
		return ctl_err(-errno, NULL, "listing addresses");
	for (i = ifa; i && !ret; i = i->ifa_next) {
		if (!i->ifa_addr || !mp_usable(i->ifa_addr))
			continue;
		v = ctl_vnic_by_name(vs, i->ifa_name);
		if (!v)
			continue;
		usable++;
		mp_sockaddr(i->ifa_addr, &a);
		for (exists = false, j = 0; j < m->nep && !exists; j++)
			exists = mp_same_addr(&m->ep[j], &a);
		if (exists)
			continue;
		ret = mp_add(&a, v->name);
	}
	freeifaddrs(ifa);
	if (!vs->n)
		fprintf(stderr, "Warning: no vNIC in this network namespace (see \"drackctl nic show\"): no endpoint added.\n");
	else if (!usable)
		fprintf(stderr, "Warning: the vNICs have no address besides link-local ones: no endpoint added.\n");
	return ret;
}

/*
 * Is endpoint @a on a vNIC: its device (by name, or "ifN" for a device ip
 * could not name), or without a device one of a vNIC's addresses?
 */
static const struct ctl_vnic *mp_ep_vnic(const struct ctl_vnics *vs,
					const struct mp_addr *a,
					struct ifaddrs *ifa)
{
	struct mp_addr b;
	struct ifaddrs *i;
	unsigned int idx;
	char end;

	if (a->dev[0]) {
		if (sscanf(a->dev, "if%u%c", &idx, &end) == 1 &&
		    !ctl_vnic_by_name(vs, a->dev))
			return ctl_vnic_by_index(vs, (int)idx);
		return ctl_vnic_by_name(vs, a->dev);
	}
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != a->family)
			continue;
		mp_sockaddr(i->ifa_addr, &b);
		if (mp_same_addr(a, &b))
			return ctl_vnic_by_name(vs, i->ifa_name);
	}
	return NULL;
}

static int mp_off(struct mp *m, const struct ctl_vnics *vs)
{
	struct ifaddrs *ifa = NULL;
	int j, ret = CTL_OK;

	if (getifaddrs(&ifa))
		ifa = NULL;
	for (j = 0; j < m->nep; j++)
		if (mp_ep_vnic(vs, &m->ep[j], ifa))
			ret |= mp_del(&m->ep[j]);
	if (ifa)
		freeifaddrs(ifa);
	return ret;
}

static void mp_print_flags(const struct mp_addr *a)
{
	open_json_array(PRINT_JSON, "flags");
	if (a->signal)
		print_string(PRINT_ANY, NULL, " %s", "signal");
	if (a->subflow)
		print_string(PRINT_ANY, NULL, " %s", "subflow");
	if (a->backup)
		print_string(PRINT_ANY, NULL, " %s", "backup");
	if (a->fullmesh)
		print_string(PRINT_ANY, NULL, " %s", "fullmesh");
	close_json_array(PRINT_JSON, NULL);
}

static int mp_show(struct mp *m, const struct ctl_vnics *vs)
{
	const struct ctl_vnic *v;
	struct ifaddrs *ifa = NULL;
	char addr[INET6_ADDRSTRLEN];
	int j;

	if (getifaddrs(&ifa))
		ifa = NULL;
	new_json_obj();
	for (j = 0; j < m->nep; j++) {
		v = mp_ep_vnic(vs, &m->ep[j], ifa);
		if (!v)
			continue;
		open_json_object(NULL);
		print_string(PRINT_ANY, "address", "%s",
			     mp_ntop(&m->ep[j], addr, sizeof(addr)));
		print_uint(PRINT_ANY, "id", " id %u", m->ep[j].id);
		mp_print_flags(&m->ep[j]);
		print_string(PRINT_ANY, "dev", " dev %s", v->name);
		print_uint(PRINT_ANY, "pool", " pool %u", v->pool);
		print_uint(PRINT_ANY, "nic", " nic %u", v->nic);
		close_json_object();
		print_nl();
	}
	delete_json_obj();
	if (ifa)
		freeifaddrs(ifa);
	return CTL_OK;
}

/* ---- backup, follow --------------------------------------------------- */

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

static int mp_backup_cmd(int argc, char **argv, bool follow)
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

/*
 * @op on the endpoints of this network namespace. A kernel without MPTCP:
 * an error if @need, else CTL_OK and nothing done.
 */
static int mp_run(const struct ctl_vnics *vs,
		  int (*op)(struct mp *m, const struct ctl_vnics *vs), bool need)
{
	struct mp m = { 0 };
	int ret;

	if (!mp_present()) {
		if (!need)
			return CTL_OK;
		fprintf(stderr, "Error: the kernel has no MPTCP (no /proc/sys/net/mptcp): is it built with CONFIG_MPTCP?\n");
		return CTL_EKERNEL;
	}
	ret = mp_dump(&m);
	if (!ret)
		ret = op(&m, vs);
	free(m.ep);
	return ret;
}

int do_nic_mptcp(int argc, char **argv)
{
	int (*op)(struct mp *m, const struct ctl_vnics *vs);
	struct ctl_vnics vs;
	int ret;

	if (argc < 1) {
		usage(stderr);
		return CTL_EUSAGE;
	}
	if (!strcmp(*argv, "on"))
		op = mp_on;
	else if (!strcmp(*argv, "off"))
		op = mp_off;
	else if (matches(*argv, "show") || matches(*argv, "list"))
		op = mp_show;
	else if (!strcmp(*argv, "backup"))
		return mp_backup_cmd(argc - 1, argv + 1, false);
	else if (!strcmp(*argv, "follow"))
		return mp_backup_cmd(argc - 1, argv + 1, true);
	else if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	} else {
		fprintf(stderr, "Command \"%s\" is unknown, try \"drackctl nic mptcp help\".\n",
			*argv);
		return CTL_EUSAGE;
	}
	if (argc > 1) {
		if (matches(argv[1], "help")) {
			usage(stdout);
			return CTL_OK;
		}
		return garbage("nic mptcp", argv[1]);
	}
	ret = ctl_vnics(&vs);
	if (ret)
		return ret;
	ret = mp_run(&vs, op, true);
	ctl_vnics_free(&vs);
	return ret;
}

int ctl_nic_mptcp_set(const struct ctl_vnics *vs, bool on)
{
	return mp_run(vs, on ? mp_on : mp_off, on);
}

static int mp_count(struct mp *m, const struct ctl_vnics *vs,
		    unsigned int *count)
{
	struct ifaddrs *ifa = NULL;
	const struct ctl_vnic *v;
	int j;

	if (getifaddrs(&ifa))
		ifa = NULL;
	for (j = 0; j < m->nep; j++) {
		v = mp_ep_vnic(vs, &m->ep[j], ifa);
		if (v)
			count[v - vs->v]++;
	}
	if (ifa)
		freeifaddrs(ifa);
	return CTL_OK;
}

int ctl_nic_mptcp_count(const struct ctl_vnics *vs, unsigned int *count)
{
	struct mp m = { 0 };
	int ret;

	memset(count, 0, vs->n * sizeof(*count));
	if (!mp_present())
		return CTL_OK;
	ret = mp_dump(&m);
	if (!ret)
		ret = mp_count(&m, vs, count);
	free(m.ep);
	return ret;
}
