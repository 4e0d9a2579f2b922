/* SPDX-License-Identifier: GPL-2.0-only */
/* drack-fmd internals: logging, pool snapshots, the grant policy. */
#ifndef _DRACK_FMD_H
#define _DRACK_FMD_H

#include <stdbool.h>
#include <stdint.h>
#include <drack/drack.h>
#include "uapi/drack.h"

#define FMD_VERSION	"0.1"
#define FMD_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- fmd-log.c ---- */
enum fmd_level { FMD_ERR, FMD_WARN, FMD_INFO, FMD_DEBUG };

extern bool fmd_verbose;

void fmd_log_syslog(void);	/* after daemonizing */
void fmd_log(enum fmd_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define fmd_err(...)	fmd_log(FMD_ERR, __VA_ARGS__)
#define fmd_warn(...)	fmd_log(FMD_WARN, __VA_ARGS__)
#define fmd_info(...)	fmd_log(FMD_INFO, __VA_ARGS__)
/* only with -v */
#define fmd_dbg(...)	fmd_log(FMD_DEBUG, __VA_ARGS__)

uint64_t fmd_now_ms(void);	/* CLOCK_MONOTONIC */

/* ---- fmd-view.c: one consistent-enough snapshot of a pool ---- */
struct fmd_view {
	struct drack_pool_info pool;
	struct drack_host_info host[DRACK_MAX_HOSTS];
	bool present[DRACK_MAX_HOSTS];		/* slot in use */
	uint32_t owned[DRACK_MAX_HOSTS];	/* from the Section table */
	uint32_t up_hosts;
	uint32_t *free;				/* free data Sections, ascending */
	uint32_t nfree;
};

int fmd_view_load(struct drack_nl *nl, uint32_t pool, struct fmd_view *v);
void fmd_view_free(struct fmd_view *v);

/* ---- fmd-policy.c ---- */
#define FMD_REFUSAL_LOG_MS	60000	/* one refusal line per host per minute */
#define FMD_SETTLE_MS		300	/* a request this soon after a grant is stale */

/* What the daemon remembers about a host between decisions. */
struct fmd_host_mem {
	uint64_t last_refusal_log;
	uint64_t last_grant[DRACK_NR_CLASSES];
	uint32_t state;
};

struct fmd_pool {
	uint32_t id;
	bool seen;				/* in the latest pool dump */
	uint64_t last_exhausted_log;
	struct fmd_host_mem host[DRACK_MAX_HOSTS];
};

extern uint32_t fmd_quota;		/* 0: automatic */

uint32_t fmd_host_quota(const struct fmd_view *v);
/*
 * Placement: choose up to @want of @v's free Sections for @host, @cls.
 * Returns how many ids went to @out.
 */
uint32_t fmd_place(const struct fmd_view *v, uint32_t host, uint32_t cls,
		   uint32_t want, uint32_t *out);
/* A SECTION_REQUEST (event): grant within quota. */
void fmd_handle_request(struct drack_nl *nl, struct fmd_pool *fp,
			uint32_t host, uint32_t cls, uint32_t count);

#endif /* _DRACK_FMD_H */
