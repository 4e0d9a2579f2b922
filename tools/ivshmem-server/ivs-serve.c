// SPDX-License-Identifier: GPL-2.0-only
/*
 * drack-ivshmem-server: peers, the messages they are sent, the event loop.
 * Every message is a little-endian int64, some with one fd (SCM_RIGHTS):
 *
 *   on connect, to the new peer:  0 (version), its id, -1 + the shm fd,
 *                                 then each other peer's id + one of its
 *                                 eventfds, once per vector;
 *   to every other peer:          the new id + one of the new eventfds,
 *                                 once per vector;
 *   to the new peer:              its own id + its eventfds, once per vector;
 *   when a peer leaves, to all:   its id, without an fd.
 *
 * Ids are the lowest free ones no connected peer saw leave (ivs_id_alloc()).
 * A peer that cannot take a message within IVS_SEND_TIMEOUT_MS, or whose
 * socket fails, is marked dead and reaped by ivs_reap() once the current
 * round of messages is out, so that nobody is ever told half a story.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include "ivs.h"

static uint64_t ivs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Wait until @sock can take more, for at most until @deadline. */
static int ivs_wait_writable(int sock, uint64_t deadline)
{
	struct pollfd pfd = { .fd = sock, .events = POLLOUT };
	uint64_t now;
	int n;

	for (;;) {
		now = ivs_now_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, (int)(deadline - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ETIMEDOUT;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return -EPIPE;
		return 0;
	}
}

static int ivs_sendmsg(int sock, int64_t val, int fd)
{
	uint64_t le = htole64((uint64_t)val);
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint64_t deadline = ivs_now_ms() + IVS_SEND_TIMEOUT_MS;
	struct cmsghdr *cmsg;
	size_t done = 0;
	ssize_t n;
	int err;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	while (done < sizeof(le)) {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			/* the fd went with the first byte */
			done += (size_t)n;
			iov.iov_base = (char *)&le + done;
			iov.iov_len = sizeof(le) - done;
			msg.msg_control = NULL;
			msg.msg_controllen = 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			err = ivs_wait_writable(sock, deadline);
			if (err)
				return err;
			continue;
		}
		return n < 0 ? -errno : -EIO;
	}
	return 0;
}

void ivs_peer_drop(struct ivs_peer *p, const char *why)
{
	if (p->dead)
		return;
	p->dead = true;
	ivs_info("peer %u %s", p->id, why);
}

/* Send to @p unless it is dead already; a failure marks it dead. */
static int ivs_send(struct ivs_peer *p, int64_t val, int fd)
{
	int err;

	if (p->dead)
		return -EPIPE;
	err = ivs_sendmsg(p->sock, val, fd);
	if (err) {
		ivs_peer_drop(p, err == -ETIMEDOUT ? "does not read its socket, dropped" :
			      err == -EPIPE ? "disconnected" : "cannot be written to, dropped");
		ivs_dbg("peer %u: send: %s", p->id, strerror(-err));
		return err;
	}
	ivs_dbg("peer %u <- %lld%s", p->id, (long long)val, fd >= 0 ? " + fd" : "");
	return 0;
}

/*
 * The lowest free id that no connected peer saw leave. QEMU's ivshmem
 * device frees a peer's eventfd array when told the peer left, but keeps
 * the pointer: if a new peer then comes with the same id, that QEMU writes
 * its eventfds into freed memory and soon dies of a corrupted heap (seen
 * with 7.2, still so upstream). So an id is given out again only once the
 * peers that were told of its departure are all gone themselves.
 */
static int ivs_id_alloc(struct ivs_server *s)
{
	uint64_t oldest = s->seq + 1;	/* the oldest connected peer's seq */
	unsigned int id;
	size_t i;

	for (i = 0; i < s->npeers; i++)
		if (s->peers[i]->seq < oldest)
			oldest = s->peers[i]->seq;
	for (id = 0; id < IVS_MAX_PEERS; id++) {
		if (s->id_used[id / 64] & (1ULL << (id % 64)) || s->gone[id] >= oldest)
			continue;
		s->id_used[id / 64] |= 1ULL << (id % 64);
		return (int)id;
	}
	return -1;
}

static void ivs_id_free(struct ivs_server *s, unsigned int id)
{
	s->id_used[id / 64] &= ~(1ULL << (id % 64));
}

static void ivs_peer_free(struct ivs_server *s, struct ivs_peer *p)
{
	unsigned int v;

	for (v = 0; v < s->nvectors; v++)
		if (p->efd[v] >= 0)
			close(p->efd[v]);
	if (p->sock >= 0)
		close(p->sock);
	ivs_id_free(s, p->id);
	free(p);
}

static struct ivs_peer *ivs_peer_new(struct ivs_server *s, int sock)
{
	struct ivs_peer **peers, *p;
	int id, sndbuf = IVS_SNDBUF;
	unsigned int v;

