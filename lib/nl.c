// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The request socket: family resolution, and transactions that collect
 * the kernel's errno and extended ACK message. libnl 3.7 hands the
 * NLMSG_ERROR to our error callback but does not look at its TLVs (nor
 * has it a call to turn NETLINK_EXT_ACK on): this is the one place that
 * does, for libdrack's users (drackctl, drack-fmd) and its rtnetlink
 * requests (link.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int dl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0:			return 0;
	case NLE_NOMEM:		return -ENOMEM;
	case NLE_OBJ_NOTFOUND:	return -ENOENT;
	case NLE_PERM:		return -EPERM;
	case NLE_AGAIN:		return -EAGAIN;
	case NLE_INTR:		return -EINTR;
	case NLE_DUMP_INTR:	return -EINTR;
	case NLE_INVAL:		return -EINVAL;
	case NLE_RANGE:		return -ERANGE;
	case NLE_BUSY:		return -EBUSY;
	case NLE_EXIST:		return -EEXIST;
	case NLE_MSGSIZE:	return -EMSGSIZE;
	case NLE_OPNOTSUPP:	return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:	return -EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	case NLE_NOACCESS:	return -EACCES;
	default:		return -EIO;
	}
}

/* A connected netlink socket of @protocol with extended ACKs (link.c). */
struct nl_sock *dl_socket_proto(int protocol)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, err;

	if (!sk) {
		errno = ENOMEM;
		return NULL;
	}
	err = nl_connect(sk, protocol);
	if (err < 0) {
		nl_socket_free(sk);
		errno = -dl_errno(err);
		return NULL;
	}
	/* Best effort: old kernels just do not send the messages. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	return sk;
}

struct nl_sock *dl_socket(void)
{
	return dl_socket_proto(NETLINK_GENERIC);
}

struct drack_nl *drack_nl_open(void)
{
	struct drack_nl *nl;
	int err;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return NULL;
	nl->sk = dl_socket();
	if (!nl->sk) {
		err = -errno;
		goto err_free;
	}
	nl->family = dl_family(nl->sk, NULL);
	if (nl->family < 0) {
		err = nl->family;
		goto err_sock;
	}
	return nl;

err_sock:
	nl_socket_free(nl->sk);
err_free:
	free(nl);
	errno = -err;
	return NULL;
}

void drack_nl_close(struct drack_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

int drack_nl_check(struct drack_nl *nl)
{
	int id = dl_family(nl->sk, NULL);

	if (id < 0)
		return id;
	if (id == nl->family)
		return 0;
	nl->family = id;
	return 1;
}

int dl_attrs(struct nlmsghdr *nlh, struct nlattr **tb)
{
	if (genlmsg_parse(nlh, 0, tb, DRACK_A_MAX, dl_policy) < 0)
		return -EPROTO;
	return 0;
}

int dl_nest(struct nlattr **tb, int type, struct nlattr **ntb)
{
	const struct dl_nest *n = &dl_nests[type];

	if (!tb[type]) {
		memset(ntb, 0, (size_t)(n->maxtype + 1) * sizeof(*ntb));
		return 0;
	}
	if (nla_parse_nested(ntb, n->maxtype, tb[type], n->policy) < 0)
		return -EPROTO;
	return 0;
}

int dl_put_id(struct nl_msg *msg, int type, int ntype, uint32_t val)
{
	struct nlattr *nest = nla_nest_start(msg, type | NLA_F_NESTED);

	if (!nest || nla_put_u32(msg, ntype, val) < 0)
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

struct nl_msg *dl_msg(struct drack_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, DRACK_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

void dl_extack(const void *tlv, const void *end, char *errbuf,
	       size_t errlen)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (!errbuf || !errlen || (const char *)end <= (const char *)tlv)
		return;
	/* libnl's attribute parser; nla_strlcpy() copes without a NUL */
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)tlv,
		      (int)((const char *)end - (const char *)tlv), NULL) < 0 ||
	    !tb[NLMSGERR_ATTR_MSG])
		return;
	nla_strlcpy(errbuf, tb[NLMSGERR_ATTR_MSG], errlen);
}

struct dl_txn {
	uint32_t seq;
	int done;
	int err;		/* -errno from the kernel */
	int stop;		/* what the parser returned to stop the walk */
	dl_parse_fn parse;
	void *arg;
	char *errbuf;
	size_t errlen;
};

static int dl_seq_cb(struct nl_msg *msg, void *arg)
{
	struct dl_txn *t = arg;

	/* Leftovers of an earlier, interrupted transaction. */
	return nlmsg_hdr(msg)->nlmsg_seq == t->seq ? NL_OK : NL_SKIP;
}

static int dl_valid_cb(struct nl_msg *msg, void *arg)
{
	struct dl_txn *t = arg;

	if (t->stop || t->err || !t->parse)
		return NL_OK;	/* keep reading to the end of the reply */
	t->stop = t->parse(nlmsg_hdr(msg), t->arg);
	return NL_OK;
}

/* End of a dump: an int errno, then extack TLVs when flagged. */
static int dl_finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct dl_txn *t = arg;
	const char *data = nlmsg_data(nlh);
	int err;

	t->done = 1;
	if (nlmsg_datalen(nlh) < (int)sizeof(int))
		return NL_STOP;
	memcpy(&err, data, sizeof(err));
	if (err < 0 && !t->err) {
		t->err = err;
		if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
			dl_extack(data + NLMSG_ALIGN(sizeof(int)),
				  (const char *)nlh + nlh->nlmsg_len,
				  t->errbuf, t->errlen);
	}
	return NL_STOP;
}

static int dl_ack_cb(struct nl_msg *msg, void *arg)
{
	struct dl_txn *t = arg;

	(void)msg;
	t->done = 1;
	return NL_STOP;
}

static int dl_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh = (const void *)((char *)e - NLMSG_HDRLEN);
	struct dl_txn *t = arg;
	const char *tlv;

	(void)nla;
	if (nlh->nlmsg_seq != t->seq)
		return NL_SKIP;
	t->done = 1;
	t->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	tlv = (const char *)&e->msg;
	if (nlh->nlmsg_flags & NLM_F_CAPPED)
		tlv += sizeof(e->msg);
	else
		tlv += NLMSG_ALIGN(e->msg.nlmsg_len);
	dl_extack(tlv, (const char *)nlh + nlh->nlmsg_len, t->errbuf,
		  t->errlen);
	return NL_STOP;
}

int dl_txn(struct nl_sock *sk, struct nl_msg *msg, dl_parse_fn parse,
	   void *arg, char *errbuf, size_t errlen)
{
	struct dl_txn t = {
		.parse = parse, .arg = arg, .errbuf = errbuf, .errlen = errlen,
	};
	struct nl_cb *cb;
	int err;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!msg)
		return -ENOMEM;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = nl_send_auto(sk, msg);
	t.seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (err < 0) {
		err = dl_errno(err);
		goto out;
	}

	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, dl_seq_cb, &t);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, dl_valid_cb, &t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, dl_finish_cb, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, dl_ack_cb, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, dl_err_cb, &t);

	while (!t.done) {
		err = nl_recvmsgs(sk, cb);
		if (err < 0 && !t.done) {
			t.err = dl_errno(err);
			break;
		}
	}
	err = t.err ? t.err : t.stop;
out:
	nl_cb_put(cb);
	return err;
}
