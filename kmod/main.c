// SPDX-License-Identifier: GPL-2.0-only
/*
 * drack: a rack of hosts sharing a memory pool, as one network.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/rtnetlink.h>
#include "device.h"
#include "netlink.h"
#include "pool.h"

static int __init drack_init(void)
{
	int err;

	err = drack_timers_module_init();
	if (err)
		return err;
	err = drack_nl_init();
	if (err)
		goto err_timers;
	err = drack_ram_init();
	if (err)
		goto err_nl;
	err = drack_ivshmem_init();
	if (err)
		goto err_ram;
	err = drack_phys_init();
	if (err)
		goto err_ivshmem;
	err = drack_nic_init();
	if (err)
		goto err_phys;
	err = rtnl_link_register(&drack_link_ops);
	if (err)
		goto err_nic;
	return 0;

err_nic:
	drack_nic_exit();
err_phys:
	drack_phys_exit();
err_ivshmem:
	drack_ivshmem_exit();
err_ram:
	drack_ram_exit();
err_nl:
	drack_nl_exit();
err_timers:
	drack_timers_module_exit();
	return err;
}

static void __exit drack_exit(void)
{
	rtnl_link_unregister(&drack_link_ops);
	drack_nic_exit();
	drack_phys_exit();
	drack_ivshmem_exit();
	drack_ram_exit();
	drack_nl_exit();
	drack_timers_module_exit();
}

module_init(drack_init);
module_exit(drack_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("drack: rack network over a shared memory pool");
MODULE_AUTHOR("The drack authors");
MODULE_ALIAS_RTNL_LINK("drack");
MODULE_ALIAS_GENL_FAMILY(DRACK_GENL_NAME);
