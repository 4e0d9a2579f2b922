/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drack-fmd's daemon state: the kernel connection and the pools it
 * serves (fmd-session.c), driven by the main loop (drack-fmd.c).
 */
#ifndef _FMD_DAEMON_H
#define _FMD_DAEMON_H

#include "fmd.h"

#define FMD_RETRY_MS	1000	/* waiting for the drack family */

struct fmd {
	struct drack_nl *nl;
	struct drack_events *ev;
	struct fmd_pool *pools;
	size_t npools;
	bool waiting_logged;
	bool started;		/* the first pool dump was handled */
	bool fatal;		/* nothing to manage at start: exit 1 */
	bool check_pools;	/* say which configured pools do not exist */
	bool reclaim_pending;	/* a fenced host waits to be reclaimed */
	uint64_t next_poll;
	uint64_t next_reclaim;	/* 0: not scheduled */
	uint64_t next_nic_load;	/* 0: not scheduled */
	/* the configuration's sources, for SIGHUP */
	const char *conf_path;
	bool conf_must_exist;
	char **overrides;
	size_t noverrides;
};

struct fmd_pool_dump {
	struct drack_pool_info *pi;
	size_t n;
};

struct fmd_pool *fmd_pool_lookup(struct fmd *f, uint32_t id, bool create);
void fmd_disconnect(struct fmd *f);
/* Connect to drack.ko's family; false (and logged once) while absent. */
bool fmd_connect(struct fmd *f);
int fmd_pool_dump(struct drack_nl *nl, struct fmd_pool_dump *d);
/* Periodic: the family, the pools, host health, NIC assignment. */
void fmd_poll(struct fmd *f);

#endif /* _FMD_DAEMON_H */
