// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Find the drack family in a dump of the generic netlink controller.
 * A by-name CTRL_CMD_GETFAMILY (libnl's genl_ctrl_resolve) makes the
 * kernel request_module() the family when it is missing: a daemon
 * checking every second would then spawn modprobe every second, and
 * reload drack.ko right after an rmmod. The dump never does that.
 */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>
#include "internal.h"

struct dl_ctrl_find {
	int family;
	int group;
};

static struct nla_policy dl_ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID]		= { .type = NLA_U16 },
	[CTRL_ATTR_FAMILY_NAME]		= { .type = NLA_STRING },
	[CTRL_ATTR_MCAST_GROUPS]	= { .type = NLA_NESTED },
};

static struct nla_policy dl_grp_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
	[CTRL_ATTR_MCAST_GRP_NAME]	= { .type = NLA_STRING },
	[CTRL_ATTR_MCAST_GRP_ID]	= { .type = NLA_U32 },
};

/* nla_strcmp-alike that does not trust termination */
static int dl_nla_is(const struct nlattr *nla, const char *s)
{
	size_t n = strlen(s);

	return nla && (size_t)nla_len(nla) >= n &&
	       !memcmp(nla_data(nla), s, n) &&
	       ((size_t)nla_len(nla) == n ||
		((const char *)nla_data(nla))[n] == '\0');
}

static int dl_ctrl_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *grp;
	struct dl_ctrl_find *f = arg;
	int rem;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, dl_ctrl_policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID] ||
	    !dl_nla_is(tb[CTRL_ATTR_FAMILY_NAME], DRACK_GENL_NAME))
		return 0;
	f->family = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	nla_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS], rem) {
		struct nlattr *gtb[CTRL_ATTR_MCAST_GRP_MAX + 1];

		if (nla_parse_nested(gtb, CTRL_ATTR_MCAST_GRP_MAX, grp,
				     dl_grp_policy) < 0)
			continue;
		if (gtb[CTRL_ATTR_MCAST_GRP_ID] &&
		    dl_nla_is(gtb[CTRL_ATTR_MCAST_GRP_NAME],
			      DRACK_GENL_MCGRP_EVENTS))
			f->group = (int)nla_get_u32(gtb[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return 0;
}

int dl_family(struct nl_sock *sk, int *group)
{
	struct dl_ctrl_find f = { .family = -1, .group = -1 };
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
			 NLM_F_DUMP, CTRL_CMD_GETFAMILY, 1)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = dl_txn(sk, msg, dl_ctrl_parse, &f, NULL, 0);
	if (err)
		return err < 0 ? err : -EIO;
	if (f.family < 0)
		return -ENOENT;
	if (group) {
		if (f.group < 0)
			return -ENOENT;
		*group = f.group;
	}
	return f.family;
}
