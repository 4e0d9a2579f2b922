// SPDX-License-Identifier: GPL-2.0-only
/*
 * Periodic reclaim: Sections a host no longer needs go back to the pool,
 * so a burst on one host does not keep Buffers from the others for ever.
 * Every reclaim-interval-ms, for each UP host and Buffer class: if the
 * free Buffers it publishes exceed one Section's worth plus reclaim-slack
 * Sections' worth, it owns more than min-sections Sections of the class
 * and asks for none, and over half of the Buffers left would be free,
 * revoke one of them, the most recently granted. The
 * host stops lending Buffers from it at once and gives it back when its
 * Buffers are home. One revoke per host and class is in flight at a
 * time, and none within FMD_REVOKE_SETTLE_MS of a grant (no ping-pong).
 */
#include <errno.h>
#include <string.h>
#include "fmd.h"

#define FMD_REVOKE_ERR_LOG_MS	60000

/* Per host and class, from one scan of the Section table. */
struct fmd_cls_scan {
	uint32_t kept;		/* owned, not being revoked */
	uint32_t revoking;	/* flagged DRACK_SECTION_F_REVOKE */
	uint32_t best;		/* most recently granted of the kept ones */
	uint64_t best_seq;
	uint32_t best_gen;
};

static uint64_t fmd_grant_seq(const struct fmd_pool *fp, uint32_t id)
{
	return id < fp->grant_nsec ? fp->grant_seq[id] : 0;
}

/* Later grant first: ours in the order we made them, then generation. */
static bool fmd_more_recent(const struct fmd_cls_scan *cs, uint64_t seq,
			    uint32_t gen, uint32_t id)
{
	if (!cs->kept)
		return true;
	if (seq != cs->best_seq)
		return seq > cs->best_seq;
	if (gen != cs->best_gen)
		return gen > cs->best_gen;
	return id > cs->best;
}

static void fmd_given_back(struct fmd_pool *fp, uint32_t host, uint32_t cls)
{
	struct fmd_host_mem *hm = &fp->host[host];

	fmd_info("pool %u host %u: revoked Section %u (%s) given back",
		 fp->id, host, hm->revoking[cls] - 1, drack_class_name(cls));
	hm->revoking[cls] = 0;
}

void fmd_reclaim_section_event(struct fmd_pool *fp, uint32_t section,
			       uint32_t owner)
{
	uint32_t h, c;

	if (owner != DRACK_SECTION_FREE)
		return;
	fmd_pool_note_free(fp, section);
	for (h = 0; h < DRACK_MAX_HOSTS; h++)
		for (c = 0; c < DRACK_NR_CLASSES; c++)
			if (fp->host[h].revoking[c] == section + 1)
				fmd_given_back(fp, h, c);
}

static void fmd_revoke(struct drack_nl *nl, struct fmd_pool *fp,
		       const struct fmd_view *v, uint32_t host, uint32_t cls,
		       const struct fmd_cls_scan *cs)
{
	struct fmd_host_mem *hm = &fp->host[host];
	char errbuf[DRACK_ERRMSG_MAX];
	uint64_t now;
	int err;

	err = drack_section_revoke(nl, fp->id, cs->best, errbuf,
				   sizeof(errbuf));
	if (err == -EINVAL) {	/* given back or reclaimed meanwhile */
		fmd_dbg("pool %u host %u: Section %u not revoked: %s%s%s",
			fp->id, host, cs->best, strerror(-err),
			errbuf[0] ? ": " : "", errbuf);
		return;
	}
	if (err) {
		now = fmd_now_ms();
		if (!fp->last_revoke_err_log ||
		    now - fp->last_revoke_err_log >= FMD_REVOKE_ERR_LOG_MS) {
			fp->last_revoke_err_log = now;
			fmd_warn("pool %u host %u: cannot revoke Section %u: %s%s%s",
				 fp->id, host, cs->best, strerror(-err),
				 errbuf[0] ? ": " : "", errbuf);
		}
		return;
	}
	hm->revoking[cls] = cs->best + 1;
	fmd_info("pool %u host %u: revoking Section %u (%s, region %u, generation %u): %u %s Buffers free in %u Sections (slack %u, min %u)",
		 fp->id, host, cs->best, drack_class_name(cls),
		 fmd_view_region(v, cs->best), cs->best_gen,
		 v->host[host].buffers_free[cls], drack_class_name(cls),
		 cs->kept, fmd_conf.reclaim_slack, fmd_conf.min_sections);
}

