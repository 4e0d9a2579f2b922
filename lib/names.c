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

static const char *const dl_stat_names[DRACK_STAT_MAX + 1] = {
	[DRACK_STAT_TX_PACKETS]		= "tx_packets",
	[DRACK_STAT_TX_BYTES]		= "tx_bytes",
	[DRACK_STAT_TX_REFS]		= "tx_refs",
	[DRACK_STAT_TX_BCAST]		= "tx_bcast",
	[DRACK_STAT_TX_RING_FULL]	= "tx_ring_full",
	[DRACK_STAT_TX_NO_BUFFER]	= "tx_no_buffer",
	[DRACK_STAT_TX_NO_PEER]		= "tx_no_peer",
	[DRACK_STAT_TX_DROPPED]		= "tx_dropped",
	[DRACK_STAT_TX_DOORBELLS]	= "tx_doorbells",
	[DRACK_STAT_TX_DOORBELLS_SUPPRESSED] = "tx_doorbells_suppressed",
	[DRACK_STAT_RX_PACKETS]		= "rx_packets",
	[DRACK_STAT_RX_BYTES]		= "rx_bytes",
	[DRACK_STAT_RX_REFS]		= "rx_refs",
	[DRACK_STAT_RX_BAD_DESC]	= "rx_bad_desc",
	[DRACK_STAT_RX_BAD_RING]	= "rx_bad_ring",
	[DRACK_STAT_RX_ALLOC_FAIL]	= "rx_alloc_fail",
	[DRACK_STAT_RX_DROPPED]		= "rx_dropped",
	[DRACK_STAT_RX_RET_OK]		= "rx_ret_ok",
	[DRACK_STAT_RX_RET_BAD]		= "rx_ret_bad",
	[DRACK_STAT_RX_RET_DOORBELLS]	= "rx_ret_doorbells",
	[DRACK_STAT_SECTION_REQUESTS]	= "section_requests",
	[DRACK_STAT_GRANTS]		= "grants",
	[DRACK_STAT_GRANT_BAD]		= "grant_bad",
	[DRACK_STAT_REVOKES]		= "revokes",
	[DRACK_STAT_PEERS_RELEASED]	= "peers_released",
	[DRACK_STAT_FENCED]		= "fenced",
};

/* A counter added to the uapi must get a name above. */
_Static_assert(DRACK_STAT_MAX == DRACK_STAT_FENCED,
	       "name every enum drack_stat in dl_stat_names");
_Static_assert(DRACK_STAT_MAX < DRACK_NR_STATS,
	       "struct drack_stats_info has room for every counter");

const char *drack_stat_name(uint32_t stat)
{
	return stat <= DRACK_STAT_MAX ? dl_stat_names[stat] : NULL;
}
