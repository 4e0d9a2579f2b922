// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl pool: the pools of this kernel (DRACK_CMD_POOL_GET) and the
 * fabric manager's format of an idle pool (DRACK_CMD_POOL_FORMAT).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ctl.h"

/* DRACK_CMD_POOL_FORMAT limits */
#define POOL_MIN_HOSTS		2
#define POOL_MAX_REGIONS	16

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl pool [ show [ [ id ] ID ] ]\n"
		"       drackctl pool format [ id ] ID [ max-hosts N ] [ regions R ]\n"
		"       drackctl pool help\n"
		"where  N := 2..64, R := 1..16; left out, they stay as they are.\n"
		"format wipes a pool that no host uses.\n");
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
	print_uint(PRINT_ANY, "max_hosts", "max_hosts %u ", p->max_hosts);
	print_uint(PRINT_ANY, "max_nics", "max_nics %u ", p->max_nics);
	print_uint(PRINT_ANY, "regions", "regions %u ", p->regions);
	print_uint(PRINT_JSON, "fm_pid", NULL, p->fm_pid);
	if (p->fm_pid)
		print_uint(PRINT_FP, NULL, "fm_pid %u ", p->fm_pid);
	else
		print_string(PRINT_FP, NULL, "fm_pid %s ", "none");
	print_u64(PRINT_ANY, "fm_epoch", "fm_epoch %" PRIu64, p->fm_epoch);
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

static int get_max_hosts(uint32_t *val, const char *arg)
{
	return get_u32(val, arg) || *val < POOL_MIN_HOSTS ||
	       *val > DRACK_MAX_HOSTS ? -1 : 0;
}

static int get_regions(uint32_t *val, const char *arg)
{
	return get_u32(val, arg) || !*val || *val > POOL_MAX_REGIONS ? -1 : 0;
}

static int pool_format(int argc, char **argv)
{
	uint32_t id = 0, max_hosts = 0, regions = 0;
	bool have_id = false, have_hosts = false, have_regions = false;
	char extack[DRACK_ERRMSG_MAX];
	const struct ctl_arg args[] = {
		{ .key = "max-hosts", .get = get_max_hosts, .u32 = &max_hosts,
		  .have = &have_hosts, .invalid = "max-hosts is 2 to 64" },
		{ .key = "regions", .get = get_regions, .u32 = &regions,
		  .have = &have_regions, .invalid = "regions is 1 to 16" },
		{ .key = "id", .alias = "pool", .name = "id",
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_REQUIRED,
		  .get = get_u32, .u32 = &id, .have = &have_id,
		  .invalid = "invalid pool id" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "pool", usage);
	if (err != CTL_MORE)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_pool_format(ctl_nl(), id, max_hosts, regions, extack,
				sizeof(extack));
	return err ? ctl_fm_err(err, extack, id) : CTL_OK;
}

int do_pool(int argc, char **argv)
{
	if (argc < 1)
		return pool_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return pool_show(argc - 1, argv + 1);
	if (!strcmp(*argv, "format"))
		return pool_format(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("pool", *argv);
}
