// SPDX-License-Identifier: LGPL-2.1-or-later
/* Printable names of uapi enums. */
#include "internal.h"

static const char *const dl_state_names[DRACK_HOST_NR_STATES] = {
	[DRACK_HOST_FREE]	= "free",
	[DRACK_HOST_JOINING]	= "joining",
	[DRACK_HOST_UP]		= "up",
	[DRACK_HOST_LEAVING]	= "leaving",
	[DRACK_HOST_DEAD]	= "dead",
};

static const char *const dl_class_names[DRACK_NR_CLASSES] = {
	[DRACK_CLASS_2K]	= "2k",
	[DRACK_CLASS_64K]	= "64k",
};

static const char *const dl_nic_state_names[DRACK_NIC_NR_STATES] = {
	[DRACK_NIC_FREE]	= "free",
	[DRACK_NIC_UP]		= "up",
	[DRACK_NIC_DOWN]	= "down",
};

const char *drack_host_state_name(uint32_t state)
{
	return state < DRACK_HOST_NR_STATES ? dl_state_names[state] : "?";
}

const char *drack_class_name(uint32_t buf_class)
{
	return buf_class < DRACK_NR_CLASSES ? dl_class_names[buf_class] : "?";
}

const char *drack_nic_state_name(uint32_t state)
{
	return state < DRACK_NIC_NR_STATES ? dl_nic_state_names[state] : "?";
}

static const char *const dl_carrier_reasons[DRACK_CARRIER_MAX + 1] = {
	[DRACK_CARRIER_OK]		= "none",
	[DRACK_CARRIER_NO_PEER]		= "no_peer",
	[DRACK_CARRIER_WAITING]		= "waiting",
	[DRACK_CARRIER_NO_FM]		= "no_fm",
	[DRACK_CARRIER_QUOTA]		= "quota",
	[DRACK_CARRIER_POOL_FULL]	= "pool_full",
	[DRACK_CARRIER_FENCED]		= "fenced",
};

const char *drack_carrier_reason_name(uint32_t why)
{
	return why <= DRACK_CARRIER_MAX ? dl_carrier_reasons[why] : "?";
}

_Static_assert(DRACK_STAT_MAX < DRACK_NR_STATS,
	       "struct drack_stats_info has room for every counter");

const char *drack_stat_name(uint32_t stat)
{
	return stat <= DRACK_STAT_MAX ? dl_stat_names[stat] : NULL;
}
