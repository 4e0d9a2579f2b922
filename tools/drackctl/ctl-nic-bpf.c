// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic policy: load the spreading programs with libbpf and attach
 * them to, detach them from and find them on the vNICs' tc egress hooks.
 *
 * The object (bpf/nic_policy.bpf.o) is part of drackctl itself, through
 * the skeleton `bpftool gen skeleton` makes of it (bpf/nic_policy.skel.h),
 * so the program always matches the drackctl that loads it. Nothing is pinned: a tc filter holds the program, the program
 * its maps. Our filter is the one with handle and priority
 * DRACK_POLICY_HANDLE/PRIO on the clsact egress hook, direct action.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include "ctl-nic-bpf.h"
#include "bpf/nic_policy.skel.h"

struct ctl_bpf {
	struct nic_policy *skel;
	int prog_fd;
};

static const char *const policy_names[] = {
	[CTL_POLICY_NONE] = "none",
	[CTL_POLICY_MPTCP] = "mptcp",
	[CTL_POLICY_ECMP] = "ecmp",
	[CTL_POLICY_SPRAY] = "spray",
	[CTL_POLICY_OTHER] = "other",
};

const char *ctl_policy_name(enum ctl_policy p)
{
	return (unsigned int)p < sizeof(policy_names) / sizeof(policy_names[0]) ?
	       policy_names[p] : "?";
}

static const char *prog_name(enum ctl_policy p)
{
	return p == CTL_POLICY_ECMP ? "drack_ecmp" :
	       p == CTL_POLICY_SPRAY ? "drack_spray" : NULL;
}

/* Looking for our filter: "not found" is an answer, not a warning. */
static bool bpf_quiet;

/* libbpf's warnings (why a load failed, the verifier's log); no chatter */
static int bpf_print(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	if (level != LIBBPF_WARN || bpf_quiet)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void bpf_init(void)
{
	static bool done;

	if (!done)
		libbpf_set_print(bpf_print);
	done = true;
}

struct ctl_bpf *ctl_bpf_load(enum ctl_policy policy,
			     const struct drack_policy_conf *conf, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .object_name = "drack_nic_policy");
	struct bpf_program *mine, *other;
	struct ctl_bpf *b;
	__u32 zero = 0;

	*err = -EINVAL;
	if (policy != CTL_POLICY_ECMP && policy != CTL_POLICY_SPRAY)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	bpf_init();
	b->skel = nic_policy__open_opts(&opts);
	if (!b->skel) {
		*err = -errno;
		free(b);
		return NULL;
	}
	mine = policy == CTL_POLICY_ECMP ? b->skel->progs.drack_ecmp :
					   b->skel->progs.drack_spray;
	other = policy == CTL_POLICY_ECMP ? b->skel->progs.drack_spray :
					    b->skel->progs.drack_ecmp;
	bpf_program__set_autoload(other, false);
	*err = nic_policy__load(b->skel);
	if (*err)
		goto fail;
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.drack_vnics), &zero,
				conf, BPF_ANY)) {
		*err = -errno;
		goto fail;
	}
	b->prog_fd = bpf_program__fd(mine);
	return b;
fail:
	ctl_bpf_close(b);
	return NULL;
}

void ctl_bpf_close(struct ctl_bpf *b)
{
	if (!b)
		return;
	nic_policy__destroy(b->skel);
	free(b);
}

int ctl_bpf_attach(struct ctl_bpf *b, int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = DRACK_POLICY_HANDLE,
		    .priority = DRACK_POLICY_PRIO, .prog_fd = b->prog_fd,
		    .flags = BPF_TC_F_REPLACE);
	int err;

	bpf_init();
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	return bpf_tc_attach(&hook, &opts);
}

/* The program at our handle: its id, 0 if none, or -errno. */
static int query_id(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = DRACK_POLICY_HANDLE,
		    .priority = DRACK_POLICY_PRIO);
	int err;

	bpf_init();
	bpf_quiet = true;
	err = bpf_tc_query(&hook, &opts);
	bpf_quiet = false;
	/* no such filter; no clsact qdisc ("Parent Qdisc doesn't exists") */
	if (err == -ENOENT || err == -EINVAL)
		return 0;
	return err ? err : (int)opts.prog_id;
}

int ctl_bpf_detach(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = DRACK_POLICY_HANDLE,
		    .priority = DRACK_POLICY_PRIO);
	int err = query_id(ifindex);

	if (err <= 0)
		return err;
	bpf_init();
	err = bpf_tc_detach(&hook, &opts);
	return err == -ENOENT ? 0 : err ? err : 1;
}

static int count_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	++*(int *)arg;
	return NL_OK;
}

/* The filters under clsact parent @parent of @ifindex: count or -errno. */
static int tc_filters(int ifindex, uint32_t parent)
{
	struct tcmsg t = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = ifindex,
		.tcm_parent = parent,
	};
	struct nl_sock *sk = nl_socket_alloc();
	int n = 0, err;

	if (!sk)
		return -ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (!err)
		err = nl_send_simple(sk, RTM_GETTFILTER, NLM_F_DUMP, &t,
				     sizeof(t));
	if (err >= 0)
		err = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM,
					  count_cb, &n);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	nl_socket_free(sk);
	return err < 0 ? -EIO : n;
}

int ctl_bpf_tidy(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	int in, out;

	in = tc_filters(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS));
	out = tc_filters(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS));
	if (in < 0 || out < 0)
		return in < 0 ? in : out;
	if (in || out)
		return 0;		/* somebody else's filters */
	bpf_init();
	return bpf_tc_hook_destroy(&hook);
}

/* The policy map of program @fd into @info->conf, if it has one. */
static void query_conf(int fd, struct ctl_bpf_info *info)
{
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	__u32 ids[8], len, i, zero = 0;
	int mfd;

	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	pi.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(fd, &pi, &len))
		return;
	for (i = 0; i < pi.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		mfd = bpf_map_get_fd_by_id(ids[i]);
		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &len) &&
		    !strcmp(mi.name, "drack_vnics") &&
		    mi.value_size == sizeof(info->conf) &&
		    !bpf_map_lookup_elem(mfd, &zero, &info->conf))
			info->have_conf = info->conf.nr <= DRACK_POLICY_MAX;
		close(mfd);
	}
}

int ctl_bpf_query(int ifindex, struct ctl_bpf_info *info)
{
	struct bpf_prog_info pi;
	__u32 len = sizeof(pi);
	int id, fd;

	memset(info, 0, sizeof(*info));
	id = query_id(ifindex);
	if (id <= 0)
		return id;
	info->prog_id = (uint32_t)id;
	info->policy = CTL_POLICY_OTHER;
	fd = bpf_prog_get_fd_by_id(info->prog_id);
	if (fd < 0)		/* gone meanwhile, or not root */
		return errno == ENOENT ? 0 : -errno;
	memset(&pi, 0, sizeof(pi));
	if (!bpf_obj_get_info_by_fd(fd, &pi, &len)) {
		snprintf(info->name, sizeof(info->name), "%s", pi.name);
		if (!strcmp(pi.name, prog_name(CTL_POLICY_ECMP)))
			info->policy = CTL_POLICY_ECMP;
		else if (!strcmp(pi.name, prog_name(CTL_POLICY_SPRAY)))
			info->policy = CTL_POLICY_SPRAY;
		if (info->policy != CTL_POLICY_OTHER)
			query_conf(fd, info);
	}
	close(fd);
	return 1;
}
