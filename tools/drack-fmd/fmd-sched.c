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
 *                queue-depth-high and the shallowest is under half of
 *                that (or the deep one at least twice it plus
 *                queue-depth-high), one vNIC it carries moves to the
 *                shallowest NIC (home, if that is its own), at most one
 *                move per nic-hold-ms, on depths averaged over the polls:
 *                senders first, unless one sender alone is the NIC's
 *                load, then idle vNICs, each resting FMD_QD_COOLDOWN
 *                holds after a move.
 *   demand       XFabric's idea: every nic-hold-ms, the vNICs that send
 *                (at least FMD_DEMAND_MIN) are placed, largest demand
 *                first, each on the NIC that ends up least loaded for its
 *                speed (longest-processing-time first), the owners' own
 *                traffic counted as load already there; applied only if
 *                that lowers the most loaded NIC's load by a tenth.
 *   matching     EDM's: every nic-hold-ms the sending vNICs request every
 *                usable NIC, each free NIC grants one request (the one
 *                demanding longest, fcfs, or with the fewest frames
 *                queued, srpt: nic-match-priority), each vNIC accepts one
 *                grant (its current NIC first), repeated while it adds
 *                pairs (iterative maximal matching, PIM); a NIC whose
 *                owner sends enough of its own is its owner's. Matched
 *                vNICs go to their NIC, idle ones home, the unmatched
 *                stay put.
 *
 * Demand: what each vNIC sent, whichever NIC carried it, published by its
 * host in the pool with its heartbeat (bytes), sampled at every pass,
 * and the frames its host has waiting in each NIC's TX ring (queued).
 *
 * Each pass runs after the poll's assignments; a changed policy (SIGHUP)
 * applies at the next pass. Every decision is logged. Targets are NICs
 * assigned to the vNIC's host. All choices are written again at start
 * and every FMD_STEER_REASSERT_MS (the kernel ignores unchanged ones).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fmd-sched.h"


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
			want[v][h] = to == v || !fmd_sched_target(in, to, h) ?
				     -1 : (int8_t)to;
		}
	}
}

/*
 * The owner's own traffic on NIC @n: what the NIC sent minus the vNIC
 * frames it took from the pool, in bytes/s, smoothed like the demand.
 * Signed: the two counters differ by the time between enqueue and
 * completion, so a sample may be negative and the average stays honest.
 * A new export (generation) or a NIC seen again starts from its counters.
 */
static void fmd_sched_sample_own(struct fmd_sched_mem *m, uint32_t n,
				 const struct drack_nic_info *ni, double dt)
{
	double wire, vnic;

	if (dt > 0 && m->wire_gen[n] && m->wire_gen[n] == ni->generation &&
	    ni->wire_tx_bytes >= m->wire[n] && ni->tx_bytes >= m->vnic_tx[n]) {
		wire = (double)(ni->wire_tx_bytes - m->wire[n]);
		vnic = (double)(ni->tx_bytes - m->vnic_tx[n]);
		m->own[n] = (m->own[n] + (wire - vnic) / dt) / 2;
		m->vnic_rate[n] = (m->vnic_rate[n] + vnic / dt) / 2;
	} else {
		m->own[n] = 0;
		m->vnic_rate[n] = 0;
	}
	m->wire_gen[n] = ni->generation;
	m->wire[n] = ni->wire_tx_bytes;
	m->vnic_tx[n] = ni->tx_bytes;
}


/*
 * The owner's own traffic on NIC @n as the policies count it, 0 if it is
 * small: under FMD_DEMAND_MIN, within a tenth of the vNIC traffic (a
 * driver may count headers per segment of a GSO frame that the pool
 * counts once), or under 5% of the NIC's speed while its queue is short
 * (a shaped or shared link is slower than its speed says: a deep queue
 * shows that the traffic matters).
 */
double fmd_sched_own(const struct fmd_sched_mem *m,
		     const struct fmd_sched_in *in, uint32_t n)
{
	double own = m->own[n] - m->vnic_rate[n] / 10;
	double floor = (double)in->n[n].rate * 1e6 / 8 / 20;

	if (m->depth[n] >= fmd_conf.queue_depth_high)
		floor = 0;
	return own >= FMD_DEMAND_MIN && own >= floor ? own : 0;
}

