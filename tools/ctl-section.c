// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl section: the Section tables of the pools (DRACK_CMD_SECTION_GET)
 * and the fabric manager's grant (DRACK_CMD_SECTION_GRANT), for admins and
 * tests; drack-fmd normally does the granting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "ctl.h"

#define OWNER_ANY	UINT32_MAX

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl section [ show [ pool POOL ] [ id SECTION ]\n"
		"                               [ owner { HOST | free | meta } ] [ class CLASS ] ]\n"
		"       drackctl section grant [ pool POOL ] host HOST section SECTION class CLASS\n"
		"       drackctl section help\n"
		"where  CLASS := { 2k | 64k }\n"
		"POOL defaults to every pool for show and to 0 for grant.\n");
}

struct section_show {
	bool have_id, have_class;
	uint32_t id, owner, buf_class;
};

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
	close_json_object();
	print_nl();
	return 0;
}

static int section_show(int argc, char **argv)
{
	struct section_show s = { .owner = OWNER_ANY };
	bool have_pool = false;
	uint32_t pool = 0, *ids = NULL;
	int i, n, err = 0, ret = CTL_OK;

	while (argc > 0) {
		if (matches(*argv, "pool")) {
			NEXT_ARG();
			if (have_pool)
				return duparg("pool", *argv);
			if (get_u32(&pool, *argv))
				return invarg("invalid pool id", *argv);
			have_pool = true;
		} else if (matches(*argv, "id") || matches(*argv, "section")) {
			NEXT_ARG();
			if (s.have_id)
				return duparg("id", *argv);
			if (get_u32(&s.id, *argv))
				return invarg("invalid Section id", *argv);
			s.have_id = true;
		} else if (matches(*argv, "owner")) {
			NEXT_ARG();
			if (s.owner != OWNER_ANY)
				return duparg("owner", *argv);
			if (matches(*argv, "free"))
				s.owner = DRACK_SECTION_FREE;
			else if (matches(*argv, "meta"))
				s.owner = DRACK_SECTION_META;
			else if (get_u32(&s.owner, *argv) ||
				 s.owner >= DRACK_MAX_HOSTS)
				return invarg("owner is a host id, \"free\" or \"meta\"",
					      *argv);
		} else if (matches(*argv, "free")) {
			if (s.owner != OWNER_ANY)
				return duparg("owner", *argv);
			s.owner = DRACK_SECTION_FREE;
		} else if (matches(*argv, "class")) {
			NEXT_ARG();
			if (s.have_class)
				return duparg("class", *argv);
			if (get_class(&s.buf_class, *argv))
				return invarg("class is 2k or 64k", *argv);
			s.have_class = true;
		} else if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		} else {
			return garbage("section", *argv);
		}
		argc--;
		argv++;
	}

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
		err = drack_section_list(ctl_nl(), ids[i], print_section, &s);
		if (err)
			ret = ctl_pool_err(err, ids[i]);
	}
	delete_json_obj();
	if (!have_pool)
		free(ids);
	return ret;
}

static int section_grant(int argc, char **argv)
{
	bool have_pool = false, have_host = false, have_sec = false;
	bool have_class = false;
	uint32_t pool = 0, host = 0, sec = 0, buf_class = 0;
	char extack[DRACK_ERRMSG_MAX];
	int err;

	while (argc > 0) {
		if (matches(*argv, "pool")) {
			NEXT_ARG();
			if (have_pool)
				return duparg("pool", *argv);
			if (get_u32(&pool, *argv))
				return invarg("invalid pool id", *argv);
			have_pool = true;
		} else if (matches(*argv, "host")) {
			NEXT_ARG();
			if (have_host)
				return duparg("host", *argv);
			if (get_u32(&host, *argv))
				return invarg("invalid host id", *argv);
			have_host = true;
		} else if (matches(*argv, "section") || matches(*argv, "id")) {
			NEXT_ARG();
			if (have_sec)
				return duparg("section", *argv);
			if (get_u32(&sec, *argv))
				return invarg("invalid Section id", *argv);
			have_sec = true;
		} else if (matches(*argv, "class")) {
			NEXT_ARG();
			if (have_class)
				return duparg("class", *argv);
			if (get_class(&buf_class, *argv))
				return invarg("class is 2k or 64k", *argv);
			have_class = true;
		} else if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		} else {
			return garbage("section", *argv);
		}
		argc--;
		argv++;
	}
	if (!have_host || !have_sec || !have_class) {
		fprintf(stderr, "Not enough information: \"%s\" argument is required.\n",
			!have_host ? "host" : !have_sec ? "section" : "class");
		return CTL_EUSAGE;
	}

	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_section_grant(ctl_nl(), pool, host, sec, buf_class,
				  extack, sizeof(extack));
	if (err == -ENOENT && !extack[0])
		return ctl_pool_err(err, pool);
	return err ? ctl_err(err, extack, NULL) : CTL_OK;
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
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("section", *argv);
}
