// SPDX-License-Identifier: LGPL-2.1-or-later
/* DRACK_CMD_SECTION_GET and the fabric manager's DRACK_CMD_SECTION_GRANT. */
#include <errno.h>
#include <string.h>
#include "internal.h"

struct dl_section_walk {
	uint32_t pool;
	drack_section_cb cb;
	void *arg;
};

static int dl_section_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *pt[DRACK_A_POOL_MAX + 1];
	struct nlattr *tb[DRACK_A_SECTION_MAX + 1];
	struct dl_section_walk *w = arg;
	struct drack_section_info s;

	if (dl_attrs(nlh, top) || dl_nest(top, DRACK_A_POOL, pt) ||
	    dl_nest(top, DRACK_A_SECTION, tb))
		return -EPROTO;
	memset(&s, 0, sizeof(s));
	s.pool = pt[DRACK_A_POOL_ID] ? dl_u32(pt, DRACK_A_POOL_ID) : w->pool;
	s.id = dl_u32(tb, DRACK_A_SECTION_ID);
	s.owner = dl_u32(tb, DRACK_A_SECTION_OWNER);
	s.buf_class = dl_u32(tb, DRACK_A_SECTION_CLASS);
	s.generation = dl_u32(tb, DRACK_A_SECTION_GENERATION);
	s.region = dl_u32(tb, DRACK_A_SECTION_REGION);
	s.flags = dl_u32(tb, DRACK_A_SECTION_FLAGS);
	s.page_order = tb[DRACK_A_SECTION_PAGE_ORDER] ?
		       (int)dl_u32(tb, DRACK_A_SECTION_PAGE_ORDER) : -1;
	return w->cb(&s, w->arg);
}

int drack_section_list(struct drack_nl *nl, uint32_t pool,
		       drack_section_cb cb, void *arg)
{
	struct dl_section_walk w = { .pool = pool, .cb = cb, .arg = arg };
	struct nl_msg *msg = dl_msg(nl, DRACK_CMD_SECTION_GET, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, dl_section_parse, &w, NULL, 0);
}

int drack_section_grant(struct drack_nl *nl, uint32_t pool, uint32_t host,
			uint32_t section, uint32_t buf_class, char *errbuf,
			size_t errlen)
{
	struct nl_msg *msg = dl_msg(nl, DRACK_CMD_SECTION_GRANT, 0);
	struct nlattr *nest;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0 ||
	    dl_put_id(msg, DRACK_A_HOST, DRACK_A_HOST_ID, host) < 0 ||
	    !(nest = nla_nest_start(msg, DRACK_A_SECTION | NLA_F_NESTED)) ||
	    nla_put_u32(msg, DRACK_A_SECTION_ID, section) < 0 ||
	    nla_put_u32(msg, DRACK_A_SECTION_CLASS, buf_class) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nla_nest_end(msg, nest);
	return dl_txn(nl->sk, msg, NULL, NULL, errbuf, errlen);
}
