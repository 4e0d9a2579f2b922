// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic: the NIC pool. A host exports a physical NIC to its pool
 * (DRACK_CMD_NIC_EXPORT, NIC_UNEXPORT), the NIC tables of the pools
 * (DRACK_CMD_NIC_GET) and the fabric manager's assignment of vNICs to
 * hosts (DRACK_CMD_NIC_ASSIGN), for admins and tests; drack-fmd normally
 * assigns every NIC to every host. The vNICs of this network namespace
 * are listed by ctl-vnics.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl nic export [ dev ] IFNAME [ link DRACKDEV ]\n"
		"       drackctl nic unexport [ dev ] IFNAME\n"
		"       drackctl [ -s ] nic [ show [ pool POOL ] [ id NIC ] ]\n"
		"       drackctl nic assign [ pool POOL ] [ id ] NIC host HOST [ on | off ] [ mac MAC ]\n"
		"       drackctl nic steer [ pool POOL ] [ id ] NIC host HOST via { NIC2 | home }\n"
		"       drackctl nic mptcp { on | off | show }\n"
		"       drackctl nic policy { mptcp | ecmp | spray | none } [ dev VNIC ]\n"
		"       drackctl nic policy [ show [ dev VNIC ] ]\n"
		"       drackctl nic help\n"
		"export lends physical NIC IFNAME to the pool of drack link DRACKDEV\n"
		"(default: the only drack link of this network namespace).\n"
		"POOL defaults to every pool for show and to 0 for assign.\n"
		"assign gives host HOST a vNIC of NIC (off: takes it back), as drack-fmd does;\n"
		"its MAC is MAC (02:44:4e:POOL:HOST:XX) or 02:44:4e:POOL:HOST:NIC.\n"
		"mptcp on adds an MPTCP subflow endpoint for every address of every vNIC\n"
		"of this network namespace; off removes them.\n"
		"policy chooses how traffic is spread over the vNICs (see \"nic policy help\").\n");
}

int ctl_nic_err(int err, const char *extack, const char *context)
{
	if (err == -EOPNOTSUPP && !(extack && *extack)) {
		fprintf(stderr, "Error: this drack.ko has no NIC pool (%s: %s).\n",
			context, strerror(-err));
		return CTL_EKERNEL;
	}
	return ctl_err(err, extack, context);
}

int get_nic_id(uint32_t *val, const char *arg)
{
	return get_u32(val, arg) || *val >= DRACK_MAX_NICS ? -1 : 0;
}

/* ---- show ---------------------------------------------------------- */

struct nic_show {
	bool have_id;
	uint32_t id;
};

/* "100Mbit", "10Gbit", "unknown" */
static const char *nic_rate(uint32_t mbps, char *buf, size_t len)
{
	if (!mbps)
		return "unknown";
	if (!(mbps % 1000))
		snprintf(buf, len, "%uGbit", mbps / 1000);
	else
		snprintf(buf, len, "%uMbit", mbps);
	return buf;
}

/* The hosts with a vNIC of the NIC: " assigned 0,1,3" or " assigned none". */
static void print_nic_assigned(uint64_t assigned)
{
	bool first = true;
	uint32_t h;

	open_json_array(PRINT_JSON, "assigned");
	print_string(PRINT_FP, NULL, "%s", " assigned ");
	for (h = 0; h < DRACK_MAX_HOSTS; h++) {
		if (!(assigned & (1ULL << h)))
			continue;
		print_string(PRINT_FP, NULL, "%s", first ? "" : ",");
		print_uint(PRINT_ANY, NULL, "%u", h);
		first = false;
	}
	if (first)
		print_string(PRINT_FP, NULL, "%s", "none");
	close_json_array(PRINT_JSON, NULL);
}

/*
 * What each assigned host posts to the NIC (root only): JSON array
 * "demand"; with -s a line "demand host H tx_bytes B queued Q, ...".
 */
static void print_nic_demand(const struct drack_nic_info *n, enum output_type t)
{
	uint32_t i;

	if (!n->ndemand)
		return;
	if (t == PRINT_JSON)
		open_json_array(PRINT_JSON, "demand");
	else
		print_string(PRINT_FP, NULL, "%s", " demand");
	for (i = 0; i < n->ndemand; i++) {
		open_json_object(NULL);
		print_uint(t, "host", i ? ", host %u" : " host %u",
			   n->demand[i].host);
		print_u64(t, "tx_bytes", " tx_bytes %" PRIu64,
			  n->demand[i].tx_bytes);
		print_uint(t, "queued", " queued %u", n->demand[i].queued);
		close_json_object();
	}
	if (t == PRINT_JSON)
		close_json_array(PRINT_JSON, NULL);
}

