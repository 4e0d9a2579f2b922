// SPDX-License-Identifier: GPL-2.0-only
/* drackctl host: the host tables of the pools (DRACK_CMD_HOST_GET). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl host [ show [ pool POOL ] [ id HOST ] ]\n"
		"       drackctl host help\n");
}

struct host_show {
	bool have_id;
	uint32_t id;
	struct drack_link_info *links;	/* of this netns, to name ifindexes */
	int nlinks;
};

/* The local drack link of @h, if it is in this network namespace. */
static const char *host_ifname(const struct host_show *s,
			       const struct drack_host_info *h)
{
	int i;

	for (i = 0; h->ifindex && i < s->nlinks; i++)
		if (s->links[i].ifindex == h->ifindex &&
		    s->links[i].pool == h->pool && s->links[i].host == h->id)
			return s->links[i].name;
	return NULL;
}

static void print_host_flags(uint32_t flags)
{
	open_json_array(PRINT_JSON, "flags");
	if (flags)
		print_string(PRINT_FP, NULL, "%s", "flags ");
	if (flags & DRACK_HOST_F_RUNNING)
		print_string(PRINT_ANY, NULL, "running ", "running");
	if (flags & ~DRACK_HOST_F_RUNNING)
		print_uint(PRINT_ANY, NULL, "0x%x ", flags & ~DRACK_HOST_F_RUNNING);
	close_json_array(PRINT_JSON, NULL);
}

static int print_host(const struct drack_host_info *h, void *arg)
{
	struct host_show *s = arg;
	const char *ifname;
	char mac[32];

	if (s->have_id && h->id != s->id)
		return 0;
	open_json_object(NULL);
	print_uint(PRINT_ANY, "pool", "pool %u ", h->pool);
	print_uint(PRINT_ANY, "host", "host %u ", h->id);
	print_string(PRINT_ANY, "state", "state %s ",
		     drack_host_state_name(h->state));
	print_host_flags(h->flags);
	print_string(PRINT_ANY, "mac", "mac %s ",
		     ctl_mac(h->mac, mac, sizeof(mac)));
	print_uint(PRINT_ANY, "sections", "sections %u ", h->sections);
	print_u64(PRINT_ANY, "heartbeat", "heartbeat %" PRIu64, h->heartbeat);
	if (h->ifindex) {
		print_uint(PRINT_ANY, "ifindex", " ifindex %u", h->ifindex);
		ifname = host_ifname(s, h);
		if (ifname)
			print_string(PRINT_ANY, "ifname", " dev %s", ifname);
	}
	close_json_object();
	print_nl();
	return 0;
}

static int host_list(uint32_t pool, void *arg)
{
	return drack_host_list(ctl_nl(), pool, print_host, arg);
}

static int host_show(int argc, char **argv)
{
	struct host_show s = { 0 };
	bool have_pool = false;
	uint32_t pool = 0;
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "id", .alias = "host", .get = get_u32, .u32 = &s.id,
		  .have = &s.have_id, .invalid = "invalid host id" },
		{ 0 }
	};
	int ret = ctl_args(argc, argv, args, "host", usage);

	if (ret != CTL_MORE)
		return ret;
	s.nlinks = ctl_links(&s.links);
	if (s.nlinks < 0)
		s.nlinks = 0;	/* only the interface names are missing */
	ret = ctl_show_pools(have_pool, pool, host_list, &s);
	free(s.links);
	return ret;
}

int do_host(int argc, char **argv)
{
	if (argc < 1)
		return host_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return host_show(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("host", *argv);
}