void fmd_reclaim_pass(struct drack_nl *nl, struct fmd_pool *fp)
{
	static struct fmd_cls_scan scan[DRACK_MAX_HOSTS][DRACK_NR_CLASSES];
	uint32_t section_size, i, h, c, nhosts;
	struct fmd_view v;
	uint64_t now;
	int err;

	err = fmd_view_load(nl, fp->id, &v);
	if (err) {
		fmd_dbg("pool %u: cannot read tables: %s", fp->id,
			strerror(-err));
		return;
	}
	now = fmd_now_ms();
	memset(scan, 0, sizeof(scan));
	for (i = 0; i < v.pool.section_count; i++) {
		const struct drack_section_info *s = &v.sec[i];
		struct fmd_cls_scan *cs;
		uint64_t seq;

		if (s->owner == DRACK_SECTION_FREE) {
			fmd_pool_note_free(fp, i);
			continue;
		}
		if (s->owner >= DRACK_MAX_HOSTS ||
		    s->buf_class >= DRACK_NR_CLASSES)
			continue;
		cs = &scan[s->owner][s->buf_class];
		if (s->flags & DRACK_SECTION_F_REVOKE) {
			cs->revoking++;
			continue;
		}
		seq = fmd_grant_seq(fp, i);
		if (fmd_more_recent(cs, seq, s->generation, i)) {
			cs->best = i;
			cs->best_seq = seq;
			cs->best_gen = s->generation;
		}
		cs->kept++;
	}

	section_size = v.pool.section_size ? v.pool.section_size :
		       DRACK_SECTION_SIZE;
	nhosts = v.pool.max_hosts < DRACK_MAX_HOSTS ? v.pool.max_hosts :
		 DRACK_MAX_HOSTS;
	for (h = 0; h < nhosts; h++) {
		struct fmd_host_mem *hm = &fp->host[h];

		if (!v.present[h])
			continue;
		for (c = 0; c < DRACK_NR_CLASSES; c++) {
			struct fmd_cls_scan *cs = &scan[h][c];
			uint64_t per_section, keep_free;

			/* our revoke done, in case the event was lost */
			if (hm->revoking[c]) {
				uint32_t id = hm->revoking[c] - 1;

				if (id >= v.pool.section_count ||
				    v.sec[id].owner != h ||
				    !(v.sec[id].flags & DRACK_SECTION_F_REVOKE))
					fmd_given_back(fp, h, c);
			}
			if (v.host[h].state != DRACK_HOST_UP)
				continue;
			if (hm->last_grant[c] &&
			    now - hm->last_grant[c] < FMD_REVOKE_SETTLE_MS)
				continue;
			if (v.host[h].wanted[c] || cs->revoking ||
			    cs->kept <= fmd_conf.min_sections)
				continue;
			per_section = section_size / DRACK_CLASS_SIZE(c);
			keep_free = per_section *
				    (1 + (uint64_t)fmd_conf.reclaim_slack);
			if (v.host[h].buffers_free[c] <= keep_free)
				continue;
			/*
			 * Nor while over half of what would be left is out:
			 * the host asks again once one peer holds half of a
			 * class (its reader's cap by reference), and would.
			 */
			if ((v.host[h].buffers_free[c] - per_section) * 2 <=
			    (uint64_t)(cs->kept - 1) * per_section)
				continue;
			fmd_revoke(nl, fp, &v, h, c, cs);
		}
	}
	fmd_view_free(&v);
}
