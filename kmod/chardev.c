// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/drack_poolN: the raw pool, mmap-able by root, for the fabric
 * manager, inspection and fault-injection tests.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include "pool.h"

static struct drack_pool *drack_chardev_pool(struct file *file)
{
	struct miscdevice *misc = file->private_data;

	return container_of(misc, struct drack_pool, misc);
}

static int drack_chardev_open(struct inode *inode, struct file *file)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

static int drack_chardev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct drack_pool *pool = drack_chardev_pool(file);
	u64 len = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (off > pool->geo.pool_size || len > pool->geo.pool_size - off)
		return -EINVAL;
	return pool->ops->mmap(pool, vma);
}

static const struct file_operations drack_chardev_fops = {
	.owner = THIS_MODULE,
	.open = drack_chardev_open,
	.mmap = drack_chardev_mmap,
	.llseek = noop_llseek,
};

int drack_chardev_register(struct drack_pool *pool)
{
	snprintf(pool->misc_name, sizeof(pool->misc_name), "drack_pool%u",
		 pool->id);
	pool->misc.minor = MISC_DYNAMIC_MINOR;
	pool->misc.name = pool->misc_name;
	pool->misc.fops = &drack_chardev_fops;
	pool->misc.mode = 0600;
	return misc_register(&pool->misc);
}

void drack_chardev_unregister(struct drack_pool *pool)
{
	misc_deregister(&pool->misc);
}
