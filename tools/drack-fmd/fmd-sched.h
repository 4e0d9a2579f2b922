/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What drack-fmd's NIC scheduling policies share (fmd-sched.c, and the
 * matching policy in fmd-sched-match.c).
 */
#ifndef FMD_SCHED_H
#define FMD_SCHED_H

#include "fmd.h"

#define FMD_DEMAND_MIN	12500.0	/* bytes/s: 100 kbit/s makes a vNIC "sending" */

struct fmd_sched_in {
	const struct drack_nic_info *n;
	const bool *present;
	bool usable[DRACK_MAX_NICS];
	uint32_t order[DRACK_MAX_NICS];	/* usable NIC ids, ascending */
	uint32_t nusable;
};

/* Has host @h a vNIC of NIC @v that the policy may place? */
static inline bool fmd_sched_vnic(const struct fmd_pool *fp,
				  const struct fmd_sched_in *in,
				  uint32_t v, uint32_t h)
{
	return in->present[v] && (in->n[v].assigned & (1ULL << h)) &&
	       fp->host[h].state == DRACK_HOST_UP;
}

/* The NIC carrying @h's vNIC @v as far as steering goes. */
static inline uint32_t fmd_sched_carrier(const struct fmd_sched_mem *m,
					 uint32_t v, uint32_t h)
{
	return m->steer[v][h] >= 0 ? (uint32_t)m->steer[v][h] : v;
}

/* May @h's vNICs go through NIC @n: usable and assigned to @h? */
static inline bool fmd_sched_target(const struct fmd_sched_in *in,
				    uint32_t n, uint32_t h)
{
	return n < DRACK_MAX_NICS && in->usable[n] &&
	       (in->n[n].assigned & (1ULL << h));
}

static inline double fmd_sched_demand(const struct fmd_pool *fp,
				      uint32_t v, uint32_t h)
{
	return fp->nic.sched.rate[v][h];
}

double fmd_sched_own(const struct fmd_sched_mem *m,
		     const struct fmd_sched_in *in, uint32_t n);
bool fmd_sched_matching(struct fmd_pool *fp, const struct fmd_sched_in *in,
			int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS],
			char *why, size_t whylen);

#endif
