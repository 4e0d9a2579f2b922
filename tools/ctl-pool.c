// SPDX-License-Identifier: GPL-2.0-only
/* drackctl pool: the pools of this kernel (DRACK_CMD_POOL_GET). */
#include <errno.h>
#include <stdio.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl pool [ show [ [ id ] ID ] ]\n"
		"       drackctl pool help\n");
}

static void print_pool(const struct drack_pool_info *p)
{
	char buf[32];

	open_json_object(NULL);
	print_uint(PRINT_ANY, "pool", "pool %u ", p->id);
	print_string(PRINT_ANY, "backend", "backend %s ", p->backend);
	print_u64(PRINT_JSON, "size", NULL, p->size);
	print_string(PRINT_FP, NULL, "size %s ", ctl_size(p->size, buf, sizeof(buf)));
	print_uint(PRINT_JSON, "section_size", NULL, p->section_size);
	print_string(PRINT_FP, NULL, "section_size %s ",
		     ctl_size(p->section_size, buf, sizeof(buf)));
	print_uint(PRINT_ANY, "section_count", "sections %u ", p->section_count);
	print_uint(PRINT_ANY, "meta_sections", "meta %u ", p->meta_sections);
	print_uint(PRINT_ANY, "free_sections", "free %u ", p->free_sections);
	print_uint(PRINT_ANY, "max_hosts", "max_hosts %u", p->max_hosts);
	close_json_object();
	print_nl();
}

static int print_pool_cb(const struct drack_pool_info *p, void *arg)
{
	(void)arg;
	print_pool(p);
	return 0;
}

static int pool_show(int argc, char **argv)
{
	struct drack_pool_info info;
	bool have_id = false;
	uint32_t id = 0;
	const struct ctl_arg args[] = {
		{ .key = "id", .flags = CTL_ARG_POSITIONAL, .get = get_u32,
		  .u32 = &id, .have = &have_id, .invalid = "invalid pool id" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "pool", usage);
	if (err != CTL_MORE)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	if (have_id) {
		err = drack_pool_get(ctl_nl(), id, &info);
		if (err)
			return ctl_pool_err(err, id);
		new_json_obj();
		print_pool(&info);
		delete_json_obj();
		return CTL_OK;
	}
	new_json_obj();
	err = drack_pool_list(ctl_nl(), print_pool_cb, NULL);
	delete_json_obj();
	return err ? ctl_err(err, NULL, "listing pools") : CTL_OK;
}

int do_pool(int argc, char **argv)
{
	if (argc < 1)
		return pool_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return pool_show(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("pool", *argv);
}
