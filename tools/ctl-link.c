// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl link: drack interfaces (one per host) over rtnetlink, with the
 * pool and host id that ip link cannot pass (IFLA_DRACK_POOL/HOST).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
		"       drackctl link [ show [ [ dev ] NAME ] ]\n"
		"       drackctl link help\n"
		"POOL defaults to 0, HOST to the lowest free host id of the pool.\n");
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

static void print_link(const struct drack_link_info *l)
{
	char mac[32];

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
	close_json_object();
	print_nl();
}

static int link_show(int argc, char **argv)
{
	struct drack_link_info *links = NULL, one;
	const char *dev = NULL;
	int i, n, ret;

	while (argc > 0) {
		if (matches(*argv, "dev"))
			NEXT_ARG();
		else if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		}
		if (dev)
			return duparg("dev", *argv);
		if (!ifname_ok(*argv))
			return invarg("not a valid ifname", *argv);
		dev = *argv;
		argc--;
		argv++;
	}

	if (dev) {
		ret = ctl_link_get(dev, &one);
		if (ret)
			return ret;
		links = &one;
		n = 1;
	} else {
		n = ctl_links(&links);
		if (n < 0)
			return ctl_err(n, NULL, "listing links");
	}
	new_json_obj();
	for (i = 0; i < n; i++)
		print_link(&links[i]);
	delete_json_obj();
	if (!dev)
		free(links);
	return CTL_OK;
}

/* netns NAME (in /run/netns), a path, or a pid: an fd, or -1. */
static int open_netns(const char *ns)
{
	char path[PATH_MAX];
	uint32_t pid;
	int fd;

	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else if (!get_u32(&pid, ns))
		snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "Cannot open network namespace \"%s\": %s\n",
			ns, strerror(errno));
	return fd;
}

static int link_add(int argc, char **argv)
{
	uint32_t pool = DRACK_LINK_ANY, host = DRACK_LINK_ANY;
	const char *name = NULL, *netns = NULL;
	char extack[DRACK_ERRMSG_MAX];
	int err, fd = -1;

	while (argc > 0) {
		if (matches(*argv, "pool")) {
			NEXT_ARG();
			if (pool != DRACK_LINK_ANY)
				return duparg("pool", *argv);
			if (get_u32(&pool, *argv) || pool == DRACK_LINK_ANY)
				return invarg("invalid pool id", *argv);
		} else if (matches(*argv, "host")) {
			NEXT_ARG();
			if (host != DRACK_LINK_ANY)
				return duparg("host", *argv);
			if (get_u32(&host, *argv) || host == DRACK_LINK_ANY)
				return invarg("invalid host id", *argv);
		} else if (matches(*argv, "netns")) {
			NEXT_ARG();
			if (netns)
				return duparg("netns", *argv);
			netns = *argv;
		} else if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		} else {
			if (!strcmp(*argv, "name") || !strcmp(*argv, "dev"))
				NEXT_ARG();
			if (name)
				return duparg("name", *argv);
			if (!ifname_ok(*argv))
				return invarg("not a valid ifname", *argv);
			name = *argv;
		}
		argc--;
		argv++;
	}
	if (!name) {
		fprintf(stderr, "Not enough information: \"name\" argument is required.\n");
		return CTL_EUSAGE;
	}
	if (netns) {
		fd = open_netns(netns);
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
	int err;

	while (argc > 0) {
		if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		}
		if (!strcmp(*argv, "dev") || !strcmp(*argv, "name"))
			NEXT_ARG();
		if (name)
			return duparg("dev", *argv);
		if (!ifname_ok(*argv))
			return invarg("not a valid ifname", *argv);
		name = *argv;
		argc--;
		argv++;
	}
	if (!name) {
		fprintf(stderr, "Not enough information: \"dev\" argument is required.\n");
		return CTL_EUSAGE;
	}
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
