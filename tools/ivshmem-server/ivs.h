/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drack-ivshmem-server: the doorbell server of QEMU's ivshmem-doorbell
 * device (QEMU's docs/specs/ivshmem-spec.rst, "server protocol").
 */
#ifndef DRACK_IVS_H
#define DRACK_IVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IVS_PROTOCOL_VERSION	0
#define IVS_MAX_PEERS		65536	/* ids 0..65535 (QEMU: IVSHMEM_MAX_PEERS) */
#define IVS_MAX_VECTORS		64	/* as QEMU's ivshmem-server */
#define IVS_SEND_TIMEOUT_MS	1000	/* a client this slow to read is dropped */
#define IVS_SNDBUF		(1 << 20)
#define IVS_ACCEPT_PAUSE_MS	1000	/* out of fds: stop accepting for a while */

enum ivs_level { IVS_ERR, IVS_WARN, IVS_INFO, IVS_DEBUG };

extern enum ivs_level ivs_log_level;
void ivs_log_syslog(void);
void ivs_log(enum ivs_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define ivs_err(...)	ivs_log(IVS_ERR, __VA_ARGS__)
#define ivs_warn(...)	ivs_log(IVS_WARN, __VA_ARGS__)
#define ivs_info(...)	ivs_log(IVS_INFO, __VA_ARGS__)
#define ivs_dbg(...)	ivs_log(IVS_DEBUG, __VA_ARGS__)

struct ivs_peer {
	int sock;
	unsigned int id;
	uint64_t seq;		/* connection number */
	bool dead;		/* to be reaped: its socket failed or closed */
	bool announced;		/* the other peers were sent its eventfds */
	int efd[];		/* one eventfd per vector */
};

struct ivs_server {
	int shm_fd;
	unsigned int nvectors;
	struct ivs_peer **peers;	/* in connection order */
	size_t npeers;
	uint64_t seq;			/* connections so far */
	uint64_t *gone;			/* [id]: seq when its departure was told */
	uint64_t id_used[IVS_MAX_PEERS / 64];
};

void ivs_peer_accept(struct ivs_server *s, int sock);
void ivs_peer_drop(struct ivs_peer *p, const char *why);
void ivs_reap(struct ivs_server *s);
void ivs_release(struct ivs_server *s);
int ivs_serve(struct ivs_server *s, int lfd, int sfd);

#endif /* DRACK_IVS_H */
