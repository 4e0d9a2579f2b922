// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl host: the host tables of the pools (DRACK_CMD_HOST_GET) and the
 * fabric manager's fence and reclaim of a dead host (DRACK_CMD_HOST_FENCE,
 * DRACK_CMD_HOST_RECLAIM).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl host [ show [ pool POOL ] [ id HOST ] ]\n"
		"       drackctl host fence [ pool POOL ] [ id ] HOST\n"
		"       drackctl host reclaim [ pool POOL ] [ id ] HOST\n"
		"       drackctl host help\n"
		"POOL defaults to every pool for show and to 0 for fence and reclaim.\n"
		"fence declares a hung host dead: its peers let go of its Buffers.\n"
		"reclaim then frees its Sections and its slot.\n");
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

/* The classes of pending Section requests: " wanted 2k,64k". */
static void print_host_wanted(const uint32_t wanted[DRACK_NR_CLASSES])
{
	bool first = true;
	uint32_t c;

	open_json_array(PRINT_JSON, "wanted");
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		if (!wanted[c])
			continue;
		print_string(PRINT_FP, NULL, "%s", first ? " wanted " : ",");
		print_string(PRINT_ANY, NULL, "%s", drack_class_name(c));
		first = false;
	}
	close_json_array(PRINT_JSON, NULL);
}

/* The dead hosts it holds nothing of: " released 1,5". */
static void print_host_released(uint64_t released)
{
	bool first = true;
	uint32_t p;

	open_json_array(PRINT_JSON, "released");
	for (p = 0; p < DRACK_MAX_HOSTS; p++) {
		if (!(released & (1ULL << p)))
			continue;
		print_string(PRINT_FP, NULL, "%s", first ? " released " : ",");
		print_uint(PRINT_ANY, NULL, "%u", p);
		first = false;
	}
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
	print_uint(PRINT_ANY, "generation", " generation %u", h->generation);
	print_uint(PRINT_ANY, "free_2k", " free_2k %u",
		   h->buffers_free[DRACK_CLASS_2K]);
	print_uint(PRINT_ANY, "free_64k", " free_64k %u",
		   h->buffers_free[DRACK_CLASS_64K]);
	print_host_wanted(h->wanted);
	print_host_released(h->released);
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

/* host fence and host reclaim: one host of one pool. */
static int host_fm_op(int argc, char **argv,
		      int (*op)(struct drack_nl *nl, uint32_t pool,
				uint32_t host, char *errbuf, size_t errlen))
{
	uint32_t pool = 0, host = 0;
	bool have_pool = false, have_host = false;
	char extack[DRACK_ERRMSG_MAX];
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "id", .alias = "host", .get = get_host_id, .u32 = &host,
		  .have = &have_host,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_REQUIRED,
		  .invalid = "host id is 0 to 63" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "host", usage);
	if (err != CTL_MORE)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = op(ctl_nl(), pool, host, extack, sizeof(extack));
	return err ? ctl_fm_err(err, extack, pool) : CTL_OK;
}

int do_host(int argc, char **argv)
{
	if (argc < 1)
		return host_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return host_show(argc - 1, argv + 1);
	if (!strcmp(*argv, "fence"))
		return host_fm_op(argc - 1, argv + 1, drack_host_fence);
	if (!strcmp(*argv, "reclaim"))
		return host_fm_op(argc - 1, argv + 1, drack_host_reclaim);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("host", *argv);
}