/*
 * Sample the published demand: rate[v][h] of host h's vNIC v (bytes/s,
 * smoothed) and queued[n][h], h's frames waiting at NIC n.
 */
static void fmd_sched_sample(struct fmd_sched_mem *m,
			     const struct fmd_sched_in *in)
{
	uint64_t now = fmd_now_ms();
	double dt = m->sampled ? (double)(now - m->sampled) / 1000.0 : 0;
	uint32_t n, i, h;

	for (n = 0; n < DRACK_MAX_NICS; n++) {
		if (!in->present[n]) {
			m->wire_gen[n] = 0;	/* seen again: a new baseline */
			continue;
		}
		for (i = 0; i < in->n[n].ndemand; i++) {
			const struct drack_nic_demand *d = &in->n[n].demand[i];
			double r = 0;

			h = d->host;
			if (h >= DRACK_MAX_HOSTS)
				continue;
			/* A new attach starts from 0: no rate this round. */
			if (dt > 0 && d->tx_bytes >= m->bytes[n][h])
				r = (double)(d->tx_bytes - m->bytes[n][h]) / dt;
			m->rate[n][h] = (m->rate[n][h] + r) / 2;
			m->bytes[n][h] = d->tx_bytes;
			m->queued[n][h] = d->queued;
		}
		fmd_sched_sample_own(m, n, &in->n[n], dt);
		m->depth[n] = (m->depth[n] + in->n[n].queue_depth) / 2;
	}
	m->sampled = now;
}


/*
 * queue-depth: at most one move per nic-hold-ms, on queue depths averaged
 * over the passes, and only onto a NIC whose queue is under half of
 * queue-depth-high or far shorter than the deep one (two NICs saturated
 * alike swap nothing). The vNICs that send
 * go first, but not the deep NIC's only load (a lone flow fills any
 * queue it is on: moving it moves the queue); idle vNICs follow, so
 * their latency leaves the queue too. A vNIC moved rests FMD_QD_COOLDOWN
 * holds, so one whose own traffic is the queue does not ping-pong.
 */
#define FMD_QD_COOLDOWN	5

/* May @h's vNIC @v leave NIC @deep for @to now? */
static bool fmd_qd_movable(const struct fmd_pool *fp,
			   const struct fmd_sched_in *in, uint32_t v,
			   uint32_t h, uint32_t deep, uint32_t to)
{
	const struct fmd_sched_mem *m = &fp->nic.sched;
	uint64_t cool = (uint64_t)fmd_conf.nic_hold_ms * FMD_QD_COOLDOWN;

	return fmd_sched_vnic(fp, in, v, h) &&
	       fmd_sched_carrier(m, v, h) == deep &&
	       fmd_sched_target(in, to, h) &&
	       !(m->moved[v][h] && fmd_now_ms() - m->moved[v][h] < cool);
}

