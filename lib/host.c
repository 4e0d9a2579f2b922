// SPDX-License-Identifier: LGPL-2.1-or-later
/* DRACK_CMD_HOST_GET: the used slots of one pool's host table. */
#include <errno.h>
#include <string.h>
#include "internal.h"

struct dl_host_walk {
	uint32_t pool;
	drack_host_cb cb;
	void *arg;
};

static int dl_host_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *pt[DRACK_A_POOL_MAX + 1];
	struct nlattr *tb[DRACK_A_HOST_MAX + 1];
	struct dl_host_walk *w = arg;
	struct drack_host_info h;

	if (dl_attrs(nlh, top) || dl_nest(top, DRACK_A_POOL, pt) ||
	    dl_nest(top, DRACK_A_HOST, tb))
		return -EPROTO;
	memset(&h, 0, sizeof(h));
	h.pool = pt[DRACK_A_POOL_ID] ? dl_u32(pt, DRACK_A_POOL_ID) : w->pool;
	h.id = dl_u32(tb, DRACK_A_HOST_ID);
	h.state = dl_u32(tb, DRACK_A_HOST_STATE);
	h.flags = dl_u32(tb, DRACK_A_HOST_FLAGS);
	if (tb[DRACK_A_HOST_MAC])
		memcpy(h.mac, nla_data(tb[DRACK_A_HOST_MAC]), sizeof(h.mac));
	h.heartbeat = dl_u64(tb, DRACK_A_HOST_HEARTBEAT);
	h.sections = dl_u32(tb, DRACK_A_HOST_SECTIONS);
	h.ifindex = dl_u32(tb, DRACK_A_HOST_IFINDEX);
	h.generation = dl_u32(tb, DRACK_A_HOST_GENERATION);
	h.buffers_free[DRACK_CLASS_2K] = dl_u32(tb, DRACK_A_HOST_FREE_2K);
	h.buffers_free[DRACK_CLASS_64K] = dl_u32(tb, DRACK_A_HOST_FREE_64K);
	h.wanted[DRACK_CLASS_2K] = dl_u32(tb, DRACK_A_HOST_WANTED_2K);
	h.wanted[DRACK_CLASS_64K] = dl_u32(tb, DRACK_A_HOST_WANTED_64K);
	h.released = dl_u64(tb, DRACK_A_HOST_RELEASED);
	return w->cb(&h, w->arg);
}

int drack_host_list(struct drack_nl *nl, uint32_t pool, drack_host_cb cb,
		    void *arg)
{
	struct dl_host_walk w = { .pool = pool, .cb = cb, .arg = arg };
	struct nl_msg *msg = dl_msg(nl, DRACK_CMD_HOST_GET, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, dl_host_parse, &w, NULL, 0);
}
