// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl link: drack interfaces (one per host) over rtnetlink, with the
 * pool and host id that ip link cannot pass (IFLA_DRACK_POOL/HOST) and
 * why a link has no carrier (IFLA_DRACK_CARRIER_REASON); with -s, every
 * counter of the host (DRACK_CMD_STATS_GET).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl link add [ name ] NAME [ pool POOL ] [ host HOST ] [ netns NETNS ]\n"
		"       drackctl link del { [ dev ] NAME }\n"
		"       drackctl [ -s ] link [ show [ [ dev ] NAME ] ]\n"
		"       drackctl link help\n"
		"POOL defaults to 0, HOST to the lowest free host id of the pool.\n"
		"-s adds the host's counters.\n");
}

static const char *const operstates[] = {
	"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING",
	"DORMANT", "UP",
};

static void print_link_flags(uint32_t flags)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} names[] = {
		{ IFF_BROADCAST, "BROADCAST" },
		{ IFF_MULTICAST, "MULTICAST" },
		{ IFF_UP, "UP" },
		{ IFF_LOWER_UP, "LOWER_UP" },
	};
	bool first = true;
	size_t i;

	open_json_array(PRINT_JSON, "flags");
	print_string(PRINT_FP, NULL, "%s", "<");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].flag))
			continue;
		print_string(PRINT_FP, NULL, "%s", first ? "" : ",");
		print_string(PRINT_ANY, NULL, "%s", names[i].name);
		first = false;
	}
	print_string(PRINT_FP, NULL, "%s", "> ");
	close_json_array(PRINT_JSON, NULL);
}

/* Is counter @name in the group of @prefix (NULL: neither tx_ nor rx_)? */
static bool stat_in_group(const char *name, const char *prefix)
{
	if (prefix)
		return !strncmp(name, prefix, strlen(prefix));
	return strncmp(name, "tx_", 3) && strncmp(name, "rx_", 3);
}

/*
 * -s: every counter the kernel reports and libdrack names, a line of
 * tx_*, one of rx_* and one of the others; JSON: an object "stats".
 */
static void print_link_stats(const struct drack_stats_info *st)
{
	static const char *const groups[] = { "tx_", "rx_", NULL };
	const char *name;
	bool any;
	size_t g;
	uint32_t i;

	open_json_object("stats");
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		any = false;
		for (i = 0; i < st->nstats; i++) {
			name = drack_stat_name(i);
			if (!name || !stat_in_group(name, groups[g]))
				continue;
			if (!any)
				print_indent(3);
			ctl_print_counter(name, st->stat[i]);
			any = true;
		}
		if (any)
			print_nl();
	}
	close_json_object();
}

/*
 * Why the link has no carrier: text "carrier off (...)" after the address
 * when it has none; JSON "carrier_reason" ("none" with carrier).
 */
static void print_carrier(const struct drack_link_info *l)
{
	char why[96];

	if (l->carrier_reason == DRACK_LINK_ANY)	/* an older drack.ko */
		return;
	print_string(PRINT_JSON, "carrier_reason", NULL,
		     drack_carrier_reason_name(l->carrier_reason));
	switch (l->carrier_reason) {
	case DRACK_CARRIER_OK:
		return;
	case DRACK_CARRIER_NO_PEER:
		snprintf(why, sizeof(why), "no other host up");
		break;
	case DRACK_CARRIER_WAITING:
		snprintf(why, sizeof(why), "waiting for a Section of pool %u",
			 l->pool);
		break;
	case DRACK_CARRIER_NO_FM:
		snprintf(why, sizeof(why), "no fabric manager for pool %u",
			 l->pool);
		break;
	case DRACK_CARRIER_QUOTA:
		snprintf(why, sizeof(why),
			 "Section refused: quota reached in pool %u", l->pool);
		break;
	case DRACK_CARRIER_POOL_FULL:
		snprintf(why, sizeof(why), "no free Section in pool %u",
			 l->pool);
		break;
	case DRACK_CARRIER_FENCED:
		snprintf(why, sizeof(why), "fenced, rejoining pool %u",
			 l->pool);
		break;
	default:
		snprintf(why, sizeof(why), "reason %u", l->carrier_reason);
		break;
	}
	print_string(PRINT_FP, NULL, " carrier off (%s)", why);
}

