// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fabric manager's commands besides the grant (section.c): register
 * as a pool's FM, refuse a request, revoke a Section, fence and reclaim a
 * host, format a pool. The kernel ties the registration to the netlink
 * socket of the handle, so the FM must use the handle it registered with
 * for all of them; closing the handle ends the registration.
 */
#include <errno.h>
#include <string.h>
#include "internal.h"

/*
 * One request with a pool id and up to two more u32 attributes (type 0:
 * none), acknowledged or refused with the kernel's message in @errbuf.
 */
static int dl_fm_cmd(struct drack_nl *nl, uint8_t cmd, uint32_t pool,
		     int type1, uint32_t val1, int type2, uint32_t val2,
		     char *errbuf, size_t errlen)
{
	struct nl_msg *msg = dl_msg(nl, cmd, 0);

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, DRACK_A_POOL_ID, pool) < 0 ||
	    (type1 && nla_put_u32(msg, type1, val1) < 0) ||
	    (type2 && nla_put_u32(msg, type2, val2) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, NULL, NULL, errbuf, errlen);
}

int drack_fm_register(struct drack_nl *nl, uint32_t pool, char *errbuf,
		      size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_FM_REGISTER, pool, 0, 0, 0, 0,
			 errbuf, errlen);
}

int drack_fm_unregister(struct drack_nl *nl, uint32_t pool, char *errbuf,
			size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_FM_UNREGISTER, pool, 0, 0, 0, 0,
			 errbuf, errlen);
}

int drack_section_refuse(struct drack_nl *nl, uint32_t pool, uint32_t host,
			 uint32_t why, char *errbuf, size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_SECTION_REFUSE, pool, DRACK_A_HOST_ID,
			 host, DRACK_A_REFUSAL, why, errbuf, errlen);
}

int drack_section_revoke(struct drack_nl *nl, uint32_t pool,
			 uint32_t section, char *errbuf, size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_SECTION_REVOKE, pool,
			 DRACK_A_SECTION_ID, section, 0, 0, errbuf, errlen);
}

int drack_host_fence(struct drack_nl *nl, uint32_t pool, uint32_t host,
		     char *errbuf, size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_HOST_FENCE, pool,
			 DRACK_A_HOST_ID, host, 0, 0, errbuf, errlen);
}

int drack_host_reclaim(struct drack_nl *nl, uint32_t pool, uint32_t host,
		       char *errbuf, size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_HOST_RECLAIM, pool,
			 DRACK_A_HOST_ID, host, 0, 0, errbuf, errlen);
}

/*
 * 0 for @max_hosts or @regions leaves the attribute out: the pool keeps
 * its current value.
 */
int drack_pool_format(struct drack_nl *nl, uint32_t pool, uint32_t max_hosts,
		      uint32_t regions, char *errbuf, size_t errlen)
{
	return dl_fm_cmd(nl, DRACK_CMD_POOL_FORMAT, pool,
			 max_hosts ? DRACK_A_POOL_MAX_HOSTS : 0, max_hosts,
			 regions ? DRACK_A_POOL_REGIONS : 0, regions,
			 errbuf, errlen);
}
