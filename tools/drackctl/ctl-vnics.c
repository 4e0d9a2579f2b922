// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vNICs of this network namespace and the loads of the NICs behind
 * them, from the pools' NIC tables (DRACK_CMD_NIC_GET): for "nic mptcp"
 * (ctl-nic-mptcp.c, ctl-nic-mptcp-backup.c) and "nic policy"
 * (ctl-nic-policy.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include "ctl.h"

static int vnic_cb(const struct drack_nic_info *n, void *arg)
{
	struct ctl_vnics *vs = arg;
	struct ctl_nic_load *l;
	char name[IF_NAMESIZE];
	struct ctl_vnic *v;

	l = realloc(vs->load, (vs->nload + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	vs->load = l;
	l[vs->nload].pool = n->pool;
	l[vs->nload].nic = n->id;
	l[vs->nload].state = n->state;
	l[vs->nload++].depth = n->queue_depth;
	/* reported by this kernel: is it in this network namespace? */
	if (!n->vnic_ifindex || !if_indextoname(n->vnic_ifindex, name) ||
	    strcmp(name, n->vnic_ifname))
		return 0;
	v = realloc(vs->v, (vs->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	vs->v = v;
	v = &vs->v[vs->n++];
	v->pool = n->pool;
	v->nic = n->id;
	v->ifindex = n->vnic_ifindex;
	v->via = n->vnic_via;
	snprintf(v->name, sizeof(v->name), "%s", name);
	return 0;
}

int ctl_vnics(struct ctl_vnics *vs)
{
	struct drack_pool_info *pi = NULL;
	int i, n, err = 0;
	char ctx[32];

	memset(vs, 0, sizeof(*vs));
	if (!ctl_nl())
		return CTL_EKERNEL;
	n = ctl_nic_pools(&pi);
	if (n < 0)
		return ctl_err(n, NULL, "listing pools");
	for (i = 0; i < n && !err; i++)
		if (pi[i].max_nics)
			err = drack_nic_list(ctl_nl(), pi[i].id, vnic_cb, vs);
	if (err) {
		snprintf(ctx, sizeof(ctx), "pool %u", pi[i - 1].id);
		free(pi);
		ctl_vnics_free(vs);
		return ctl_nic_err(err, NULL, ctx);
	}
	free(pi);
	return CTL_OK;
}

void ctl_vnics_free(struct ctl_vnics *vs)
{
	free(vs->v);
	free(vs->load);
	memset(vs, 0, sizeof(*vs));
}

int64_t ctl_nic_depth(const struct ctl_vnics *vs, uint32_t pool,
		      uint32_t nic)
{
	int i;

	for (i = 0; i < vs->nload; i++)
		if (vs->load[i].pool == pool && vs->load[i].nic == nic)
			return vs->load[i].state == DRACK_NIC_UP ?
			       (int64_t)vs->load[i].depth : -1;
	return -1;
}

const struct ctl_vnic *ctl_vnic_by_index(const struct ctl_vnics *vs,
					 int ifindex)
{
	int i;

	for (i = 0; i < vs->n; i++)
		if ((int)vs->v[i].ifindex == ifindex)
			return &vs->v[i];
	return NULL;
}

const struct ctl_vnic *ctl_vnic_by_name(const struct ctl_vnics *vs,
					const char *name)
{
	int i;

	for (i = 0; i < vs->n; i++)
		if (!strcmp(vs->v[i].name, name))
			return &vs->v[i];
	return NULL;
}