static bool fmd_sched_queue_depth(struct fmd_pool *fp,
				  const struct fmd_sched_in *in,
				  int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS],
				  char *why, size_t whylen)
{
	struct fmd_sched_mem *m = &fp->nic.sched;
	uint32_t deep = 0, shallow = 0, i, k, v, h, senders = 0, pass;
	uint32_t pick_pass = 0;
	uint32_t pick_v = DRACK_MAX_NICS, pick_h = 0;
	uint64_t now = fmd_now_ms();
	double high = fmd_conf.queue_depth_high;
	bool first = true, sending;

	for (i = 0; i < in->nusable; i++) {
		v = in->order[i];
		if (first || m->depth[v] > m->depth[deep])
			deep = v;
		if (first || m->depth[v] < m->depth[shallow])
			shallow = v;
		first = false;
	}
	/* The target is short, or far shorter than the deep one. */
	if (in->nusable < 2 || deep == shallow || m->depth[deep] < high ||
	    (m->depth[shallow] >= high / 2 &&
	     m->depth[deep] < 2 * m->depth[shallow] + high) ||
	    (m->last_move && now - m->last_move < fmd_conf.nic_hold_ms))
		return false;
	for (v = 0; v < DRACK_MAX_NICS; v++)
		for (h = 0; h < DRACK_MAX_HOSTS; h++)
			if (fmd_sched_vnic(fp, in, v, h) &&
			    fmd_sched_carrier(m, v, h) == deep &&
			    fmd_sched_demand(fp, v, h) >= FMD_DEMAND_MIN)
				senders++;
	/* Pass 0: senders, unless one alone fills the NIC; pass 1: idle. */
	for (pass = 0; pass < 2 && pick_v == DRACK_MAX_NICS; pass++) {
		if (!pass && senders < 2 && !fmd_sched_own(m, in, deep))
			continue;
		for (k = 0; k < DRACK_MAX_NICS * DRACK_MAX_HOSTS; k++) {
			v = (m->cursor + k) % DRACK_MAX_NICS;
			h = ((m->cursor + k) / DRACK_MAX_NICS) % DRACK_MAX_HOSTS;
			sending = fmd_sched_demand(fp, v, h) >= FMD_DEMAND_MIN;
			if (sending != !pass ||
			    !fmd_qd_movable(fp, in, v, h, deep, shallow))
				continue;
			pick_v = v;
			pick_h = h;
			pick_pass = pass;
			break;
		}
	}
	if (pick_v == DRACK_MAX_NICS)
		return false;
	m->cursor = (pick_h * DRACK_MAX_NICS + pick_v + 1) %
		    (DRACK_MAX_NICS * DRACK_MAX_HOSTS);
	m->last_move = now;
	m->moved[pick_v][pick_h] = now;
	want[pick_v][pick_h] = pick_v == shallow ? -1 : (int8_t)shallow;
	snprintf(why, whylen, " (NIC %u queue %.0f, NIC %u queue %.0f; %s)",
		 deep, m->depth[deep], shallow, m->depth[shallow],
		 pick_pass ? "idle" : "a sender");
	return true;
}

/* Capacity weight of NIC @n: its speed, 1 if unknown. */
static double fmd_sched_cap(const struct fmd_sched_in *in, uint32_t n)
{
	return in->n[n].rate ? (double)in->n[n].rate : 1.0;
}

