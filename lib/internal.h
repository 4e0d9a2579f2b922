/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdrack internals: one request socket, transactions, attribute parsing. */
#ifndef _LIBDRACK_INTERNAL_H
#define _LIBDRACK_INTERNAL_H

#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include "uapi/drack.h"
#include "drack/drack.h"

struct drack_nl {
	struct nl_sock *sk;
	int family;
};

/* Called for every reply message; non-zero stops the user's walk. */
typedef int (*dl_parse_fn)(struct nlmsghdr *nlh, void *arg);

/*
 * policy_gen.c, generated from the family's spec (tools/ynl/regen.sh):
 * the top level's policy, and per nest of it the policy of its set.
 */
struct dl_nest {
	struct nla_policy *policy;
	int maxtype;
};
extern struct nla_policy dl_policy[DRACK_A_MAX + 1];
extern const struct dl_nest dl_nests[DRACK_A_MAX + 1];
extern const char *const dl_stat_names[DRACK_STAT_MAX + 1];

/* A connected generic netlink socket with extended ACKs, or NULL, errno. */
struct nl_sock *dl_socket(void);
/*
 * The id of the drack family and, if @group is not NULL, of its events
 * group, from a dump of the controller: unlike a by-name lookup, this
 * never makes the kernel try to load drack.ko. -ENOENT if absent.
 */
int dl_family(struct nl_sock *sk, int *group);

struct nl_msg *dl_msg(struct drack_nl *nl, uint8_t cmd, int flags);
/* Parse a drack message's attributes with dl_policy: 0 or -EPROTO. */
int dl_attrs(struct nlmsghdr *nlh, struct nlattr **tb);
/*
 * Parse nest @type of @tb (DRACK_A_HOST ...) with its set's policy into
 * @ntb, sized DRACK_A_HOST_MAX + 1 ...: all NULL if the nest is absent.
 * 0 or -EPROTO.
 */
int dl_nest(struct nlattr **tb, int type, struct nlattr **ntb);
/* Put nest @type holding the one u32 @ntype = @val: 0 or -ENOMEM. */
int dl_put_id(struct nl_msg *msg, int type, int ntype, uint32_t val);
/*
 * Send @msg (consumed) and read replies up to the final ACK, error or
 * end of dump. Returns 0, the first non-zero value of @parse, or -errno;
 * the kernel's extack message goes to @errbuf when given.
 */
int dl_txn(struct nl_sock *sk, struct nl_msg *msg, dl_parse_fn parse,
	   void *arg, char *errbuf, size_t errlen);
int dl_errno(int nlerr);
/* Copy NLMSGERR_ATTR_MSG of the TLVs in [tlv, end) to @errbuf (nla_parse). */
void dl_extack(const void *tlv, const void *end, char *errbuf,
	       size_t errlen);

static inline uint32_t dl_u32(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u32(tb[type]) : 0;
}

static inline uint64_t dl_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

/*
 * Copy string attribute @type to @buf, always terminated, empty if
 * absent: NLA_STRING need not be terminated within its length.
 */
static inline void dl_string(struct nlattr **tb, int type, char *buf,
			     size_t len)
{
	size_t n = 0;

	if (!len)
		return;
	if (tb[type]) {
		n = strnlen(nla_data(tb[type]), (size_t)nla_len(tb[type]));
		if (n >= len)
			n = len - 1;
		memcpy(buf, nla_data(tb[type]), n);
	}
	buf[n] = '\0';
}

#endif /* _LIBDRACK_INTERNAL_H */
