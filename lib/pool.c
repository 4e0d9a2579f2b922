// SPDX-License-Identifier: LGPL-2.1-or-later
/* DRACK_CMD_POOL_GET: one pool or all of them. */
#include <errno.h>
#include <string.h>
#include "internal.h"

/* The pool nest of a reply: 0 or -EPROTO. */
static int dl_pool_info(struct nlattr **top, struct drack_pool_info *p)
{
	struct nlattr *tb[DRACK_A_POOL_MAX + 1];

	memset(p, 0, sizeof(*p));
	if (dl_nest(top, DRACK_A_POOL, tb))
		return -EPROTO;
	p->id = dl_u32(tb, DRACK_A_POOL_ID);
	dl_string(tb, DRACK_A_POOL_BACKEND, p->backend, sizeof(p->backend));
	p->size = dl_u64(tb, DRACK_A_POOL_SIZE);
	p->section_size = dl_u32(tb, DRACK_A_POOL_SECTION_SIZE);
	p->section_count = dl_u32(tb, DRACK_A_POOL_SECTION_COUNT);
	p->meta_sections = dl_u32(tb, DRACK_A_POOL_META_SECTIONS);
	p->free_sections = dl_u32(tb, DRACK_A_POOL_FREE_SECTIONS);
	p->max_hosts = dl_u32(tb, DRACK_A_POOL_MAX_HOSTS);
	p->regions = dl_u32(tb, DRACK_A_POOL_REGIONS);
	p->fm_pid = dl_u32(tb, DRACK_A_POOL_FM_PID);
	p->fm_epoch = dl_u64(tb, DRACK_A_POOL_FM_EPOCH);
	p->max_nics = dl_u32(tb, DRACK_A_POOL_MAX_NICS);
	return 0;
}

struct dl_pool_walk {
	drack_pool_cb cb;
	void *arg;
};

static int dl_pool_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[DRACK_A_MAX + 1];
	struct dl_pool_walk *w = arg;
	struct drack_pool_info p;

	if (dl_attrs(nlh, tb) || dl_pool_info(tb, &p))
		return -EPROTO;
	return w->cb(&p, w->arg);
}

int drack_pool_list(struct drack_nl *nl, drack_pool_cb cb, void *arg)
{
	struct dl_pool_walk w = { .cb = cb, .arg = arg };

	return dl_txn(nl->sk, dl_msg(nl, DRACK_CMD_POOL_GET, NLM_F_DUMP),
		      dl_pool_parse, &w, NULL, 0);
}

static int dl_pool_get_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[DRACK_A_MAX + 1];

	if (dl_attrs(nlh, tb) || dl_pool_info(tb, arg))
		return -EPROTO;
	return 0;
}

int drack_pool_get(struct drack_nl *nl, uint32_t pool,
		   struct drack_pool_info *info)
{
	struct nl_msg *msg = dl_msg(nl, DRACK_CMD_POOL_GET, 0);

	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	memset(info, 0, sizeof(*info));
	return dl_txn(nl->sk, msg, dl_pool_get_parse, info, NULL, 0);
}
