// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl: a drack interface's counters, as ethtool -S shows them, by
 * the SIOCETHTOOL ioctl. It works in the caller's network namespace
 * whatever /sys shows, and on every kernel drack.ko builds for.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "ctl.h"

/* The netdev's counters never come close; a bigger count is not drack. */
#define CTL_MAX_STATS	4096

static int ctl_ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name) - 1);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static int ctl_ethtool_count(int fd, const char *ifname, unsigned int *n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t count;
	} sset;
	int err;

	memset(&sset, 0, sizeof(sset));
	sset.hdr.cmd = ETHTOOL_GSSET_INFO;
	sset.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	err = ctl_ethtool(fd, ifname, &sset);
	if (err)
		return err;
	if (!(sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)))
		return -EOPNOTSUPP;
	if (sset.count > CTL_MAX_STATS)
		return -E2BIG;
	*n = sset.count;
	return 0;
}

int ctl_ethtool_stats(const char *ifname, struct ctl_ethtool_stats *st)
{
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *es = NULL;
	unsigned int n, i;
	int fd, err;

	memset(st, 0, sizeof(*st));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = ctl_ethtool_count(fd, ifname, &n);
	if (err)
		goto out;

	err = -ENOMEM;
	/* the kernel writes as many as it counts now: leave room */
	gs = calloc(1, sizeof(*gs) + (size_t)CTL_MAX_STATS * ETH_GSTRING_LEN);
	es = calloc(1, sizeof(*es) + (size_t)CTL_MAX_STATS * sizeof(uint64_t));
	st->names = calloc(n ? n : 1, sizeof(*st->names));
	st->values = calloc(n ? n : 1, sizeof(*st->values));
	if (!gs || !es || !st->names || !st->values)
		goto out;

	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	err = ctl_ethtool(fd, ifname, gs);
	if (err)
		goto out;
	es->cmd = ETHTOOL_GSTATS;
	es->n_stats = n;
	err = ctl_ethtool(fd, ifname, es);
	if (err)
		goto out;
	if (gs->len < n)
		n = gs->len;
	if (es->n_stats < n)
		n = es->n_stats;

	for (i = 0; i < n; i++) {
		memcpy(st->names[i], gs->data + (size_t)i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		st->names[i][ETH_GSTRING_LEN - 1] = '\0';
		st->values[i] = es->data[i];
	}
	st->n = n;
	err = 0;
out:
	if (err)
		ctl_ethtool_free(st);
	free(gs);
	free(es);
	close(fd);
	return err;
}

int ctl_ethtool_stat(const struct ctl_ethtool_stats *st, const char *name,
		     uint64_t *value)
{
	unsigned int i;

	for (i = 0; i < st->n; i++) {
		if (!strcmp(st->names[i], name)) {
			*value = st->values[i];
			return 0;
		}
	}
	return -1;
}

int ctl_ethtool_statf(const struct ctl_ethtool_stats *st, uint64_t *value,
		      const char *fmt, ...)
{
	char name[48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return ctl_ethtool_stat(st, name, value);
}

void ctl_ethtool_free(struct ctl_ethtool_stats *st)
{
	free(st->names);
	free(st->values);
	memset(st, 0, sizeof(*st));
}
