// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NIC pool. Hosts export physical NICs to their pool; the fabric
 * manager decides which hosts get a vNIC of which NIC (NIC_ASSIGN). The
 * policy is the simplest one that lets every host use every NIC: each
 * exported NIC, up or down (a vNIC of a NIC that is down fails over to
 * another one), is assigned to every host that is up, and taken back
 * from hosts that are free (left, reclaimed) or dead (fenced); joining
 * and leaving hosts are left as they are. This is done at every poll, on
 * NIC_NOTIFY events and on HOST_NOTIFY events, but only while the host
 * states are known (the last host dump succeeded): a host slot that
 * merely failed to be read must not lose its vNICs. Each vNIC gets its
 * MAC with the assignment, drack_vnic_mac(rack, host, NIC), the rack
 * being vnic-mac-rack or the pool id: the owner serves that one alone.
 *
 * Exports and state changes of NICs are logged; NICs of other kernels
 * send no event here, so the poll's NIC dump finds those. Every
 * nic-load-interval seconds one line per NIC gives its load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fmd.h"

struct fmd_nics {
	struct drack_nic_info n[DRACK_MAX_NICS];
	bool present[DRACK_MAX_NICS];
};

static const char *fmd_colon(const char *msg)
{
	return msg[0] ? ": " : "";
}

static int fmd_nics_cb(const struct drack_nic_info *n, void *arg)
{
	struct fmd_nics *s = arg;

	if (n->id < DRACK_MAX_NICS && n->state != DRACK_NIC_FREE) {
		s->n[n->id] = *n;
		s->present[n->id] = true;
	}
	return 0;
}

/* The NIC table of @fp into @s: 0, or -errno (logged once). */
static int fmd_nics_read(struct drack_nl *nl, struct fmd_pool *fp,
			 struct fmd_nics *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	if (!fp->max_nics || fp->nic.unsupported)
		return -EOPNOTSUPP;
	err = drack_nic_list(nl, fp->id, fmd_nics_cb, s);
	if (err == -EOPNOTSUPP) {
		fmd_info("pool %u: drack.ko has no NIC pool (DRACK_CMD_NIC_GET refused), not managing NICs",
			 fp->id);
		fp->nic.unsupported = true;
	} else if (err) {
		fmd_dbg("pool %u: cannot list NICs: %s", fp->id,
			strerror(-err));
	}
	return err;
}

/* "0,1,3" or "none" */
static const char *fmd_hosts_str(uint64_t mask, char *buf, size_t len)
{
	size_t o = 0;
	uint32_t h;
	int n;

	buf[0] = '\0';
	for (h = 0; h < DRACK_MAX_HOSTS && o < len; h++) {
		if (!(mask & (1ULL << h)))
			continue;
		n = snprintf(buf + o, len - o, "%s%u", o ? "," : "", h);
		if (n < 0)
			break;
		o += (size_t)n;
	}
	return buf[0] ? buf : "none";
}

/* " (eth1, mac 52:54:00:00:00:01, 100 Mbit/s)", as the dump tells. */
static const char *fmd_nic_details(const struct drack_nic_info *n,
				   char *buf, size_t len)
{
	char rate[32];

	if (n->rate)
		snprintf(rate, sizeof(rate), "%u Mbit/s", n->rate);
	else
		snprintf(rate, sizeof(rate), "rate unknown");
	snprintf(buf, len, " (%s%smac %02x:%02x:%02x:%02x:%02x:%02x, %s)",
		 n->ifname, n->ifname[0] ? ", " : "", n->mac[0], n->mac[1],
		 n->mac[2], n->mac[3], n->mac[4], n->mac[5], rate);
	return buf;
}

static void fmd_nic_forget(struct fmd_nic_mem *m)
{
	memset(m, 0, sizeof(*m));
}

static void fmd_nic_log_state(const struct fmd_pool *fp, uint32_t id,
			      uint32_t owner, uint32_t state)
{
	if (state == DRACK_NIC_DOWN)
		fmd_warn("pool %u NIC %u (host %u): link down, its vNICs fail over",
			 fp->id, id, owner);
	else
		fmd_info("pool %u NIC %u (host %u): link %s", fp->id, id,
			 owner, drack_nic_state_name(state));
}