/* What the owner dropped of the vNIC's frames, by reason. */
static void print_vnic_drops(const struct drack_nic_info *n,
			     enum output_type t)
{
	static const char *const names[DRACK_VQ_DROP_NR] = {
		[DRACK_VQ_DROP_SPOOFED] = "spoofed",
		[DRACK_VQ_DROP_OVERSIZE] = "oversize",
		[DRACK_VQ_DROP_LINK_LOCAL] = "link_local",
		[DRACK_VQ_DROP_FILTERED] = "filtered",
	};
	char key[32];
	int i;

	if (t == PRINT_JSON)
		open_json_object("vnic_drops");
	else
		print_string(PRINT_FP, NULL, "%s", " vnic drops");
	for (i = 0; i < DRACK_VQ_DROP_NR; i++) {
		snprintf(key, sizeof(key), " %s %%u", names[i]);
		print_uint(t, names[i], key, n->vnic_drops[i]);
	}
	if (t == PRINT_JSON)
		close_json_object();
}

static int print_nic(const struct drack_nic_info *n, void *arg)
{
	struct nic_show *s = arg;
	char mac[32], rate[32];

	if (s->have_id && n->id != s->id)
		return 0;
	open_json_object(NULL);
	print_uint(PRINT_ANY, "pool", "pool %u", n->pool);
	print_uint(PRINT_ANY, "nic", " nic %u", n->id);
	print_string(PRINT_ANY, "state", " state %s",
		     drack_nic_state_name(n->state));
	print_uint(PRINT_ANY, "owner", " owner %u", n->owner);
	print_string(PRINT_ANY, "mac", " mac %s",
		     ctl_mac(n->mac, mac, sizeof(mac)));
	print_uint(PRINT_JSON, "rate_mbps", NULL, n->rate);
	print_string(PRINT_FP, NULL, " rate %s",
		     nic_rate(n->rate, rate, sizeof(rate)));
	print_nic_assigned(n->assigned);
	print_uint(PRINT_ANY, "queue_depth", " queue %u", n->queue_depth);
	ctl_print_counter("tx_bytes", n->tx_bytes);
	ctl_print_counter("wire_tx_bytes", n->wire_tx_bytes);
	ctl_print_counter("rx_bytes", n->rx_bytes);
	ctl_print_counter("drops", n->drops);
	print_uint(PRINT_JSON, "generation", NULL, n->generation);
	if (n->ifindex) {
		print_uint(PRINT_JSON, "ifindex", NULL, n->ifindex);
		print_string(PRINT_ANY, "ifname", " dev %s",
			     n->ifname[0] ? n->ifname : "?");
	}
	if (n->vnic_ifindex) {
		print_uint(PRINT_JSON, "vnic_ifindex", NULL, n->vnic_ifindex);
		print_uint(PRINT_JSON, "vnic_host", NULL, n->vnic_host);
		print_string(PRINT_ANY, "vnic_ifname", " vnic %s",
			     n->vnic_ifname[0] ? n->vnic_ifname : "?");
		print_uint(PRINT_ANY, "vnic_via", " via %u", n->vnic_via);
		if (n->vnic_steer >= 0)
			print_uint(PRINT_ANY, "vnic_steer", " steer %u",
				   (unsigned int)n->vnic_steer);
		print_uint(PRINT_JSON, "vnic_failovers", NULL,
			   n->vnic_failovers);
		print_string(PRINT_ANY, "vnic_mac", " vnic_mac %s",
			     ctl_mac(n->vnic_mac, mac, sizeof(mac)));
		print_vnic_drops(n, PRINT_JSON);
	}
	print_nic_demand(n, PRINT_JSON);
	print_nl();
	if (ctl_stats) {
		print_indent(4);
		print_uint(PRINT_FP, NULL, "generation %u", n->generation);
		if (n->vnic_ifindex) {
			print_uint(PRINT_FP, NULL, " failovers %u",
				   n->vnic_failovers);
			print_vnic_drops(n, PRINT_FP);
		}
		print_nic_demand(n, PRINT_FP);
		print_nl();
	}
	close_json_object();
	return 0;
}

struct nic_pools {
	struct drack_pool_info *pi;
	int n;
};

