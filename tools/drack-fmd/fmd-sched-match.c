// SPDX-License-Identifier: GPL-2.0-only
/*
 * The matching policy (EDM's): sending vNICs request NICs, free NICs
 * grant, vNICs accept, repeated while pairs are added (PIM). What the
 * policies share is in fmd-sched.h; the overview is in fmd-sched.c.
 */
#include <stdio.h>
#include <string.h>
#include "fmd-sched.h"

/* Does request [v][h] beat [bv][bh] for a NIC's grant? */
static bool fmd_sched_before(const struct fmd_sched_mem *m, uint32_t v,
			     uint32_t h, uint32_t bv, uint32_t bh)
{
	uint32_t c = fmd_sched_carrier(m, v, h), bc = fmd_sched_carrier(m, bv, bh);

	if (fmd_conf.nic_match_priority == FMD_MATCH_SRPT &&
	    m->queued[c][h] != m->queued[bc][bh])
		return m->queued[c][h] < m->queued[bc][bh];
	return m->since[v][h] < m->since[bv][bh];
}

/* nic_to[] of a NIC its owner's own traffic holds (no vNIC's v * 64 + h) */
#define FMD_MATCH_OWNER	(DRACK_MAX_NICS * DRACK_MAX_HOSTS)

bool fmd_sched_matching(struct fmd_pool *fp, const struct fmd_sched_in *in,
			int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS],
			char *why, size_t whylen)
{
	struct fmd_sched_mem *m = &fp->nic.sched;
	bool req[DRACK_MAX_NICS][DRACK_MAX_HOSTS] = { { false } };
	int match[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
	int nic_to[DRACK_MAX_NICS];	/* v * 64 + h of its match, -1 */
	uint32_t v, h, n, i, round, nmatch = 0, nreq = 0, nown = 0;
	uint64_t now = fmd_now_ms();

	for (v = 0; v < DRACK_MAX_NICS; v++)
		for (h = 0; h < DRACK_MAX_HOSTS; h++) {
			match[v][h] = -1;
			if (!fmd_sched_vnic(fp, in, v, h) ||
			    fmd_sched_demand(fp, v, h) < FMD_DEMAND_MIN) {
				m->since[v][h] = 0;
				continue;
			}
			if (!m->since[v][h])
				m->since[v][h] = now;
			req[v][h] = true;
			nreq++;
		}
	/*
	 * An owner's own traffic requests its NIC and no other: a request
	 * with one choice is granted first, so a vNIC that can go
	 * elsewhere does.
	 */
	for (n = 0; n < DRACK_MAX_NICS; n++) {
		nic_to[n] = -1;
		if (in->usable[n] && fmd_sched_own(m, in, n) > 0) {
			nic_to[n] = FMD_MATCH_OWNER;
			nown++;
		}
	}
	/* With one priority order every free NIC grants the same request:
	 * at least one pair per round, so as many rounds as NICs suffice. */
	for (round = 0; round < in->nusable; round++) {
		int grant[DRACK_MAX_NICS];
		bool added = false;

		/* Each free NIC grants the first unmatched request. */
		for (i = 0; i < in->nusable; i++) {
			int g = -1;

			n = in->order[i];
			grant[n] = -1;
			if (nic_to[n] >= 0)
				continue;
			for (v = 0; v < DRACK_MAX_NICS; v++)
				for (h = 0; h < DRACK_MAX_HOSTS; h++)
					if (req[v][h] && match[v][h] < 0 &&
					    fmd_sched_target(in, n, h) &&
					    (g < 0 ||
					     fmd_sched_before(m, v, h,
							      (uint32_t)g / DRACK_MAX_HOSTS,
							      (uint32_t)g % DRACK_MAX_HOSTS)))
						g = (int)(v * DRACK_MAX_HOSTS + h);
			grant[n] = g;
		}
		/* Each request accepts one grant: where it is, else the first. */
		for (v = 0; v < DRACK_MAX_NICS; v++)
			for (h = 0; h < DRACK_MAX_HOSTS; h++) {
				int me = (int)(v * DRACK_MAX_HOSTS + h), pick = -1;

				if (!req[v][h] || match[v][h] >= 0)
					continue;
				for (i = 0; i < in->nusable; i++) {
					n = in->order[i];
					if (nic_to[n] >= 0 || grant[n] != me)
						continue;
					if (pick < 0 ||
					    n == fmd_sched_carrier(m, v, h))
						pick = (int)n;
				}
				if (pick < 0)
					continue;
				match[v][h] = pick;
				nic_to[pick] = me;
				nmatch++;
				added = true;
			}
		if (!added)
			break;
	}
	for (v = 0; v < DRACK_MAX_NICS; v++)
		for (h = 0; h < DRACK_MAX_HOSTS; h++) {
			if (!fmd_sched_vnic(fp, in, v, h))
				continue;
			if (match[v][h] >= 0)
				want[v][h] = match[v][h] == (int)v ? -1 :
					     (int8_t)match[v][h];
			else if (!req[v][h])
				want[v][h] = -1;	/* idle: home */
		}
	snprintf(why, whylen, " (matching %s: %u of %u sending vNICs matched, %u NICs busy with their owner's traffic)",
		 fmd_conf.nic_match_priority == FMD_MATCH_SRPT ? "srpt" : "fcfs",
		 nmatch, nreq, nown);
	return true;
}
