// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/drack.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/drack_genl.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>

/* Common nested types */
const struct nla_policy drack_host_req_nl_policy[DRACK_A_HOST_IFINDEX + 1] = {
	[DRACK_A_HOST_ID] = NLA_POLICY_MAX(NLA_U32, 63),
	[DRACK_A_HOST_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy drack_nic_req_nl_policy[DRACK_A_NIC_IFINDEX + 1] = {
	[DRACK_A_NIC_ID] = NLA_POLICY_MAX(NLA_U32, 15),
	[DRACK_A_NIC_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy drack_pool_req_nl_policy[DRACK_A_POOL_REGIONS + 1] = {
	[DRACK_A_POOL_ID] = { .type = NLA_U32, },
	[DRACK_A_POOL_MAX_HOSTS] = NLA_POLICY_RANGE(NLA_U32, 2, DRACK_MAX_HOSTS),
	[DRACK_A_POOL_REGIONS] = NLA_POLICY_RANGE(NLA_U32, 1, 16),
};

const struct nla_policy drack_section_req_nl_policy[DRACK_A_SECTION_CLASS + 1] = {
	[DRACK_A_SECTION_ID] = { .type = NLA_U32, },
	[DRACK_A_SECTION_CLASS] = NLA_POLICY_MAX(NLA_U32, 1),
};

const struct nla_policy drack_vnic_req_nl_policy[DRACK_A_VNIC_STEER + 1] = {
	[DRACK_A_VNIC_MAC] = NLA_POLICY_EXACT_LEN(6),
	[DRACK_A_VNIC_STEER] = NLA_POLICY_MAX(NLA_U32, 15),
};

/* Global operation policy for drack */
const struct nla_policy drack_nl_policy[DRACK_A_REFUSAL + 1] = {
	[DRACK_A_POOL] = NLA_POLICY_NESTED(drack_pool_req_nl_policy),
	[DRACK_A_HOST] = NLA_POLICY_NESTED(drack_host_req_nl_policy),
	[DRACK_A_SECTION] = NLA_POLICY_NESTED(drack_section_req_nl_policy),
	[DRACK_A_NIC] = NLA_POLICY_NESTED(drack_nic_req_nl_policy),
	[DRACK_A_VNIC] = NLA_POLICY_NESTED(drack_vnic_req_nl_policy),
	[DRACK_A_ASSIGN] = NLA_POLICY_MAX(NLA_U32, 1),
	[DRACK_A_REFUSAL] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
};

/* Ops table for drack */
const struct genl_small_ops drack_nl_ops[19] = {
	{
		.cmd	= DRACK_CMD_POOL_GET,
		.doit	= drack_nl_pool_get_doit,
		.dumpit	= drack_nl_pool_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_HOST_GET,
		.dumpit	= drack_nl_host_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_SECTION_GET,
		.dumpit	= drack_nl_section_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_SECTION_GRANT,
		.doit	= drack_nl_section_grant_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_SECTION_REVOKE,
		.doit	= drack_nl_section_revoke_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_HOST_FENCE,
		.doit	= drack_nl_host_fence_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_HOST_RECLAIM,
		.doit	= drack_nl_host_reclaim_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_FM_REGISTER,
		.doit	= drack_nl_fm_register_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_FM_UNREGISTER,
		.doit	= drack_nl_fm_unregister_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_POOL_FORMAT,
		.doit	= drack_nl_pool_format_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_PEER_GET,
		.dumpit	= drack_nl_peer_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_CLASS_GET,
		.dumpit	= drack_nl_class_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_STATS_GET,
		.dumpit	= drack_nl_stats_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_NIC_EXPORT,
		.doit	= drack_nl_nic_export_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_NIC_UNEXPORT,
		.doit	= drack_nl_nic_unexport_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_NIC_GET,
		.dumpit	= drack_nl_nic_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_NIC_ASSIGN,
		.doit	= drack_nl_nic_assign_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_SECTION_REFUSE,
		.doit	= drack_nl_section_refuse_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_NIC_STEER,
		.doit	= drack_nl_nic_steer_doit,
		.flags	= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group drack_nl_mcgrps[] = {
	[DRACK_NLGRP_EVENTS] = { "events", },
};
