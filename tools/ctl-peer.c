// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl peer: for each drack interface of this network namespace, the
 * other hosts of its pool: their state in the host table and the
 * interface's per-peer counters (ethtool -S peerN_*).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "ctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl peer [ show [ [ dev ] DEV ] [ id HOST ] ]\n"
		"       drackctl peer help\n"
		"Shows hosts in the host table and hosts with traffic counted.\n");
}

static const char *const peer_fields[] = {
	"tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "rx_bad",
};

#define NR_PEER_FIELDS (sizeof(peer_fields) / sizeof(peer_fields[0]))

struct peer_table {
	bool present[DRACK_MAX_HOSTS];
	struct drack_host_info host[DRACK_MAX_HOSTS];
};

static int peer_host_cb(const struct drack_host_info *h, void *arg)
{
	struct peer_table *t = arg;

	if (h->id < DRACK_MAX_HOSTS) {
		t->present[h->id] = true;
		t->host[h->id] = *h;
	}
	return 0;
}

static void print_peer(const struct peer_table *t,
		       const struct ctl_ethtool_stats *st, uint32_t p)
{
	const struct drack_host_info *h = &t->host[p];
	uint64_t v[NR_PEER_FIELDS] = { 0 };
	bool have[NR_PEER_FIELDS] = { false }, any = false;
	char mac[32];
	size_t i;

	for (i = 0; i < NR_PEER_FIELDS; i++) {
		have[i] = !ctl_ethtool_statf(st, &v[i], "peer%u_%s", p,
					     peer_fields[i]);
		any |= have[i] && v[i];
	}
	if (!t->present[p] && !any)
		return;

	open_json_object(NULL);
	print_indent(4);
	print_uint(PRINT_ANY, "peer", "peer %u", p);
	print_string(PRINT_ANY, "state", " state %s",
		     t->present[p] ? drack_host_state_name(h->state) : "free");
	if (t->present[p]) {
		print_bool(PRINT_ANY, "reachable", " reachable %s",
			   h->state == DRACK_HOST_UP &&
			   (h->flags & DRACK_HOST_F_RUNNING));
		print_string(PRINT_ANY, "mac", " mac %s",
			     ctl_mac(h->mac, mac, sizeof(mac)));
	}
	for (i = 0; i < NR_PEER_FIELDS; i++)
		if (have[i])
			ctl_print_counter(peer_fields[i], v[i]);
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
	struct ctl_ethtool_stats st;
	struct peer_table *t;
	uint32_t p;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return ctl_err(-ENOMEM, NULL, l->name);
	err = drack_host_list(ctl_nl(), l->pool, peer_host_cb, t);
	if (err) {
		free(t);
		return ctl_pool_err(err, l->pool);
	}
	if (ctl_link_stats(l->name, &st)) {
		free(t);
		return CTL_EKERNEL;
	}

	ctl_print_link_head(l);
	open_json_array(PRINT_JSON, "peers");
	for (p = 0; p < DRACK_MAX_HOSTS; p++)
		if (p != l->host && (!s->have_id || p == s->id))
			print_peer(t, &st, p);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
	ctl_ethtool_free(&st);
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