static int nic_pool_cb(const struct drack_pool_info *pi, void *arg)
{
	struct nic_pools *v = arg;
	struct drack_pool_info *p = realloc(v->pi, (v->n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	v->pi = p;
	v->pi[v->n++] = *pi;
	return 0;
}

int ctl_nic_pools(struct drack_pool_info **pools)
{
	struct nic_pools v = { 0 };
	int err;

	if (!ctl_nl())
		return -ENOENT;
	err = drack_pool_list(ctl_nl(), nic_pool_cb, &v);
	if (err) {
		free(v.pi);
		return err < 0 ? err : -EIO;
	}
	*pools = v.pi;
	return v.n;
}

/* Pool @pool (or every pool with a NIC table): one JSON array. */
static int nic_show_pools(bool have_pool, uint32_t pool, struct nic_show *s)
{
	struct drack_pool_info *pi = NULL, one;
	int i, n, err = 0;
	char ctx[32];

	if (!ctl_nl())
		return CTL_EKERNEL;
	if (have_pool) {
		err = drack_pool_get(ctl_nl(), pool, &one);
		if (err)
			return ctl_pool_err(err, pool);
		pi = &one;
		n = 1;
	} else {
		n = ctl_nic_pools(&pi);
		if (n < 0)
			return ctl_err(n, NULL, "listing pools");
	}
	new_json_obj();
	for (i = 0; i < n && !err; i++) {
		if (!have_pool && !pi[i].max_nics)
			continue;	/* a pool without a NIC table */
		err = drack_nic_list(ctl_nl(), pi[i].id, print_nic, s);
		pool = pi[i].id;
	}
	delete_json_obj();
	if (!have_pool)
		free(pi);
	if (!err)
		return CTL_OK;
	if (err == -ENOENT)
		return ctl_pool_err(err, pool);
	snprintf(ctx, sizeof(ctx), "pool %u", pool);
	return ctl_nic_err(err, NULL, ctx);
}

static int nic_show(int argc, char **argv)
{
	struct nic_show s = { 0 };
	bool have_pool = false;
	uint32_t pool = 0;
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "id", .alias = "nic", .get = get_nic_id, .u32 = &s.id,
		  .have = &s.have_id, .invalid = "NIC id is 0 to 15" },
		{ 0 }
	};
	int ret = ctl_args(argc, argv, args, "nic", usage);

	if (ret != CTL_MORE)
		return ret;
	return nic_show_pools(have_pool, pool, &s);
}

/* ---- export, unexport ---------------------------------------------- */

/* The ifindex of physical NIC @dev: CTL_OK, or an error message. */
static int nic_phys(const char *dev, uint32_t *ifindex)
{
	struct drack_link_info l;

	*ifindex = if_nametoindex(dev);
	if (!*ifindex)
		return ctl_link_err(dev, errno == ENODEV || errno == ENXIO ?
				    -ENODEV : -errno);
	if (!drack_link_get(dev, &l)) {
		fprintf(stderr, "Error: \"%s\" is a drack link: export a physical NIC.\n",
			dev);
		return CTL_EUSAGE;
	}
	return CTL_OK;
}

