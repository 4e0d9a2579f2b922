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
 * "backup" and "follow": ctl-nic-mptcp-backup.c.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <json-c/json.h>
#include "ctl.h"
#include "ctl-nic-mptcp.h"

#define MP_LIMIT	"8"	/* the kernel's maximum (MPTCP_PM_ADDR_MAX) */

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


/* Does the kernel have MPTCP (in this network namespace)? */
bool mp_present(void)
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
int mp_dump(struct mp *m)
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

const char *mp_ntop(const struct mp_addr *a, char *buf, size_t len)
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
const struct ctl_vnic *mp_ep_vnic(const struct ctl_vnics *vs,
				  const struct mp_addr *a, struct ifaddrs *ifa)
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
		return mp_backup_cmd(argc - 1, argv + 1, false, usage);
	else if (!strcmp(*argv, "follow"))
		return mp_backup_cmd(argc - 1, argv + 1, true, usage);
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
