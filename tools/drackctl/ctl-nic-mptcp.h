/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drackctl nic mptcp: the MPTCP endpoints as `ip -j mptcp endpoint show`
 * lists them, shared by ctl-nic-mptcp.c (on, off, show) and
 * ctl-nic-mptcp-backup.c (backup, follow).
 */
#ifndef _DRACKCTL_NIC_MPTCP_H
#define _DRACKCTL_NIC_MPTCP_H

#include <ifaddrs.h>
#include <stdbool.h>
#include <stdio.h>
#include <net/if.h>
#include <netinet/in.h>
#include "ctl.h"

#define MP_ARGS		12	/* the longest ip command line, NULL included */

struct mp_addr {
	int family;			/* AF_INET, AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} a;
	unsigned int id;
	bool signal, subflow, backup, fullmesh;
	char dev[IF_NAMESIZE];		/* empty: no device */
};

struct mp {
	struct mp_addr *ep;		/* the endpoints, after mp_dump() */
	int nep;
};

/* Does the kernel have MPTCP (in this network namespace)? */
bool mp_present(void);
/* Every MPTCP endpoint of this network namespace into m->ep. */
int mp_dump(struct mp *m);
const char *mp_ntop(const struct mp_addr *a, char *buf, size_t len);
/* The vNIC of @vs endpoint @a is on, or NULL. */
const struct ctl_vnic *mp_ep_vnic(const struct ctl_vnics *vs,
				  const struct mp_addr *a, struct ifaddrs *ifa);
/* "nic mptcp backup ..." (!@follow) and "nic mptcp follow ...". */
int mp_backup_cmd(int argc, char **argv, bool follow,
		  void (*usage)(FILE *out));

#endif /* _DRACKCTL_NIC_MPTCP_H */
