// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The "events" multicast group. Read with plain recvmsg() so that an
 * overflowed socket is reported as -ENOBUFS, which libnl would turn into
 * -NLE_NOMEM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "internal.h"

#define DL_EVENTS_RCVBUF	(1 << 20)

struct drack_events {
	struct nl_sock *sk;
	int family;
	int group;
};

struct drack_events *drack_events_open(void)
{
	struct drack_events *ev;
	int err;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	ev->sk = dl_socket();
	if (!ev->sk) {
		err = -errno;
		goto err_free;
	}
	err = dl_family(ev->sk, &ev->group);
	if (err < 0)
		goto err_sock;
	ev->family = err;
	err = nl_socket_add_membership(ev->sk, ev->group);
	if (!err)
		err = nl_socket_set_nonblocking(ev->sk);
	if (err < 0) {
		err = dl_errno(err);
		goto err_sock;
	}
	/* Best effort: a bigger queue loses fewer events under bursts. */
	nl_socket_set_buffer_size(ev->sk, DL_EVENTS_RCVBUF, 0);
	return ev;

err_sock:
	nl_socket_free(ev->sk);
err_free:
	free(ev);
	errno = -err;
	return NULL;
}

void drack_events_close(struct drack_events *ev)
{
	if (!ev)
		return;
	nl_socket_free(ev->sk);
	free(ev);
}

int drack_events_fd(const struct drack_events *ev)
{
	return nl_socket_get_fd(ev->sk);
}

/* Returns 1 if @nlh was an event handed to @cb, else 0. */
static int dl_event_parse(struct drack_events *ev, struct nlmsghdr *nlh,
			  drack_event_cb cb, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *pt[DRACK_A_POOL_MAX + 1];
	struct nlattr *ht[DRACK_A_HOST_MAX + 1], *st[DRACK_A_SECTION_MAX + 1];
	struct nlattr *ct[DRACK_A_CLASS_MAX + 1], *nt[DRACK_A_NIC_MAX + 1];
	struct nlattr *rt[DRACK_A_PEER_MAX + 1], *vt[DRACK_A_VNIC_MAX + 1];
	struct genlmsghdr *gnlh;
	struct drack_event e;

	if (nlh->nlmsg_type != ev->family || !genlmsg_valid_hdr(nlh, 0))
		return 0;
	if (genlmsg_parse(nlh, 0, top, DRACK_A_MAX, dl_policy) < 0 ||
	    dl_nest(top, DRACK_A_POOL, pt) || dl_nest(top, DRACK_A_HOST, ht) ||
	    dl_nest(top, DRACK_A_SECTION, st) ||
	    dl_nest(top, DRACK_A_CLASS, ct) || dl_nest(top, DRACK_A_NIC, nt) ||
	    dl_nest(top, DRACK_A_PEER, rt) || dl_nest(top, DRACK_A_VNIC, vt))
		return 0;
	if (!pt[DRACK_A_POOL_ID])
		return 0;

	gnlh = nlmsg_data(nlh);
	memset(&e, 0, sizeof(e));
	switch (gnlh->cmd) {
	case DRACK_CMD_SECTION_REQUEST:
		e.type = DRACK_EVENT_SECTION_REQUEST;
		if (!ht[DRACK_A_HOST_ID])
			return 0;
		break;
	case DRACK_CMD_HOST_NOTIFY:
		e.type = DRACK_EVENT_HOST_NOTIFY;
		if (!ht[DRACK_A_HOST_ID])
			return 0;
		break;
	case DRACK_CMD_SECTION_NOTIFY:
		e.type = DRACK_EVENT_SECTION_NOTIFY;
		if (!st[DRACK_A_SECTION_ID] || !st[DRACK_A_SECTION_OWNER])
			return 0;
		break;
	case DRACK_CMD_NIC_NOTIFY:
		e.type = DRACK_EVENT_NIC_NOTIFY;
		if (!nt[DRACK_A_NIC_ID] || !nt[DRACK_A_NIC_STATE])
			return 0;
		break;
	case DRACK_CMD_NIC_STEER:
		e.type = DRACK_EVENT_NIC_STEER;
		if (!nt[DRACK_A_NIC_ID] || !ht[DRACK_A_HOST_ID])
			return 0;
		break;
	case DRACK_CMD_PEER_NOTIFY:
		e.type = DRACK_EVENT_PEER_NOTIFY;
		if (!ht[DRACK_A_HOST_ID] || !rt[DRACK_A_PEER_ID])
			return 0;
		break;
	default:
		return 0;
	}
	e.pool = dl_u32(pt, DRACK_A_POOL_ID);
	e.host = dl_u32(ht, DRACK_A_HOST_ID);
	/* the class wanted, or the class of the Section that moved */
	e.buf_class = ct[DRACK_A_CLASS_ID] ? dl_u32(ct, DRACK_A_CLASS_ID) :
					     dl_u32(st, DRACK_A_SECTION_CLASS);
	e.count = dl_u32(top, DRACK_A_COUNT);
	e.state = dl_u32(ht, DRACK_A_HOST_STATE);
	e.section = dl_u32(st, DRACK_A_SECTION_ID);
	e.owner = dl_u32(st, DRACK_A_SECTION_OWNER);
	if (e.type == DRACK_EVENT_NIC_STEER) {
		e.nic = dl_u32(nt, DRACK_A_NIC_ID);
		e.steer = vt[DRACK_A_VNIC_STEER] ?
			  (int32_t)dl_u32(vt, DRACK_A_VNIC_STEER) : -1;
	}
	if (e.type == DRACK_EVENT_NIC_NOTIFY) {
		e.nic = dl_u32(nt, DRACK_A_NIC_ID);
		e.state = dl_u32(nt, DRACK_A_NIC_STATE);
		e.owner = dl_u32(nt, DRACK_A_NIC_OWNER);
	}
	e.peer = dl_u32(rt, DRACK_A_PEER_ID);
	e.stalled = dl_u32(rt, DRACK_A_PEER_STALLED);
	cb(&e, arg);
	return 1;
}

int drack_events_read(struct drack_events *ev, drack_event_cb cb, void *arg)
{
	/* Events are small; a datagram larger than this is not ours. */
	union {
		char buf[8192];
		struct nlmsghdr align;
	} u;
	int fd = nl_socket_get_fd(ev->sk);
	int n = 0;

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { .iov_base = u.buf, .iov_len = sizeof(u) };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		struct nlmsghdr *nlh;
		ssize_t len;
		int rem;

		len = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return n;
			return -errno;
		}
		if (len == 0)
			return n;
		if ((mh.msg_flags & MSG_TRUNC) || from.nl_pid != 0)
			continue;	/* not a kernel event we know */

		rem = (int)len;
		for (nlh = &u.align; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem))
			n += dl_event_parse(ev, nlh, cb, arg);
	}
}
