/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nl-keys.h: how the genl test and the netlink fuzzer name an attribute
 * of drack's nested family -- a key: its type at the top level, or
 * P(nest, type) for @type inside the top-level nest @nest (DRACK_A_HOST
 * ...); the type may include NLA_F_NESTED -- and the highest type of each
 * top-level nest's set (0: not a nest). Shared by tests/pool/genl and
 * tests/pool/nlfuzz.
 */
#ifndef DRACK_TESTS_NL_KEYS_H
#define DRACK_TESTS_NL_KEYS_H

#include <stdint.h>
#include "uapi/drack_genl.h"

#define P(nest, type)	((uint32_t)(nest) << 16 | (type))
#define KNEST(k)	((uint16_t)((k) >> 16))
#define KTYPE(k)	((uint16_t)((k) & 0xffff))
#define AP(x)		P(DRACK_A_POOL, DRACK_A_POOL_##x)
#define AH(x)		P(DRACK_A_HOST, DRACK_A_HOST_##x)
#define AS(x)		P(DRACK_A_SECTION, DRACK_A_SECTION_##x)
#define AC(x)		P(DRACK_A_CLASS, DRACK_A_CLASS_##x)
#define AR(x)		P(DRACK_A_PEER, DRACK_A_PEER_##x)
#define AN(x)		P(DRACK_A_NIC, DRACK_A_NIC_##x)
#define AV(x)		P(DRACK_A_VNIC, DRACK_A_VNIC_##x)

static const uint16_t nest_max[DRACK_A_MAX + 1] = {
	[DRACK_A_POOL] = DRACK_A_POOL_MAX, [DRACK_A_HOST] = DRACK_A_HOST_MAX,
	[DRACK_A_SECTION] = DRACK_A_SECTION_MAX,
	[DRACK_A_CLASS] = DRACK_A_CLASS_MAX, [DRACK_A_PEER] = DRACK_A_PEER_MAX,
	[DRACK_A_NIC] = DRACK_A_NIC_MAX, [DRACK_A_VNIC] = DRACK_A_VNIC_MAX,
	[DRACK_A_STATS] = DRACK_STAT_MAX,
};

#endif
