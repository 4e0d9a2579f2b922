/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CXL latency emulation (pool_delay_ns): an emulated pool is host DRAM,
 * far faster than memory behind a CXL switch. The delay stands in for
 * the extra latency of one pool access batch: paid once per NAPI poll
 * and once per transmit doorbell batch, not per byte, not per frame.
 * Emulation for measurements only (Documentation/evaluation.rst); 0, the
 * default, costs one load and a branch.
 */
#ifndef DRACK_CXL_DELAY_H
#define DRACK_CXL_DELAY_H

#include <linux/compiler.h>
#include <linux/delay.h>

#define DRACK_POOL_DELAY_MAX_NS	1000

extern unsigned int drack_pool_delay_ns;

static inline void drack_cxl_delay(void)
{
	unsigned int ns = READ_ONCE(drack_pool_delay_ns);

	if (unlikely(ns))
		ndelay(ns);
}

#endif
