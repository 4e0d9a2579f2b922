// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl buffer: the Buffers of each drack interface of this network
 * namespace, per size class (DRACK_CMD_CLASS_GET; the same values as
 * /sys/class/net/DEV/drack/bufXk_*), with -s the counters of Buffers
 * coming and going (DRACK_CMD_STATS_GET).
 */
#include <stdio.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl [ -s ] buffer [ show [ [ dev ] DEV ] ]\n"
		"       drackctl buffer help\n");
}

/* With -s: what tells whether Buffers come and go as they should. */
static const uint32_t buffer_stats[] = {
	DRACK_STAT_TX_NO_BUFFER, DRACK_STAT_SECTION_REQUESTS,
	DRACK_STAT_GRANTS, DRACK_STAT_GRANT_BAD, DRACK_STAT_REVOKES,
	DRACK_STAT_RX_RET_OK, DRACK_STAT_RX_RET_BAD,
	DRACK_STAT_RX_RET_DOORBELLS,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct buffer_classes {
	uint32_t ifindex;
	bool seen[DRACK_NR_CLASSES];
	struct drack_class_info cls[DRACK_NR_CLASSES];
};

static int buffer_class_cb(const struct drack_class_info *c, void *arg)
{
	struct buffer_classes *b = arg;

	if (c->local.ifindex == b->ifindex && c->buf_class < DRACK_NR_CLASSES) {
		b->seen[c->buf_class] = true;
		b->cls[c->buf_class] = *c;
	}
	return 0;
}

static void print_class(const struct drack_class_info *c)
{
	open_json_object(NULL);
	print_indent(4);
	print_string(PRINT_ANY, "class", "class %s",
		     drack_class_name(c->buf_class));
	print_uint(PRINT_ANY, "size", " size %u", DRACK_CLASS_SIZE(c->buf_class));
	ctl_print_counter("sections", c->sections);
	ctl_print_counter("total", c->total);
	ctl_print_counter("free", c->free);
	ctl_print_counter("inflight", c->inflight);
	print_bool(PRINT_ANY, "requested", " requested %s", c->requested);
	ctl_print_counter("draining", c->draining);
	close_json_object();
	print_nl();
}

static int buffer_show_link(const struct drack_link_info *l, void *arg)
{
	struct buffer_classes b = { .ifindex = l->ifindex };
	struct drack_stats_info st;
	uint32_t c;
	size_t i;
	int err;

	(void)arg;
	err = drack_class_list(ctl_nl(), l->ifindex, buffer_class_cb, &b);
	if (err)
		return ctl_err(err, NULL, l->name);
	if (ctl_stats && ctl_local_stats(l->ifindex, l->name, &st))
		return CTL_EKERNEL;

	ctl_print_link_head(l);
	open_json_array(PRINT_JSON, "classes");
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		if (b.seen[c])
			print_class(&b.cls[c]);
	close_json_array(PRINT_JSON, NULL);
	if (ctl_stats) {
		open_json_object("stats");
		print_indent(4);
		print_string(PRINT_FP, NULL, "%s", "stats:");
		for (i = 0; i < ARRAY_SIZE(buffer_stats); i++)
			ctl_print_stat(&st, buffer_stats[i]);
		close_json_object();
		print_nl();
	}
	close_json_object();
	return CTL_OK;
}

static int buffer_show(int argc, char **argv)
{
	return ctl_show_dev(argc, argv, "buffer", usage, true,
			    buffer_show_link);
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