static int print_link(const struct drack_link_info *l, void *arg)
{
	struct drack_stats_info st;
	char mac[32];

	(void)arg;
	if (ctl_stats && ctl_local_stats(l->ifindex, l->name, &st))
		return CTL_EKERNEL;
	open_json_object(NULL);
	print_uint(PRINT_ANY, "ifindex", "%u: ", l->ifindex);
	print_string(PRINT_ANY, "ifname", "%s: ", l->name);
	print_link_flags(l->flags);
	print_uint(PRINT_ANY, "pool", "pool %u ", l->pool);
	print_uint(PRINT_ANY, "host", "host %u ", l->host);
	print_uint(PRINT_ANY, "mtu", "mtu %u ", l->mtu);
	print_string(PRINT_ANY, "operstate", "state %s ",
		     l->operstate < sizeof(operstates) / sizeof(operstates[0]) ?
		     operstates[l->operstate] : "UNKNOWN");
	print_string(PRINT_ANY, "address", "address %s",
		     ctl_mac(l->mac, mac, sizeof(mac)));
	print_carrier(l);
	print_nl();
	if (ctl_stats)
		print_link_stats(&st);
	close_json_object();
	return CTL_OK;
}

static int link_show(int argc, char **argv)
{
	return ctl_show_dev(argc, argv, "link", usage, ctl_stats > 0,
			    print_link);
}

/* A pool or host id of a new link: not DRACK_LINK_ANY. */
static int get_link_id(uint32_t *val, const char *arg)
{
	return get_u32(val, arg) || *val == DRACK_LINK_ANY ? -1 : 0;
}

static int link_add(int argc, char **argv)
{
	uint32_t pool = DRACK_LINK_ANY, host = DRACK_LINK_ANY;
	const char *name = NULL, *netns = NULL;
	bool have_pool = false, have_host = false;
	char extack[DRACK_ERRMSG_MAX];
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_link_id, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "host", .get = get_link_id, .u32 = &host,
		  .have = &have_host, .invalid = "invalid host id" },
		{ .key = "netns", .str = &netns },
		{ .key = "name", .alias = "dev", .str = &name,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_EXACT |
			   CTL_ARG_IFNAME | CTL_ARG_REQUIRED,
		  .invalid = "not a valid ifname" },
		{ 0 }
	};
	int err, fd = -1;

	err = ctl_args(argc, argv, args, "link", usage);
	if (err != CTL_MORE)
		return err;
	if (netns) {
		fd = ctl_open_netns(netns, true);
		if (fd < 0)
			return CTL_EUSAGE;
	}
	err = drack_link_add(name, pool, host, fd, extack, sizeof(extack));
	if (fd >= 0)
		close(fd);
	return err ? ctl_rtnl_err(err, extack) : CTL_OK;
}

static int link_del(int argc, char **argv)
{
	char extack[DRACK_ERRMSG_MAX];
	const char *name = NULL;
	const struct ctl_arg args[] = {
		{ .key = "dev", .alias = "name", .str = &name,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_EXACT |
			   CTL_ARG_IFNAME | CTL_ARG_REQUIRED,
		  .invalid = "not a valid ifname" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "link", usage);
	if (err != CTL_MORE)
		return err;
	err = drack_link_del(name, extack, sizeof(extack));
	if (err == -ENODEV || err == -EOPNOTSUPP)
		return ctl_link_err(name, err);
	return err ? ctl_rtnl_err(err, extack) : CTL_OK;
}

int do_link(int argc, char **argv)
{
	if (argc < 1)
		return link_show(0, NULL);
	if (matches(*argv, "add"))
		return link_add(argc - 1, argv + 1);
	if (matches(*argv, "delete") || !strcmp(*argv, "del"))
		return link_del(argc - 1, argv + 1);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return link_show(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("link", *argv);
}