/* Compare the dump with what we knew: log what changed, remember it. */
static void fmd_nic_note(struct fmd_pool *fp, const struct fmd_nics *s)
{
	char det[96], hosts[DRACK_MAX_HOSTS * 3 + 1];
	uint32_t id;

	for (id = 0; id < DRACK_MAX_NICS; id++) {
		struct fmd_nic_mem *m = &fp->nic.nic[id];
		const struct drack_nic_info *n = &s->n[id];

		if (!s->present[id]) {
			if (m->state != DRACK_NIC_FREE)
				fmd_info("pool %u NIC %u (host %u): unexported",
					 fp->id, id, m->owner);
			fmd_nic_forget(m);
			continue;
		}
		if (m->state == DRACK_NIC_FREE ||
		    (m->generation && n->generation != m->generation)) {
			fmd_info("pool %u NIC %u: %s by host %u%s, link %s, vNICs for hosts %s",
				 fp->id, id,
				 fp->nic.seen ? "exported" : "found, exported",
				 n->owner, fmd_nic_details(n, det, sizeof(det)),
				 drack_nic_state_name(n->state),
				 fmd_hosts_str(n->assigned, hosts,
					       sizeof(hosts)));
			fmd_nic_forget(m);
		} else if (m->state != n->state) {
			fmd_nic_log_state(fp, id, n->owner, n->state);
		}
		m->state = n->state;
		m->owner = n->owner;
		m->generation = n->generation;
	}
	fp->nic.seen = true;
}

/*
 * Give @host a vNIC of NIC @id (@on) or take it back: true if done. An
 * error is logged once per NIC until an assignment of it succeeds.
 */
static bool fmd_nic_assign(struct drack_nl *nl, struct fmd_pool *fp,
			   uint32_t id, uint32_t host, bool on)
{
	struct fmd_nic_mem *m = &fp->nic.nic[id];
	char errbuf[DRACK_ERRMSG_MAX];
	uint8_t mac[6];
	int err;

	/* The vNIC's MAC: stable for (rack, host, NIC), unique on the wire. */
	drack_vnic_mac(mac, fmd_conf.vnic_mac_rack == FMD_RACK_POOL ?
			    fp->id : fmd_conf.vnic_mac_rack, host, id);
	err = drack_nic_assign_mac(nl, fp->id, id, host, on, on ? mac : NULL,
				   errbuf, sizeof(errbuf));
	if (!err) {
		m->error_logged = false;
		return true;
	}
	if (err == -ENOENT) {	/* the NIC or the host went meanwhile */
		fmd_dbg("pool %u NIC %u: not %s host %u: %s%s%s", fp->id, id,
			on ? "assigned to" : "taken back from", host,
			strerror(-err), fmd_colon(errbuf), errbuf);
		return false;
	}
	if (!m->error_logged)
		fmd_err("pool %u NIC %u: cannot %s host %u: %s%s%s", fp->id, id,
			on ? "assign it to" : "take it back from", host,
			strerror(-err), fmd_colon(errbuf), errbuf);
	m->error_logged = true;
	return false;
}

/* Every NIC of @s to every host up; none to free or dead hosts. */
static void fmd_nic_sync(struct drack_nl *nl, struct fmd_pool *fp,
			 const struct fmd_nics *s)
{
	char added[DRACK_MAX_HOSTS * 3 + 1], gone[DRACK_MAX_HOSTS * 3 + 1];
	uint64_t add, del, bit;
	uint32_t id, h, hs;

	if (!fmd_conf.nic_assign || !fp->hosts_ok)
		return;
	for (id = 0; id < DRACK_MAX_NICS; id++) {
		if (!s->present[id])
			continue;
		add = del = 0;
		for (h = 0; h < DRACK_MAX_HOSTS; h++) {
			bit = 1ULL << h;
			hs = fp->host[h].state;
			if (hs == DRACK_HOST_UP && !(s->n[id].assigned & bit)) {
				if (fmd_nic_assign(nl, fp, id, h, true))
					add |= bit;
			} else if ((hs == DRACK_HOST_FREE ||
				    hs == DRACK_HOST_DEAD) &&
				   (s->n[id].assigned & bit)) {
				if (fmd_nic_assign(nl, fp, id, h, false))
					del |= bit;
			}
		}
		if (add && del)
			fmd_info("pool %u NIC %u: vNICs assigned to hosts %s, taken back from hosts %s",
				 fp->id, id,
				 fmd_hosts_str(add, added, sizeof(added)),
				 fmd_hosts_str(del, gone, sizeof(gone)));
		else if (add)
			fmd_info("pool %u NIC %u: vNICs assigned to hosts %s",
				 fp->id, id,
				 fmd_hosts_str(add, added, sizeof(added)));
		else if (del)
			fmd_info("pool %u NIC %u: vNICs taken back from hosts %s",
				 fp->id, id,
				 fmd_hosts_str(del, gone, sizeof(gone)));
	}
}

