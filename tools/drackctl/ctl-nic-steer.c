// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic steer: which NIC carries a host's vNIC, by hand, as the
 * fabric manager's scheduling policy does (DRACK_CMD_NIC_STEER). While
 * drack-fmd serves the pool only it may steer; this is for a rack run
 * without one and for tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl nic steer [ pool POOL ] [ id ] NIC host HOST via { NIC2 | home }\n"
		"Carry host HOST's vNIC of NIC through NIC2 while NIC2 is usable (its own\n"
		"NIC again if it is not, or with \"home\"). POOL defaults to 0.\n");
}

static int get_via(uint32_t *val, const char *arg)
{
	if (!strcmp(arg, "home")) {
		*val = UINT32_MAX;
		return 0;
	}
	return get_nic_id(val, arg);
}

int do_nic_steer(int argc, char **argv)
{
	uint32_t pool = 0, nic = 0, host = 0, via = UINT32_MAX;
	bool have_pool = false, have_nic = false, have_host = false;
	bool have_via = false;
	char extack[DRACK_ERRMSG_MAX];
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &pool,
		  .have = &have_pool, .invalid = "invalid pool id" },
		{ .key = "host", .get = get_host_id, .u32 = &host,
		  .have = &have_host, .flags = CTL_ARG_REQUIRED,
		  .invalid = "host id is 0 to 63" },
		{ .key = "via", .get = get_via, .u32 = &via, .have = &have_via,
		  .flags = CTL_ARG_REQUIRED,
		  .invalid = "via is a NIC id (0 to 15) or \"home\"" },
		{ .key = "id", .alias = "nic", .name = "id", .get = get_nic_id,
		  .u32 = &nic, .have = &have_nic,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_REQUIRED,
		  .invalid = "NIC id is 0 to 15" },
		{ 0 }
	};
	int err;

	if (argc == 1 && matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	err = ctl_args(argc, argv, args, "nic steer", usage);
	if (err != CTL_MORE)
		return err;
	if (!ctl_nl())
		return CTL_EKERNEL;
	err = drack_nic_steer(ctl_nl(), pool, nic, host,
			      via == UINT32_MAX ? -1 : (int)via, extack,
			      sizeof(extack));
	if (err == -EOPNOTSUPP && !extack[0])
		return ctl_nic_err(err, extack, "steer");
	return err ? ctl_fm_err(err, extack, pool) : CTL_OK;
}