/* The only drack link of this network namespace. */
static int nic_default_link(struct drack_link_info *link)
{
	struct drack_link_info *links = NULL;
	int i, n = ctl_links(&links);

	if (n < 0)
		return ctl_err(n, NULL, "listing links");
	if (n == 1) {
		*link = links[0];
		free(links);
		return CTL_OK;
	}
	if (!n) {
		fprintf(stderr, "Error: no drack link in this network namespace: create one (drackctl link add) or name one with \"link DRACKDEV\".\n");
		return CTL_EKERNEL;
	}
	fprintf(stderr, "Error: %d drack links in this network namespace (", n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", links[i].name);
	fprintf(stderr, "): choose one with \"link DRACKDEV\".\n");
	free(links);
	return CTL_EUSAGE;
}

static int nic_export(int argc, char **argv)
{
	const char *dev = NULL, *linkname = NULL;
	char extack[DRACK_ERRMSG_MAX];
	struct drack_link_info link;
	uint32_t ifindex, pool, nic;
	const struct ctl_arg args[] = {
		{ .key = "link", .str = &linkname, .flags = CTL_ARG_IFNAME,
		  .invalid = "not a valid ifname" },
		{ .key = "dev", .str = &dev,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_EXACT |
			   CTL_ARG_IFNAME | CTL_ARG_REQUIRED,
		  .invalid = "not a valid ifname" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "nic", usage);
	if (err != CTL_MORE)
		return err;
	err = nic_phys(dev, &ifindex);
	if (err)
		return err;
	err = linkname ? ctl_link_get(linkname, &link) :
			 nic_default_link(&link);
	if (err)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_nic_export(ctl_nl(), link.ifindex, ifindex, &pool, &nic,
			       extack, sizeof(extack));
	if (err)
		return ctl_nic_err(err, extack, dev);

	new_json_obj();
	open_json_object(NULL);
	if (pool != UINT32_MAX)
		print_uint(PRINT_ANY, "pool", "pool %u ", pool);
	if (nic != UINT32_MAX)
		print_uint(PRINT_ANY, "nic", "nic %u ", nic);
	print_string(PRINT_ANY, "ifname", "dev %s ", dev);
	print_string(PRINT_ANY, "link", "link %s", link.name);
	close_json_object();
	print_nl();
	delete_json_obj();
	return CTL_OK;
}

static int nic_unexport(int argc, char **argv)
{
	char extack[DRACK_ERRMSG_MAX];
	const char *dev = NULL;
	const struct ctl_arg args[] = {
		{ .key = "dev", .str = &dev,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_EXACT |
			   CTL_ARG_IFNAME | CTL_ARG_REQUIRED,
		  .invalid = "not a valid ifname" },
		{ 0 }
	};
	uint32_t ifindex;
	int err;

	err = ctl_args(argc, argv, args, "nic", usage);
	if (err != CTL_MORE)
		return err;
	err = nic_phys(dev, &ifindex);
	if (err)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_nic_unexport(ctl_nl(), ifindex, extack, sizeof(extack));
	return err ? ctl_nic_err(err, extack, dev) : CTL_OK;
}

/* ---- assign -------------------------------------------------------- */

static int get_on_off(uint32_t *val, const char *arg)
{
	if (!strcmp(arg, "on"))
		*val = 1;
	else if (!strcmp(arg, "off"))
		*val = 0;
	else
		return -1;
	return 0;
}

static int nic_assign(int argc, char **argv)
{
	uint32_t pool = 0, nic = 0, host = 0, on = 1;
	bool have_pool = false, have_nic = false, have_host = false;
	bool have_on = false;
	char extack[DRACK_ERRMSG_MAX];
	const char *mac_str = NULL;
	unsigned int b[6];
	uint8_t mac[6];
	char end;
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "mac", .str = &mac_str, .flags = CTL_ARG_EXACT },
		{ .key = "host", .get = get_host_id, .u32 = &host,
		  .have = &have_host, .flags = CTL_ARG_REQUIRED,
		  .invalid = "host id is 0 to 63" },
		{ .key = "on", .name = "on | off", .get = get_on_off,
		  .u32 = &on, .have = &have_on,
		  .flags = CTL_ARG_BARE | CTL_ARG_EXACT },
		{ .key = "off", .name = "on | off", .get = get_on_off,
		  .u32 = &on, .have = &have_on,
		  .flags = CTL_ARG_BARE | CTL_ARG_EXACT },
		{ .key = "id", .alias = "nic", .name = "id", .get = get_nic_id,
		  .u32 = &nic, .have = &have_nic,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_REQUIRED,
		  .invalid = "NIC id is 0 to 15" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "nic", usage);
	if (err != CTL_MORE)
		return err;
	if (mac_str) {
		if (sscanf(mac_str, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1],
			   &b[2], &b[3], &b[4], &b[5], &end) != 6) {
			fprintf(stderr, "Error: \"%s\" is not a MAC address.\n",
				mac_str);
			return CTL_EUSAGE;
		}
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)b[i];
	}
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_nic_assign_mac(ctl_nl(), pool, nic, host, (int)on,
				   mac_str ? mac : NULL, extack,
				   sizeof(extack));
	if (err == -EOPNOTSUPP && !extack[0])
		return ctl_nic_err(err, extack, "assign");
	return err ? ctl_fm_err(err, extack, pool) : CTL_OK;
}

int do_nic(int argc, char **argv)
{
	if (argc < 1)
		return nic_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return nic_show(argc - 1, argv + 1);
	if (!strcmp(*argv, "export"))
		return nic_export(argc - 1, argv + 1);
	if (!strcmp(*argv, "unexport"))
		return nic_unexport(argc - 1, argv + 1);
	if (!strcmp(*argv, "assign"))
		return nic_assign(argc - 1, argv + 1);
	if (!strcmp(*argv, "steer"))
		return do_nic_steer(argc - 1, argv + 1);
	if (!strcmp(*argv, "mptcp"))
		return do_nic_mptcp(argc - 1, argv + 1);
	if (!strcmp(*argv, "policy"))
		return do_nic_policy(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("nic", *argv);
}
