// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduling the NIC pool: which NIC carries each host's vNICs. A host
 * has a vNIC per NIC assigned to it (fmd-nic.c); by default vNIC k goes
 * through NIC k, and through the usable NIC with the shortest queue when
 * NIC k fails (the host's kernel decides that alone, at once). The
 * policy here steers vNICs elsewhere with NIC_STEER; the host moves the
 * vNIC while the target is usable, connections intact. nic-schedule:
 *
 *   static       no steering: every vNIC on its own NIC
 *   round-robin  host h's vNIC on usable NIC number i goes through usable
 *                NIC number (i + h) mod N: the hosts' first vNICs (their
 *                default routes, typically) spread over the NICs
 *   queue-depth  DFabric's choice: when the deepest published queue (TX
 *                entries waiting plus the physical NIC's qdisc backlog,
 *                the owner's own traffic included) reaches
 *                queue-depth-high and exceeds the shallowest by half of
 *                that, one vNIC it carries moves to the shallowest NIC
 *                (home, if that is its own), at most one move per
 *                nic-hold-ms. Which one: a vNIC whose own NIC is the
 *                shallow one first, else the next in turn (the owners
 *                publish no per-vNIC load yet).
 *
 * Each pass runs after the poll's assignments; a changed policy (SIGHUP)
 * applies at the next pass. Every decision is logged.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fmd.h"

struct fmd_sched_in {
	const struct drack_nic_info *n;
	const bool *present;
	bool usable[DRACK_MAX_NICS];
	uint32_t order[DRACK_MAX_NICS];	/* usable NIC ids, ascending */
	uint32_t nusable;
};

/* Has host @h a vNIC of NIC @v that the policy may place? */
static bool fmd_sched_vnic(const struct fmd_pool *fp,
			   const struct fmd_sched_in *in, uint32_t v,
			   uint32_t h)
{
	return in->present[v] && (in->n[v].assigned & (1ULL << h)) &&
	       fp->host[h].state == DRACK_HOST_UP;
}

/* The NIC carrying @h's vNIC @v as far as steering goes. */
static uint32_t fmd_sched_carrier(const struct fmd_sched_mem *m, uint32_t v,
				  uint32_t h)
{
	return m->steer[v][h] >= 0 ? (uint32_t)m->steer[v][h] : v;
}

static void fmd_sched_round_robin(const struct fmd_pool *fp,
				  const struct fmd_sched_in *in,
				  int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS])
{
	uint32_t i, h, to;

	if (!in->nusable)
		return;
	for (i = 0; i < in->nusable; i++) {
		uint32_t v = in->order[i];

		for (h = 0; h < DRACK_MAX_HOSTS; h++) {
			if (!fmd_sched_vnic(fp, in, v, h))
				continue;
			to = in->order[(i + h) % in->nusable];
			want[v][h] = to == v ? -1 : (int8_t)to;
		}
	}
}

/* queue-depth: at most one move per pass; false if none is due. */
static bool fmd_sched_queue_depth(struct fmd_pool *fp,
				  const struct fmd_sched_in *in,
				  int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS],
				  char *why, size_t whylen)
{
	struct fmd_sched_mem *m = &fp->nic.sched;
	uint32_t deep = 0, shallow = 0, i, k, v, h, high;
	uint32_t pick_v = DRACK_MAX_NICS, pick_h = 0;
	uint64_t now = fmd_now_ms();
	bool first = true;

	for (i = 0; i < in->nusable; i++) {
		v = in->order[i];
		if (first || in->n[v].queue_depth > in->n[deep].queue_depth)
			deep = v;
		if (first || in->n[v].queue_depth < in->n[shallow].queue_depth)
			shallow = v;
		first = false;
	}
	high = fmd_conf.queue_depth_high;
	if (in->nusable < 2 || in->n[deep].queue_depth < high ||
	    in->n[deep].queue_depth - in->n[shallow].queue_depth < high / 2 ||
	    (m->last_move && now - m->last_move < fmd_conf.nic_hold_ms))
		return false;
	/* A vNIC of the shallow NIC going home first, else the next one. */
	for (k = 0; k < DRACK_MAX_NICS * DRACK_MAX_HOSTS; k++) {
		v = (m->cursor + k) % DRACK_MAX_NICS;
		h = ((m->cursor + k) / DRACK_MAX_NICS) % DRACK_MAX_HOSTS;
		if (!fmd_sched_vnic(fp, in, v, h) ||
		    fmd_sched_carrier(m, v, h) != deep)
			continue;
		if (v == shallow) {
			pick_v = v;
			pick_h = h;
			break;
		}
		if (pick_v == DRACK_MAX_NICS) {
			pick_v = v;
			pick_h = h;
		}
	}
	if (pick_v == DRACK_MAX_NICS)
		return false;
	m->cursor = (pick_h * DRACK_MAX_NICS + pick_v + 1) %
		    (DRACK_MAX_NICS * DRACK_MAX_HOSTS);
	m->last_move = now;
	want[pick_v][pick_h] = pick_v == shallow ? -1 : (int8_t)shallow;
	snprintf(why, whylen, " (NIC %u queue %u, NIC %u queue %u)", deep,
		 in->n[deep].queue_depth, shallow,
		 in->n[shallow].queue_depth);
	return true;
}

