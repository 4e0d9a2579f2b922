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
 * One request with pool { id [, max-hosts, regions] } (0: left out) and up
 * to one more u32 @type (0: none) in nest @nest (0: at the top level),
 * plus the u32 @type2 (0: none) at the top level; acknowledged or refused
 * with the kernel's message in @errbuf.
 */
struct dl_fm_req {
	uint8_t cmd;
	uint32_t pool, max_hosts, regions;
	int nest, type;
	uint32_t val;
	int type2;
	uint32_t val2;
};

static int dl_fm_put(struct nl_msg *msg, const struct dl_fm_req *r)
{
	struct nlattr *nest = nla_nest_start(msg, DRACK_A_POOL | NLA_F_NESTED);

	if (!nest || nla_put_u32(msg, DRACK_A_POOL_ID, r->pool) < 0 ||
	    (r->max_hosts &&
	     nla_put_u32(msg, DRACK_A_POOL_MAX_HOSTS, r->max_hosts) < 0) ||
	    (r->regions &&
	     nla_put_u32(msg, DRACK_A_POOL_REGIONS, r->regions) < 0))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	if (r->type && r->nest &&
	    dl_put_id(msg, r->nest, r->type, r->val) < 0)
		return -ENOMEM;
	if (r->type2 && nla_put_u32(msg, r->type2, r->val2) < 0)
		return -ENOMEM;
	return 0;
}

static int dl_fm_cmd(struct drack_nl *nl, const struct dl_fm_req *r,
		     char *errbuf, size_t errlen)
{
	struct nl_msg *msg = dl_msg(nl, r->cmd, 0);

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (dl_fm_put(msg, r) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, NULL, NULL, errbuf, errlen);
}

int drack_fm_register(struct drack_nl *nl, uint32_t pool, char *errbuf,
		      size_t errlen)
{
	const struct dl_fm_req r = {
		.cmd = DRACK_CMD_FM_REGISTER, .pool = pool,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}

int drack_fm_unregister(struct drack_nl *nl, uint32_t pool, char *errbuf,
			size_t errlen)
{
	const struct dl_fm_req r = {
		.cmd = DRACK_CMD_FM_UNREGISTER, .pool = pool,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}

int drack_section_refuse(struct drack_nl *nl, uint32_t pool, uint32_t host,
			 uint32_t why, char *errbuf, size_t errlen)
{
	const struct dl_fm_req r = {
		DRACK_CMD_SECTION_REFUSE, pool, 0, 0,
		DRACK_A_HOST, DRACK_A_HOST_ID, host, DRACK_A_REFUSAL, why,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}

int drack_section_revoke(struct drack_nl *nl, uint32_t pool,
			 uint32_t section, char *errbuf, size_t errlen)
{
	const struct dl_fm_req r = {
		DRACK_CMD_SECTION_REVOKE, pool, 0, 0,
		DRACK_A_SECTION, DRACK_A_SECTION_ID, section, 0, 0,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}

int drack_host_fence(struct drack_nl *nl, uint32_t pool, uint32_t host,
		     char *errbuf, size_t errlen)
{
	const struct dl_fm_req r = {
		DRACK_CMD_HOST_FENCE, pool, 0, 0,
		DRACK_A_HOST, DRACK_A_HOST_ID, host, 0, 0,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}

int drack_host_reclaim(struct drack_nl *nl, uint32_t pool, uint32_t host,
		       char *errbuf, size_t errlen)
{
	const struct dl_fm_req r = {
		DRACK_CMD_HOST_RECLAIM, pool, 0, 0,
		DRACK_A_HOST, DRACK_A_HOST_ID, host, 0, 0,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}

/*
 * 0 for @max_hosts or @regions leaves the attribute out: the pool keeps
 * its current value.
 */
int drack_pool_format(struct drack_nl *nl, uint32_t pool, uint32_t max_hosts,
		      uint32_t regions, char *errbuf, size_t errlen)
{
	const struct dl_fm_req r = {
		.cmd = DRACK_CMD_POOL_FORMAT, .pool = pool,
		.max_hosts = max_hosts, .regions = regions,
	};

	return dl_fm_cmd(nl, &r, errbuf, errlen);
}
