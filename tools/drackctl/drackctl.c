// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl: look at and manage drack pools, hosts, Sections, Buffers,
 * links and the NIC pool, in the manner of iproute2: drackctl [OPTIONS]
 * OBJECT COMMAND.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "ctl.h"

bool ctl_json;
bool ctl_pretty;
int ctl_stats;

static struct drack_nl *ctl_nl_handle;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       drackctl [ OPTIONS ] monitor\n"
		"       drackctl -V\n"
		"where  OBJECT := { pool | host | peer | section | buffer | link | nic |\n"
		"                   monitor }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tatistics] | -n[etns] NAME |\n"
		"                    -V[ersion] | -h[elp] }\n");
}

struct drack_nl *ctl_nl(void)
{
	if (ctl_nl_handle)
		return ctl_nl_handle;
	ctl_nl_handle = drack_nl_open();
	if (!ctl_nl_handle) {
		if (errno == ENOENT)
			fprintf(stderr, "Error: generic netlink family \"%s\" not found: is drack.ko loaded?\n",
				DRACK_GENL_NAME);
		else
			fprintf(stderr, "Error: cannot open the \"%s\" generic netlink family: %s.\n",
				DRACK_GENL_NAME, strerror(errno));
	}
	return ctl_nl_handle;
}

void ctl_nl_close(void)
{
	drack_nl_close(ctl_nl_handle);
	ctl_nl_handle = NULL;
}

static void ctl_extack(const char *extack)
{
	size_t n = strlen(extack);

	fprintf(stderr, "Error: %s%s\n", extack,
		n && extack[n - 1] == '.' ? "" : ".");
}

int ctl_err(int err, const char *extack, const char *context)
{
	if (extack && *extack)
		ctl_extack(extack);
	else if (context)
		fprintf(stderr, "Error: %s: %s.\n", context, strerror(-err));
	else
		fprintf(stderr, "Error: %s.\n", strerror(-err));
	return CTL_EKERNEL;
}

int ctl_pool_err(int err, uint32_t pool)
{
	char ctx[32];

	if (err == -ENOENT) {
		fprintf(stderr, "Error: pool %u does not exist.\n", pool);
		return CTL_EKERNEL;
	}
	snprintf(ctx, sizeof(ctx), "pool %u", pool);
	return ctl_err(err, NULL, ctx);
}

int ctl_rtnl_err(int err, const char *extack)
{
	if (extack && *extack)
		ctl_extack(extack);
	else
		fprintf(stderr, "RTNETLINK answers: %s\n", strerror(-err));
	return CTL_EKERNEL;
}

int ctl_fm_err(int err, const char *extack, uint32_t pool)
{
	if (err == -ENOENT && !(extack && *extack))
		return ctl_pool_err(err, pool);
	return ctl_err(err, extack, NULL);
}

struct ctl_ids {
	uint32_t *ids;
	int n;
};

static int ctl_pool_id_cb(const struct drack_pool_info *pool, void *arg)
{
	struct ctl_ids *v = arg;
	uint32_t *ids = realloc(v->ids, (v->n + 1) * sizeof(*ids));
	int i;

	if (!ids)
		return -ENOMEM;
	v->ids = ids;
	for (i = v->n++; i > 0 && ids[i - 1] > pool->id; i--)
		ids[i] = ids[i - 1];
	ids[i] = pool->id;
	return 0;
}

int ctl_pool_ids(uint32_t **ids)
{
	struct ctl_ids v = { 0 };
	int err;

	if (!ctl_nl())
		return -ENOENT;
	err = drack_pool_list(ctl_nl(), ctl_pool_id_cb, &v);
	if (err) {
		free(v.ids);
		return err < 0 ? err : -EIO;
	}
	*ids = v.ids;
	return v.n;
}

struct ctl_linkv {
	struct drack_link_info *links;
	int n;
};

static int ctl_link_cb(const struct drack_link_info *link, void *arg)
{
	struct ctl_linkv *v = arg;
	struct drack_link_info *l = realloc(v->links,
					    (v->n + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	v->links = l;
	l[v->n++] = *link;
	return 0;
}

int ctl_links(struct drack_link_info **links)
{
	struct ctl_linkv v = { 0 };
	int err = drack_link_list(ctl_link_cb, &v);

	if (err) {
		free(v.links);
		return err < 0 ? err : -EIO;
	}
	*links = v.links;
	return v.n;
}

int ctl_link_err(const char *dev, int err)
{
	if (err == -ENODEV)
		fprintf(stderr, "Device \"%s\" does not exist.\n", dev);
	else if (err == -EOPNOTSUPP)
		fprintf(stderr, "Error: \"%s\" is not a drack link.\n", dev);
	else
		return ctl_err(err, NULL, dev);
	return CTL_EKERNEL;
}

int ctl_link_get(const char *dev, struct drack_link_info *link)
{
	int err = drack_link_get(dev, link);

	return err ? ctl_link_err(dev, err) : CTL_OK;
}

/* -n NAME: run in network namespace NAME, as ip -n does. */
static int ctl_netns(const char *name)
{
	int fd = ctl_open_netns(name, false);

	if (fd < 0)
		return CTL_EUSAGE;
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "setting the network namespace \"%s\" failed: %s\n",
			name, strerror(errno));
		close(fd);
		return CTL_EKERNEL;
	}
	close(fd);
	return 0;
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return CTL_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	{ "pool",	do_pool },
	{ "host",	do_host },
	{ "peer",	do_peer },
	{ "section",	do_section },
	{ "buffer",	do_buffer },
	{ "link",	do_link },
	{ "nic",	do_nic },
	{ "monitor",	do_monitor },
	{ "help",	do_help },
};

static int do_object(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (matches(argv[0], objects[i].name))
			return objects[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "Object \"%s\" is unknown, try \"drackctl help\".\n",
		argv[0]);
	return CTL_EUSAGE;
}

int main(int argc, char **argv)
{
	int ret;

	while (argc > 1 && argv[1][0] == '-' && argv[1][1]) {
		const char *opt = argv[1];

		if (opt[1] == '-')
			opt++;
		if (matches(opt, "-json")) {
			ctl_json = true;
		} else if (matches(opt, "-pretty")) {
			ctl_json = true;
			ctl_pretty = true;
		} else if (matches(opt, "-statistics") || matches(opt, "-stats")) {
			ctl_stats++;
		} else if (matches(opt, "-netns")) {
			argc--;
			argv++;
			if (argc <= 1)
				return incomplete_command();
			ret = ctl_netns(argv[1]);
			if (ret)
				return ret;
		} else if (matches(opt, "-Version")) {
			printf("drackctl %s (libdrack, drack netlink family version %d)\n",
			       CTL_VERSION, DRACK_GENL_VERSION);
			return CTL_OK;
		} else if (matches(opt, "-help")) {
			usage(stdout);
			return CTL_OK;
		} else {
			fprintf(stderr, "Option \"%s\" is unknown, try \"drackctl -help\".\n",
				argv[1]);
			return CTL_EUSAGE;
		}
		argc--;
		argv++;
	}
	if (argc <= 1) {
		usage(stderr);
		return CTL_EUSAGE;
	}
	ret = do_object(argc - 1, argv + 1);
	ctl_nl_close();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "drackctl: write error: %s\n", strerror(errno));
		return ret ? ret : CTL_EUSAGE;
	}
	return ret;
}
