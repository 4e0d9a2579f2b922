// SPDX-License-Identifier: GPL-2.0-only
/*
 * The grant policy: how many Sections a host may own (quota; placement is
 * in fmd-place.c). Mechanism is in the kernel; the daemon decides, here
 * for grants, in fmd-reclaim.c for revokes and in fmd-health.c for
 * fencing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fmd.h"

/* quota = N, else max(2, data Sections / hosts up), evaluated per decision. */
uint32_t fmd_host_quota(const struct fmd_view *v)
{
	uint32_t data, q;

	if (fmd_conf.quota)
		return fmd_conf.quota;
	data = v->pool.section_count > v->pool.meta_sections ?
	       v->pool.section_count - v->pool.meta_sections : 0;
	q = data / (v->up_hosts ? v->up_hosts : 1);
	return q > 2 ? q : 2;
}

/*
 * Tell the host's kernel why (DRACK_REFUSED_*): it shows the reason while
 * it has no carrier, until our next grant. At every refused request: a
 * grant meanwhile cleared it.
 */
static void fmd_tell_refusal(struct drack_nl *nl, struct fmd_pool *fp,
			     uint32_t host, uint32_t why)
{
	char errbuf[DRACK_ERRMSG_MAX];
	int err;

	err = drack_section_refuse(nl, fp->id, host, why, errbuf,
				   sizeof(errbuf));
	if (err)
		fmd_dbg("pool %u host %u: cannot tell the refusal: %s%s%s",
			fp->id, host, strerror(-err), errbuf[0] ? ": " : "",
			errbuf);
}

static void fmd_refuse(struct drack_nl *nl, struct fmd_pool *fp,
		       uint32_t host, uint64_t now, uint32_t owned,
		       uint32_t quota)
{
	struct fmd_host_mem *hm = &fp->host[host];

	/* Every refusal at debug level; the log line once a minute. */
	fmd_dbg("pool %u host %u: refused: quota reached (owns %u, quota %u)",
		fp->id, host, owned, quota);
	fmd_tell_refusal(nl, fp, host, DRACK_REFUSED_QUOTA);
	if (hm->last_refusal_log &&
	    now - hm->last_refusal_log < FMD_REFUSAL_LOG_MS)
		return;
	hm->last_refusal_log = now;
	fmd_info("pool %u host %u: request refused: quota reached (owns %u, quota %u)",
		 fp->id, host, owned, quota);
}

void fmd_handle_request(struct drack_nl *nl, struct fmd_pool *fp,
			uint32_t host, uint32_t cls, uint32_t count)
{
	char errbuf[DRACK_ERRMSG_MAX];
	uint32_t picks[DRACK_MAX_HOSTS * 4];
	uint32_t quota, owned, want, n, i;
	struct fmd_view v;
	uint64_t now = fmd_now_ms();
	int err;

	if (host >= DRACK_MAX_HOSTS || cls >= DRACK_NR_CLASSES || !count)
		return;
	/* Granted moments ago: the host has not consumed it yet. */
	if (fp->host[host].last_grant[cls] &&
	    now - fp->host[host].last_grant[cls] < FMD_SETTLE_MS)
		return;

	err = fmd_view_load(nl, fp->id, &v);
	if (err) {
		fmd_dbg("pool %u: cannot read tables: %s", fp->id,
			strerror(-err));
		return;
	}
	if (host >= v.pool.max_hosts || !v.present[host] ||
	    v.host[host].state != DRACK_HOST_UP) {	/* the kernel's rule too */
		fmd_dbg("pool %u host %u: ignoring request in state %s",
			fp->id, host, v.present[host] ?
			drack_host_state_name(v.host[host].state) : "free");
		goto out;
	}

	quota = fmd_host_quota(&v);
	owned = v.owned[host];
	if (owned >= quota) {
		fmd_refuse(nl, fp, host, now, owned, quota);
		goto out;
	}
	want = quota - owned;
	if (want > count)
		want = count;
	if (want > FMD_ARRAY_SIZE(picks))
		want = FMD_ARRAY_SIZE(picks);

	n = fmd_place(&v, host, cls, want, picks);
	if (!n) {
		fmd_tell_refusal(nl, fp, host, DRACK_REFUSED_POOL_FULL);
		if (!fp->last_exhausted_log ||
		    now - fp->last_exhausted_log >= FMD_REFUSAL_LOG_MS) {
			fp->last_exhausted_log = now;
			fmd_info("pool %u: no free Section for host %u",
				 fp->id, host);
		}
		goto out;
	}

	for (i = 0; i < n; i++) {
		err = drack_section_grant(nl, fp->id, host, picks[i], cls,
					  errbuf, sizeof(errbuf));
		if (err) {
			fmd_warn("pool %u: grant of Section %u to host %u failed: %s%s%s",
				 fp->id, picks[i], host, strerror(-err),
				 errbuf[0] ? ": " : "", errbuf);
			break;
		}
		fp->host[host].last_grant[cls] = fmd_now_ms();
		fmd_pool_note_grant(fp, v.pool.section_count, picks[i]);
		fmd_dbg("pool %u: granted Section %u (%s, region %u) to host %u (%u/%u)",
			fp->id, picks[i], drack_class_name(cls),
			fmd_view_region(&v, picks[i]), host, owned + i + 1,
			quota);
	}
out:
	fmd_view_free(&v);
}
