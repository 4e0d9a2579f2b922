// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl buffer: the Buffers of each drack interface of this network
 * namespace, per size class, from its ethtool counters (the same values
 * as /sys/class/net/DEV/drack/bufXk_*).
 */
#include <stdio.h>
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

static void print_class(const struct ctl_ethtool_stats *st, uint32_t c)
{
	size_t i;
	uint64_t v;

	open_json_object(NULL);
	print_indent(4);
	print_string(PRINT_ANY, "class", "class %s", drack_class_name(c));
	print_uint(PRINT_ANY, "size", " size %u", DRACK_CLASS_SIZE(c));
	for (i = 0; i < ARRAY_SIZE(class_fields); i++)
		if (!ctl_ethtool_statf(st, &v, "buf%s_%s", drack_class_name(c),
				       class_fields[i]))
			ctl_print_counter(class_fields[i], v);
	close_json_object();
	print_nl();
}

static int buffer_show_link(const struct drack_link_info *l, void *arg)
{
	struct ctl_ethtool_stats st;
	uint64_t v;
	uint32_t c;
	size_t i;

	(void)arg;
	if (ctl_link_stats(l->name, &st))
		return CTL_EKERNEL;
	ctl_print_link_head(l);
	open_json_array(PRINT_JSON, "classes");
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		print_class(&st, c);
	close_json_array(PRINT_JSON, NULL);
	if (ctl_stats) {
		open_json_object("stats");
		print_indent(4);
		print_string(PRINT_FP, NULL, "%s", "stats:");
		for (i = 0; i < ARRAY_SIZE(buffer_stats); i++)
			if (!ctl_ethtool_stat(&st, buffer_stats[i], &v))
				ctl_print_counter(buffer_stats[i], v);
		close_json_object();
		print_nl();
	}
	close_json_object();
	ctl_ethtool_free(&st);
	return CTL_OK;
}

static int buffer_show(int argc, char **argv)
{
	return ctl_show_dev(argc, argv, "buffer", usage, buffer_show_link);
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
