// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl section: the Section tables of the pools (DRACK_CMD_SECTION_GET)
 * and the fabric manager's grant and revoke (DRACK_CMD_SECTION_GRANT,
 * DRACK_CMD_SECTION_REVOKE), for admins and tests; drack-fmd normally
 * does both.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ctl.h"

#define OWNER_ANY	UINT32_MAX

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl section [ show [ pool POOL ] [ id SECTION ]\n"
		"                               [ owner { HOST | free | meta } ] [ class CLASS ] ]\n"
		"       drackctl section grant [ pool POOL ] host HOST section SECTION class CLASS\n"
		"       drackctl section revoke [ pool POOL ] [ id ] SECTION\n"
		"       drackctl section help\n"
		"where  CLASS := { 2k | 64k }\n"
		"POOL defaults to every pool for show and to 0 for grant and revoke.\n"
		"revoke asks the owner to give the Section back once its Buffers are home.\n");
}

struct section_show {
	bool have_id, have_class;
	uint32_t id, owner, buf_class;
};

static void print_section_flags(uint32_t flags)
{
	open_json_array(PRINT_JSON, "flags");
	if (flags)
		print_string(PRINT_FP, NULL, "%s", " flags");
	if (flags & DRACK_SECTION_F_REVOKE)
		print_string(PRINT_ANY, NULL, " %s", "revoke");
	if (flags & ~DRACK_SECTION_F_REVOKE)
		print_uint(PRINT_ANY, NULL, " 0x%x", flags & ~DRACK_SECTION_F_REVOKE);
	close_json_array(PRINT_JSON, NULL);
}

static int print_section(const struct drack_section_info *sec, void *arg)
{
	struct section_show *s = arg;
	bool granted = sec->owner != DRACK_SECTION_FREE &&
		       sec->owner != DRACK_SECTION_META;
	char buf[16];

	if ((s->have_id && sec->id != s->id) ||
	    (s->owner != OWNER_ANY && sec->owner != s->owner) ||
	    (s->have_class && (!granted || sec->buf_class != s->buf_class)))
		return 0;

	open_json_object(NULL);
	print_uint(PRINT_ANY, "pool", "pool %u ", sec->pool);
	print_uint(PRINT_ANY, "section", "section %u ", sec->id);
	print_string(PRINT_FP, NULL, "owner %s",
		     ctl_owner(sec->owner, buf, sizeof(buf)));
	if (granted) {
		print_string(PRINT_JSON, "state", NULL, "granted");
		print_uint(PRINT_JSON, "owner", NULL, sec->owner);
		print_string(PRINT_ANY, "class", " class %s",
			     drack_class_name(sec->buf_class));
	} else {
		print_string(PRINT_JSON, "state", NULL,
			     ctl_owner(sec->owner, buf, sizeof(buf)));
	}
	if (sec->owner != DRACK_SECTION_META)
		print_uint(PRINT_ANY, "generation", " generation %u",
			   sec->generation);
	print_uint(PRINT_ANY, "region", " region %u", sec->region);
	if (sec->page_order >= 0)
		print_uint(PRINT_ANY, "page_order", " page-order %u",
			   sec->page_order);
	print_section_flags(sec->flags);
	close_json_object();
	print_nl();
	return 0;
}

static int section_list(uint32_t pool, void *arg)
{
	return drack_section_list(ctl_nl(), pool, print_section, arg);
}

/* A Section owner: a host id, "free" or "meta". */
static int get_owner(uint32_t *owner, const char *arg)
{
	if (matches(arg, "free"))
		*owner = DRACK_SECTION_FREE;
	else if (matches(arg, "meta"))
		*owner = DRACK_SECTION_META;
	else if (get_u32(owner, arg) || *owner >= DRACK_MAX_HOSTS)
		return -1;
	return 0;
}

static int section_show(int argc, char **argv)
{
	struct section_show s = { .owner = OWNER_ANY };
	bool have_pool = false, have_owner = false;
	uint32_t pool = 0;
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "id", .alias = "section", .get = get_u32, .u32 = &s.id,
		  .have = &s.have_id, .invalid = "invalid Section id" },
		{ .key = "owner", .get = get_owner, .u32 = &s.owner,
		  .have = &have_owner,
		  .invalid = "owner is a host id, \"free\" or \"meta\"" },
		{ .key = "free", .name = "owner", .flags = CTL_ARG_BARE,
		  .get = get_owner, .u32 = &s.owner, .have = &have_owner },
		{ .key = "class", .get = get_class, .u32 = &s.buf_class,
		  .have = &s.have_class, .invalid = "class is 2k or 64k" },
		{ 0 }
	};
	int ret = ctl_args(argc, argv, args, "section", usage);

	if (ret != CTL_MORE)
		return ret;
	return ctl_show_pools(have_pool, pool, section_list, &s);
}

static int section_grant(int argc, char **argv)
{
	uint32_t pool = 0, host = 0, sec = 0, buf_class = 0;
	bool have_pool = false, have_host = false, have_sec = false;
	bool have_class = false;
	char extack[DRACK_ERRMSG_MAX];
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "host", .get = get_u32, .u32 = &host,
		  .have = &have_host, .flags = CTL_ARG_REQUIRED,
		  .invalid = "invalid host id" },
		{ .key = "section", .alias = "id", .get = get_u32, .u32 = &sec,
		  .have = &have_sec, .flags = CTL_ARG_REQUIRED,
		  .invalid = "invalid Section id" },
		{ .key = "class", .get = get_class, .u32 = &buf_class,
		  .have = &have_class, .flags = CTL_ARG_REQUIRED,
		  .invalid = "class is 2k or 64k" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "section", usage);
	if (err != CTL_MORE)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_section_grant(ctl_nl(), pool, host, sec, buf_class,
				  extack, sizeof(extack));
	return err ? ctl_fm_err(err, extack, pool) : CTL_OK;
}

static int section_revoke(int argc, char **argv)
{
	uint32_t pool = 0, sec = 0;
	bool have_pool = false, have_sec = false;
	char extack[DRACK_ERRMSG_MAX];
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "id", .alias = "section", .get = get_u32, .u32 = &sec,
		  .have = &have_sec,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_REQUIRED,
		  .invalid = "invalid Section id" },
		{ 0 }
	};
	int err;

	err = ctl_args(argc, argv, args, "section", usage);
	if (err != CTL_MORE)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_section_revoke(ctl_nl(), pool, sec, extack,
				   sizeof(extack));
	return err ? ctl_fm_err(err, extack, pool) : CTL_OK;
}

int do_section(int argc, char **argv)
{
	if (argc < 1)
		return section_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return section_show(argc - 1, argv + 1);
	if (matches(*argv, "grant"))
		return section_grant(argc - 1, argv + 1);
	if (!strcmp(*argv, "revoke"))
		return section_revoke(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("section", *argv);
}