	id = ivs_id_alloc(s);
	if (id < 0) {
		ivs_warn("no peer id free (or only ids the peers saw leave), refusing a client");
		return NULL;
	}
	p = calloc(1, sizeof(*p) + s->nvectors * sizeof(p->efd[0]));
	peers = realloc(s->peers, (s->npeers + 1) * sizeof(*peers));
	if (!p || !peers) {
		ivs_err("out of memory, refusing a client");
		free(p);
		ivs_id_free(s, (unsigned int)id);
		return NULL;
	}
	s->peers = peers;
	p->sock = -1;
	p->id = (unsigned int)id;
	p->seq = ++s->seq;
	for (v = 0; v < s->nvectors; v++)
		p->efd[v] = -1;
	for (v = 0; v < s->nvectors; v++) {
		p->efd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (p->efd[v] < 0) {
			ivs_err("eventfd: %s, refusing a client", strerror(errno));
			ivs_peer_free(s, p);	/* the caller closes sock */
			return NULL;
		}
	}
	p->sock = sock;
	/* Room for a burst to a QEMU still busy starting; root may go beyond wmem_max. */
	if (setsockopt(sock, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	s->peers[s->npeers++] = p;
	return p;
}

/* A client connected on @sock (ours from now on): tell it and everybody. */
void ivs_peer_accept(struct ivs_server *s, int sock)
{
	struct ivs_peer *p, *q;
	unsigned int v;
	size_t i;

	p = ivs_peer_new(s, sock);
	if (!p) {
		close(sock);
		return;
	}
	if (ivs_send(p, IVS_PROTOCOL_VERSION, -1) || ivs_send(p, p->id, -1) ||
	    ivs_send(p, -1, s->shm_fd))
		return;
	for (i = 0; i < s->npeers; i++) {
		q = s->peers[i];
		if (q == p || q->dead)
			continue;
		for (v = 0; v < s->nvectors; v++)
			if (ivs_send(p, q->id, q->efd[v]))
				return;
	}
	/* From here on the others know p: its end must be told too. */
	p->announced = true;
	for (i = 0; i < s->npeers; i++) {
		q = s->peers[i];
		if (q == p)
			continue;
		for (v = 0; v < s->nvectors; v++)
			if (ivs_send(q, p->id, p->efd[v]))
				break;
	}
	for (v = 0; v < s->nvectors; v++)
		if (ivs_send(p, p->id, p->efd[v]))
			return;
	ivs_info("peer %u connected, %zu peer%s", p->id, s->npeers,
		 s->npeers == 1 ? "" : "s");
}

/* Forget dead peers; each one's departure may kill another recipient. */
void ivs_reap(struct ivs_server *s)
{
	struct ivs_peer *p;
	size_t i, j, told;

again:
	for (i = 0; i < s->npeers; i++) {
		p = s->peers[i];
		if (!p->dead)
			continue;
		memmove(&s->peers[i], &s->peers[i + 1],
			(s->npeers - i - 1) * sizeof(*s->peers));
		s->npeers--;
		told = 0;
		for (j = 0; p->announced && j < s->npeers; j++)
			if (!ivs_send(s->peers[j], p->id, -1))
				told++;
		if (told)
			s->gone[p->id] = s->seq;
		if (p->announced)
			ivs_info("peer %u gone, told %zu peer%s", p->id, told,
				 told == 1 ? "" : "s");
		ivs_peer_free(s, p);
		goto again;
	}
}

void ivs_release(struct ivs_server *s)
{
	while (s->npeers)
		ivs_peer_free(s, s->peers[--s->npeers]);
	free(s->peers);
	s->peers = NULL;
}

static void accept_one(struct ivs_server *s, int lfd, bool *paused)
{
	int sock;

	sock = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (sock >= 0) {
		ivs_peer_accept(s, sock);
		return;
	}
	switch (errno) {
	case EMFILE: case ENFILE: case ENOBUFS: case ENOMEM:
		ivs_warn("accept: %s, not accepting for %d ms", strerror(errno),
			 IVS_ACCEPT_PAUSE_MS);
		*paused = true;
		break;
	default: /* EAGAIN, EINTR, ECONNABORTED, ...: the client's problem */
		ivs_dbg("accept: %s", strerror(errno));
	}
}

/* A client never writes: readable means gone (or not an ivshmem client). */
static void peer_event(struct ivs_peer *p, short revents)
{
	char buf[64];
	ssize_t n;

	if (revents & (POLLERR | POLLHUP | POLLNVAL)) {
		ivs_peer_drop(p, "disconnected");
		return;
	}
	n = recv(p->sock, buf, sizeof(buf), MSG_DONTWAIT);
	if (n == 0)
		ivs_peer_drop(p, "disconnected");
	else if (n > 0)
		ivs_peer_drop(p, "sent data, not an ivshmem client: dropped");
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		ivs_peer_drop(p, "failed, dropped");
}

/* Until SIGTERM, SIGINT or SIGHUP on @sfd: 0, or 1 on a fatal error. */
int ivs_serve(struct ivs_server *s, int lfd, int sfd)
{
	struct pollfd *pfd = NULL, *tmp;
	struct signalfd_siginfo si;
	bool paused = false;
	size_t i, n;
	int ret;

	for (;;) {
		tmp = realloc(pfd, (s->npeers + 2) * sizeof(*pfd));
		if (!tmp) {
			ivs_err("out of memory");
			free(pfd);
			return 1;
		}
		pfd = tmp;
		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = paused ? -1 : lfd, .events = POLLIN };
		for (i = 0; i < s->npeers; i++)
			pfd[i + 2] = (struct pollfd){ .fd = s->peers[i]->sock, .events = POLLIN };
		n = s->npeers;
		ret = poll(pfd, n + 2, paused ? IVS_ACCEPT_PAUSE_MS : -1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			ivs_err("poll: %s", strerror(errno));
			free(pfd);
			return 1;
		}
		paused = false;
		if (pfd[0].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			ivs_info("%s, exiting", strsignal((int)si.ssi_signo));
			free(pfd);
			return 0;
		}
		for (i = 0; i < n; i++)
			if (pfd[i + 2].revents)
				peer_event(s->peers[i], pfd[i + 2].revents);
		ivs_reap(s);
		if (pfd[1].revents & POLLIN) {
			accept_one(s, lfd, &paused);
			ivs_reap(s);
		}
	}
}