static bool fmd_sched_steer(struct drack_nl *nl, struct fmd_pool *fp,
			    uint32_t v, uint32_t h, int to, const char *why)
{
	char errbuf[DRACK_ERRMSG_MAX];
	int err;

	err = drack_nic_steer(nl, fp->id, v, h, to, errbuf, sizeof(errbuf));
	if (err) {
		fmd_warn("pool %u: cannot steer host %u's vNIC of NIC %u: %s%s%s",
			 fp->id, h, v, strerror(-err), errbuf[0] ? ": " : "",
			 errbuf);
		return false;
	}
	if (to < 0)
		fmd_info("pool %u: nic-schedule %s: host %u's vNIC of NIC %u through its own NIC%s",
			 fp->id, fmd_nic_schedule_name(fmd_conf.nic_schedule),
			 h, v, why);
	else
		fmd_info("pool %u: nic-schedule %s: host %u's vNIC of NIC %u through NIC %d%s",
			 fp->id, fmd_nic_schedule_name(fmd_conf.nic_schedule),
			 h, v, to, why);
	return true;
}

void fmd_sched_pass(struct drack_nl *nl, struct fmd_pool *fp,
		    const struct drack_nic_info *n, const bool *present)
{
	static int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
	struct fmd_sched_mem *m = &fp->nic.sched;
	struct fmd_sched_in in = { .n = n, .present = present };
	char why[96] = "";
	uint32_t v, h;

	if (!fp->hosts_ok)
		return;
	if (!m->synced) {
		/* Unknown what an earlier FM left: every vNIC steered home. */
		memset(m->steer, -1, sizeof(m->steer));
		m->last_move = 0;
	}
	for (v = 0; v < DRACK_MAX_NICS; v++) {
		uint32_t owner = n[v].owner;

		in.usable[v] = present[v] && n[v].state == DRACK_NIC_UP &&
			       owner < DRACK_MAX_HOSTS &&
			       fp->host[owner].state == DRACK_HOST_UP;
		if (in.usable[v])
			in.order[in.nusable++] = v;
	}
	for (v = 0; v < DRACK_MAX_NICS; v++)
		for (h = 0; h < DRACK_MAX_HOSTS; h++)
			want[v][h] = m->synced ? m->steer[v][h] : -1;

	switch (fmd_conf.nic_schedule) {
	case FMD_SCHED_ROUND_ROBIN:
		memset(want, -1, sizeof(want));
		fmd_sched_round_robin(fp, &in, want);
		break;
	case FMD_SCHED_QUEUE_DEPTH:
		fmd_sched_queue_depth(fp, &in, want, why, sizeof(why));
		break;
	default:
		memset(want, -1, sizeof(want));
		break;
	}

	for (v = 0; v < DRACK_MAX_NICS && v < fp->max_nics; v++)
		for (h = 0; h < DRACK_MAX_HOSTS; h++) {
			bool known = m->synced;

			/* A host that left starts over at home when it joins. */
			if (!fmd_sched_vnic(fp, &in, v, h)) {
				if (m->steer[v][h] >= 0 &&
				    !drack_nic_steer(nl, fp->id, v, h, -1,
						     NULL, 0))
					m->steer[v][h] = -1;
				continue;
			}
			if (known && want[v][h] == m->steer[v][h])
				continue;
			if (!known && want[v][h] < 0) {
				/* Quietly home: no line per vNIC at start. */
				if (!drack_nic_steer(nl, fp->id, v, h, -1,
						     NULL, 0))
					m->steer[v][h] = -1;
				continue;
			}
			if (fmd_sched_steer(nl, fp, v, h, want[v][h], why))
				m->steer[v][h] = want[v][h];
		}
	m->synced = true;
}
