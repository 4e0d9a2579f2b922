// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl: what the objects share: the show loops over drack links and
 * over pools, the counters of local hosts and their printing (the
 * argument parser is in ctl-args.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl.h"

int ctl_open_netns(const char *ns, bool pids)
{
	char path[PATH_MAX];
	uint32_t pid;
	int fd;

	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else if (pids && !get_u32(&pid, ns))
		snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "Cannot open network namespace \"%s\": %s\n",
			ns, strerror(errno));
	return fd;
}

int ctl_show_links(const char *dev, bool need_nl,
		   int (*show)(const struct drack_link_info *l, void *arg),
		   void *arg)
{
	struct drack_link_info *links = NULL, one;
	int i, n, ret = CTL_OK;

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
	if (need_nl && n && !ctl_nl()) {
		ret = CTL_EKERNEL;
		n = 0;
	}
	new_json_obj();
	for (i = 0; i < n; i++)
		ret |= show(&links[i], arg);
	delete_json_obj();
	if (!dev)
		free(links);
	return ret;
}

int ctl_show_dev(int argc, char **argv, const char *obj,
		 void (*usage)(FILE *out), bool need_nl,
		 int (*show)(const struct drack_link_info *l, void *arg))
{
	const char *dev = NULL;
	const struct ctl_arg args[] = {
		{ .key = "dev", .flags = CTL_ARG_POSITIONAL | CTL_ARG_IFNAME,
		  .str = &dev, .invalid = "not a valid ifname" },
		{ 0 }
	};
	int ret = ctl_args(argc, argv, args, obj, usage);

	if (ret != CTL_MORE)
		return ret;
	return ctl_show_links(dev, need_nl, show, NULL);
}

int ctl_show_pools(bool have_pool, uint32_t pool,
		   int (*list)(uint32_t pool, void *arg), void *arg)
{
	uint32_t *ids = NULL;
	int i, n, err = 0, ret = CTL_OK;

	if (!ctl_nl())
		return CTL_EKERNEL;
	if (have_pool) {
		ids = &pool;
		n = 1;
	} else {
		n = ctl_pool_ids(&ids);
		if (n < 0)
			return ctl_err(n, NULL, "listing pools");
	}
	new_json_obj();
	for (i = 0; i < n && !err; i++) {
		err = list(ids[i], arg);
		if (err)
			ret = ctl_pool_err(err, ids[i]);
	}
	delete_json_obj();
	if (!have_pool)
		free(ids);
	return ret;
}

struct ctl_local_stats {
	struct drack_stats_info *st;
	bool found;
};

static int ctl_local_stats_cb(const struct drack_stats_info *st, void *arg)
{
	struct ctl_local_stats *c = arg;

	if (st->local.ifindex == c->st->local.ifindex) {
		*c->st = *st;
		c->found = true;
	}
	return 0;
}

int ctl_local_stats(uint32_t ifindex, const char *ifname,
		    struct drack_stats_info *st)
{
	struct ctl_local_stats c = { .st = st };
	int err;

	memset(st, 0, sizeof(*st));
	st->local.ifindex = ifindex;
	err = drack_stats_list(ctl_nl(), ifindex, ctl_local_stats_cb, &c);
	if (!err && !c.found)
		err = -ENODEV;
	if (err) {
		fprintf(stderr, "Error: %s: cannot read counters: %s.\n",
			ifname, strerror(-err));
		return CTL_EKERNEL;
	}
	return CTL_OK;
}

void ctl_print_link_head(const struct drack_link_info *l)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "ifname", "%s", l->name);
	print_uint(PRINT_ANY, "pool", " pool %u", l->pool);
	print_uint(PRINT_ANY, "host", " host %u", l->host);
	print_nl();
}

void ctl_print_counter(const char *key, uint64_t value)
{
	char fmt[48];

	snprintf(fmt, sizeof(fmt), " %s %%" PRIu64, key);
	print_u64(PRINT_ANY, key, fmt, value);
}

void ctl_print_stat(const struct drack_stats_info *st, uint32_t stat)
{
	const char *name = drack_stat_name(stat);

	if (name && stat < st->nstats)
		ctl_print_counter(name, st->stat[stat]);
}
