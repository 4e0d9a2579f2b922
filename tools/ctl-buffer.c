// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl buffer: the Buffers of each drack interface of this network
 * namespace, per size class, from its ethtool counters (the same values
 * as /sys/class/net/DEV/drack/bufXk_*).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl [ -s ] buffer [ show [ [ dev ] DEV ] ]\n"
		"       drackctl buffer help\n");
}

static const char *const class_fields[] = {
	"sections", "total", "free", "inflight",
};

/* With -s: what tells whether Buffers come and go as they should. */
static const char *const buffer_stats[] = {
	"tx_no_buffer", "section_requests", "grants", "grant_bad",
	"ret_ok", "ret_bad", "ret_doorbells",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void print_stat(const struct ctl_ethtool_stats *st, const char *name)
{
	char fmt[48];
	uint64_t v;

	if (ctl_ethtool_stat(st, name, &v))
		return;
	snprintf(fmt, sizeof(fmt), " %s %%" PRIu64, name);
	print_u64(PRINT_ANY, name, fmt, v);
}

static void print_class(const struct ctl_ethtool_stats *st, uint32_t c)
{
	char name[48];
	size_t i;

	open_json_object(NULL);
	print_indent(4);
	print_string(PRINT_ANY, "class", "class %s", drack_class_name(c));
	print_uint(PRINT_ANY, "size", " size %u", DRACK_CLASS_SIZE(c));
	for (i = 0; i < ARRAY_SIZE(class_fields); i++) {
		char fmt[48];
		uint64_t v;

		snprintf(name, sizeof(name), "buf%s_%s", drack_class_name(c),
			 class_fields[i]);
		if (ctl_ethtool_stat(st, name, &v))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%" PRIu64, class_fields[i]);
		print_u64(PRINT_ANY, class_fields[i], fmt, v);
	}
	close_json_object();
	print_nl();
}

static int buffer_show_link(const struct drack_link_info *l)
{
	struct ctl_ethtool_stats st;
	uint32_t c;
	size_t i;
	int err;

	err = ctl_ethtool_stats(l->name, &st);
	if (err) {
		fprintf(stderr, "Error: %s: cannot read counters: %s.\n",
			l->name, strerror(-err));
		return CTL_EKERNEL;
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "ifname", "%s", l->name);
	print_uint(PRINT_ANY, "pool", " pool %u", l->pool);
	print_uint(PRINT_ANY, "host", " host %u", l->host);
	print_nl();
	open_json_array(PRINT_JSON, "classes");
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		print_class(&st, c);
	close_json_array(PRINT_JSON, NULL);
	if (ctl_stats) {
		open_json_object("stats");
		print_indent(4);
		print_string(PRINT_FP, NULL, "%s", "stats:");
		for (i = 0; i < ARRAY_SIZE(buffer_stats); i++)
			print_stat(&st, buffer_stats[i]);
		close_json_object();
		print_nl();
	}
	close_json_object();
	ctl_ethtool_free(&st);
	return CTL_OK;
}

static int buffer_show(int argc, char **argv)
{
	struct drack_link_info *links = NULL, one;
	const char *dev = NULL;
	int i, n, ret = CTL_OK;

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
		ret |= buffer_show_link(&links[i]);
	delete_json_obj();
	if (!dev)
		free(links);
	return ret;
}

int do_buffer(int argc, char **argv)
{
	if (argc < 1)
		return buffer_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return buffer_show(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("buffer", *argv);
}
