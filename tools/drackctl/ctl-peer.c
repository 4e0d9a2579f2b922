// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl peer: for each drack interface of this network namespace, the
 * other hosts of its pool as it sees them (DRACK_CMD_PEER_GET): state,
 * reachability and its per-peer counters, with the MAC address from the
 * host table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl peer [ show [ [ dev ] DEV ] [ id HOST ] ]\n"
		"       drackctl peer help\n"
		"Shows hosts in the host table and hosts with traffic counted.\n");
}

struct peer_table {
	uint32_t ifindex;		/* the local host asked about */
	bool seen[DRACK_MAX_HOSTS];
	struct drack_peer_info peer[DRACK_MAX_HOSTS];
	bool present[DRACK_MAX_HOSTS];	/* in the host table */
	uint8_t mac[DRACK_MAX_HOSTS][6];
};

static int peer_cb(const struct drack_peer_info *p, void *arg)
{
	struct peer_table *t = arg;

	if (p->local.ifindex == t->ifindex && p->peer < DRACK_MAX_HOSTS) {
		t->seen[p->peer] = true;
		t->peer[p->peer] = *p;
	}
	return 0;
}

static int peer_host_cb(const struct drack_host_info *h, void *arg)
{
	struct peer_table *t = arg;

	if (h->id < DRACK_MAX_HOSTS) {
		t->present[h->id] = true;
		memcpy(t->mac[h->id], h->mac, sizeof(t->mac[h->id]));
	}
	return 0;
}

static void print_peer(const struct peer_table *t, uint32_t p)
{
	const struct drack_peer_info *pi = &t->peer[p];
	char mac[32];

	open_json_object(NULL);
	print_indent(4);
	print_uint(PRINT_ANY, "peer", "peer %u", p);
	print_string(PRINT_ANY, "state", " state %s",
		     drack_host_state_name(pi->state));
	print_bool(PRINT_ANY, "reachable", " reachable %s", pi->reachable);
	print_bool(PRINT_JSON, "stalled", NULL, pi->stalled);
	if (pi->stalled)
		print_string(PRINT_FP, NULL, "%s", " stalled");
	if (t->present[p])
		print_string(PRINT_ANY, "mac", " mac %s",
			     ctl_mac(t->mac[p], mac, sizeof(mac)));
	ctl_print_counter("tx_packets", pi->tx_packets);
	ctl_print_counter("tx_bytes", pi->tx_bytes);
	ctl_print_counter("rx_packets", pi->rx_packets);
	ctl_print_counter("rx_bytes", pi->rx_bytes);
	ctl_print_counter("rx_bad", pi->rx_bad);
	close_json_object();
	print_nl();
}

struct peer_show {
	bool have_id;
	uint32_t id;
};

static int peer_show_link(const struct drack_link_info *l, void *arg)
{
	const struct peer_show *s = arg;
	struct peer_table *t;
	uint32_t p;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return ctl_err(-ENOMEM, NULL, l->name);
	t->ifindex = l->ifindex;
	err = drack_peer_list(ctl_nl(), l->ifindex, peer_cb, t);
	if (err) {
		free(t);
		return ctl_err(err, NULL, l->name);
	}
	/* Only the MAC addresses are missing without it. */
	drack_host_list(ctl_nl(), l->pool, peer_host_cb, t);

	ctl_print_link_head(l);
	open_json_array(PRINT_JSON, "peers");
	for (p = 0; p < DRACK_MAX_HOSTS; p++)
		if (t->seen[p] && p != l->host && (!s->have_id || p == s->id))
			print_peer(t, p);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
	free(t);
	return CTL_OK;
}

static int peer_show(int argc, char **argv)
{
	struct peer_show s = { 0 };
	const char *dev = NULL;
	const struct ctl_arg args[] = {
		{ .key = "id", .alias = "peer", .get = get_u32, .u32 = &s.id,
		  .have = &s.have_id, .invalid = "invalid host id" },
		{ .key = "dev", .flags = CTL_ARG_POSITIONAL | CTL_ARG_IFNAME,
		  .str = &dev, .invalid = "not a valid ifname" },
		{ 0 }
	};
	int ret = ctl_args(argc, argv, args, "peer", usage);

	if (ret != CTL_MORE)
		return ret;
	return ctl_show_links(dev, true, peer_show_link, &s);
}

int do_peer(int argc, char **argv)
{
	if (argc < 1)
		return peer_show(0, NULL);
	if (matches(*argv, "show") || matches(*argv, "list") ||
	    matches(*argv, "lst"))
		return peer_show(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	}
	return unknown_command("peer", *argv);
}
