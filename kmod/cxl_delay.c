// SPDX-License-Identifier: GPL-2.0-only
/*
 * pool_delay_ns: the CXL latency emulation of cxl_delay.h. Writable at
 * run time (/sys/module/drack/parameters/pool_delay_ns) so a benchmark
 * can sweep it without reloading the module; above
 * DRACK_POOL_DELAY_MAX_NS is refused and changes nothing.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include "cxl_delay.h"

unsigned int drack_pool_delay_ns;

static int drack_pool_delay_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ns;
	int err = kstrtouint(val, 0, &ns);

	if (err)
		return err;
	if (ns > DRACK_POOL_DELAY_MAX_NS)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, ns);
	return 0;
}

static const struct kernel_param_ops drack_pool_delay_ops = {
	.set = drack_pool_delay_set,
	.get = param_get_uint,
};

module_param_cb(pool_delay_ns, &drack_pool_delay_ops, &drack_pool_delay_ns,
		0644);
MODULE_PARM_DESC(pool_delay_ns,
		 "CXL latency emulation: ns of delay per pool access batch (NAPI poll, doorbell batch), 0-1000, default 0");