void fmd_nic_poll(struct drack_nl *nl, struct fmd_pool *fp)
{
	static struct fmd_nics s;

	if (fmd_nics_read(nl, fp, &s))
		return;
	fmd_nic_note(fp, &s);
	fmd_nic_sync(nl, fp, &s);
	fmd_sched_pass(nl, fp, s.n, s.present);
}

void fmd_nic_hosts_changed(struct drack_nl *nl, struct fmd_pool *fp)
{
	if (fp->nic.seen && fmd_conf.nic_assign)
		fmd_nic_poll(nl, fp);
}

void fmd_nic_event(struct drack_nl *nl, struct fmd_pool *fp, uint32_t nic,
		   uint32_t state, uint32_t owner)
{
	struct fmd_nic_mem *m;

	if (nic >= DRACK_MAX_NICS)
		return;
	m = &fp->nic.nic[nic];
	fmd_dbg("pool %u NIC %u: event: state %s, owner %u", fp->id, nic,
		drack_nic_state_name(state), owner);
	/*
	 * Exports are logged from the dump below, which has the details;
	 * unexports and link changes here, so that a quick flap is seen.
	 */
	if (state == DRACK_NIC_FREE && m->state != DRACK_NIC_FREE) {
		fmd_info("pool %u NIC %u (host %u): unexported", fp->id, nic,
			 m->owner);
		fmd_nic_forget(m);
	} else if (state != DRACK_NIC_FREE && m->state != DRACK_NIC_FREE &&
		   state != m->state && owner == m->owner) {
		fmd_nic_log_state(fp, nic, owner, state);
		m->state = state;
	}
	fmd_nic_poll(nl, fp);
}

/* "12.3 Mbit/s" from a byte count's increase over @ms, or "-". */
static const char *fmd_rate(uint64_t now, uint64_t then, uint64_t ms,
			    char *buf, size_t len)
{
	if (!ms || now < then)
		return "-";
	snprintf(buf, len, "%.1f Mbit/s",
		 (double)(now - then) * 8.0 / ((double)ms * 1000.0));
	return buf;
}

void fmd_nic_load_log(struct drack_nl *nl, struct fmd_pool *fp)
{
	static struct fmd_nics s;
	char tx[32], rx[32], wire[32], hosts[DRACK_MAX_HOSTS * 3 + 1], dev[40];
	uint64_t now, ms;
	uint32_t id;

	if (fmd_nics_read(nl, fp, &s))
		return;
	now = fmd_now_ms();
	for (id = 0; id < DRACK_MAX_NICS; id++) {
		struct fmd_nic_mem *m = &fp->nic.nic[id];
		const struct drack_nic_info *n = &s.n[id];

		if (!s.present[id])
			continue;
		/* counters of another export are not comparable */
		ms = m->load_when && m->generation == n->generation ?
		     now - m->load_when : 0;
		snprintf(dev, sizeof(dev), "%s%s", n->ifname[0] ? " " : "",
			 n->ifname);
		fmd_info("pool %u NIC %u (host %u%s, %s): queue %u, tx %llu bytes (%s; the NIC in all %s), rx %llu bytes (%s), drops %llu (+%llu), vNICs for hosts %s",
			 fp->id, id, n->owner, dev,
			 drack_nic_state_name(n->state), n->queue_depth,
			 (unsigned long long)n->tx_bytes,
			 fmd_rate(n->tx_bytes, m->tx_bytes, ms, tx, sizeof(tx)),
			 fmd_rate(n->wire_tx_bytes, m->wire_tx_bytes, ms, wire,
				  sizeof(wire)),
			 (unsigned long long)n->rx_bytes,
			 fmd_rate(n->rx_bytes, m->rx_bytes, ms, rx, sizeof(rx)),
			 (unsigned long long)n->drops,
			 (unsigned long long)(ms && n->drops >= m->drops ?
					      n->drops - m->drops : 0),
			 fmd_hosts_str(n->assigned, hosts, sizeof(hosts)));
		m->tx_bytes = n->tx_bytes;
		m->wire_tx_bytes = n->wire_tx_bytes;
		m->rx_bytes = n->rx_bytes;
		m->drops = n->drops;
		m->load_when = now;
	}
}