static bool fmd_sched_demand_place(struct fmd_pool *fp,
				   const struct fmd_sched_in *in,
				   int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS],
				   char *why, size_t whylen)
{
	struct fmd_sched_mem *m = &fp->nic.sched;
	double load[DRACK_MAX_NICS] = { 0 }, cur[DRACK_MAX_NICS] = { 0 };
	struct { uint32_t v, h; double d; } u[DRACK_MAX_NICS * 8], t;
	double newmax = 0, curmax = 0, best_l;
	uint32_t nu = 0, i, j, k, n, best, c;

	/* The owners' own traffic is there before any vNIC. */
	for (i = 0; i < in->nusable; i++) {
		n = in->order[i];
		load[n] = cur[n] = fmd_sched_own(m, in, n) /
				   fmd_sched_cap(in, n);
	}
	for (j = 0; j < DRACK_MAX_NICS; j++)
		for (k = 0; k < DRACK_MAX_HOSTS; k++) {
			double d;

			if (!fmd_sched_vnic(fp, in, j, k) ||
			    nu == FMD_ARRAY_SIZE(u))
				continue;
			d = fmd_sched_demand(fp, j, k);
			if (d < FMD_DEMAND_MIN)
				continue;
			c = fmd_sched_carrier(m, j, k);
			if (c < DRACK_MAX_NICS && in->usable[c])
				cur[c] += d / fmd_sched_cap(in, c);
			u[nu].v = j;
			u[nu].h = k;
			u[nu++].d = d;
		}
	if (!nu || in->nusable < 2)
		return false;
	/* Largest first (insertion sort: a few dozen at most). */
	for (i = 1; i < nu; i++)
		for (j = i; j > 0 && u[j].d > u[j - 1].d; j--) {
			t = u[j];
			u[j] = u[j - 1];
			u[j - 1] = t;
		}
	for (i = 0; i < nu; i++) {
		c = fmd_sched_carrier(m, u[i].v, u[i].h);
		best = c;
		best_l = -1;
		for (j = 0; j < in->nusable; j++) {
			double l;

			n = in->order[j];
			if (!fmd_sched_target(in, n, u[i].h))
				continue;
			l = load[n] + u[i].d / fmd_sched_cap(in, n);
			/* ties: where it is, then lower ids */
			if (best_l < 0 || l < best_l - 1e-9 ||
			    (l < best_l + 1e-9 && n == c)) {
				best = n;
				best_l = l;
			}
		}
		if (best_l < 0)
			continue;	/* nowhere it may go: stays */
		load[best] = best_l;
		want[u[i].v][u[i].h] = best == u[i].v ? -1 : (int8_t)best;
	}
	for (n = 0; n < DRACK_MAX_NICS; n++) {
		if (load[n] > newmax)
			newmax = load[n];
		if (cur[n] > curmax)
			curmax = cur[n];
	}
	if (newmax > 0.9 * curmax) {	/* not worth moving */
		for (i = 0; i < nu; i++)
			want[u[i].v][u[i].h] = m->steer[u[i].v][u[i].h];
		return false;
	}
	/* bytes/s per Mbit/s of speed: a share of it; speed unknown: Mbit/s */
	for (j = 0, k = 1; j < in->nusable; j++)
		k &= in->n[in->order[j]].rate != 0;
	if (k)
		snprintf(why, whylen, " (demand: the most loaded NIC at %.1f%% of its speed, was %.1f%%)",
			 newmax * 8 / 1e4, curmax * 8 / 1e4);
	else
		snprintf(why, whylen, " (demand: the most loaded NIC at %.2f Mbit/s, was %.2f)",
			 newmax * 8 / 1e6, curmax * 8 / 1e6);
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

/*
 * Every this often the daemon writes all its choices again: a host with
 * access to the pool can overwrite another's steer; this repairs it.
 */
#define FMD_STEER_REASSERT_MS	10000

void fmd_sched_pass(struct drack_nl *nl, struct fmd_pool *fp,
		    const struct drack_nic_info *n, const bool *present)
{
	static int8_t want[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
	struct fmd_sched_mem *m = &fp->nic.sched;
	struct fmd_sched_in in = { .n = n, .present = present };
	uint64_t now = fmd_now_ms();
	char why[160] = "";
	uint32_t v, h;
	int8_t to;

	if (!fp->hosts_ok)
		return;
	if (!m->synced || now >= m->reassert) {
		/*
		 * Unknown what an earlier FM or drackctl left (first pass), or
		 * time to repair: every pair of the pool is written again.
		 */
		if (!m->synced) {
			memset(m->steer, -1, sizeof(m->steer));
			memset(m->moved, 0, sizeof(m->moved));
			m->last_move = 0;
		}
		memset(m->dirty, true, sizeof(m->dirty));
		m->synced = true;
		m->reassert = now + FMD_STEER_REASSERT_MS;
	}
	for (v = 0; v < DRACK_MAX_NICS; v++) {
		uint32_t owner = n[v].owner;

		in.usable[v] = present[v] && n[v].state == DRACK_NIC_UP &&
			       owner < DRACK_MAX_HOSTS &&
			       fp->host[owner].state == DRACK_HOST_UP;
		if (in.usable[v])
			in.order[in.nusable++] = v;
	}
	memcpy(want, m->steer, sizeof(want));

	fmd_sched_sample(m, &in);
	switch (fmd_conf.nic_schedule) {
	case FMD_SCHED_DEMAND:
	case FMD_SCHED_MATCHING:
		/* One decision per nic-hold-ms, on a settled view. */
		if (m->last_move && now - m->last_move < fmd_conf.nic_hold_ms)
			break;
		if (fmd_conf.nic_schedule == FMD_SCHED_DEMAND ?
		    fmd_sched_demand_place(fp, &in, want, why, sizeof(why)) :
		    fmd_sched_matching(fp, &in, want, why, sizeof(why)))
			m->last_move = now;
		break;
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
		for (h = 0; h < DRACK_MAX_HOSTS && h < fp->max_hosts; h++) {
			/* Not placeable (host gone, NIC not its): home. */
			to = fmd_sched_vnic(fp, &in, v, h) ? want[v][h] : -1;
			if (to == m->steer[v][h] && !m->dirty[v][h])
				continue;
			if (to == m->steer[v][h] || !fmd_sched_vnic(fp, &in, v, h)) {
				/* a rewrite, or a departed host's: quietly */
				if (drack_nic_steer(nl, fp->id, v, h, to, NULL, 0))
					continue;	/* again next pass */
			} else if (!fmd_sched_steer(nl, fp, v, h, to, why)) {
				continue;
			}
			m->steer[v][h] = to;
			m->dirty[v][h] = false;
		}
}
