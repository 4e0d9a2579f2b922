// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysfs: read-only attributes under /sys/class/net/<dev>/drack/: who the
 * host is, which peers it can reach, and its Buffers per class. The same
 * Buffer counters as ethtool -S, for scripts that do not parse ethtool.
 */
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/sysfs.h>
#include "device.h"

static struct drack_dev *drack_sysfs_dev(struct device *dev)
{
	return netdev_priv(to_net_dev(dev));
}

static ssize_t host_id_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", drack_sysfs_dev(dev)->host);
}
static DEVICE_ATTR_RO(host_id);

static ssize_t pool_id_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", drack_sysfs_dev(dev)->pool->id);
}
static DEVICE_ATTR_RO(pool_id);

/* Host ids this host may send to now: up, with their interface running. */
static ssize_t peers_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct drack_dev *dd = drack_sysfs_dev(dev);
	int len = 0;
	u32 h;

	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host || !drack_host_reachable(dd->pool, h))
			continue;
		len += sysfs_emit_at(buf, len, "%s%u", len ? " " : "", h);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(peers);

/* Per Buffer class: one show function, the class and field in the attr. */
struct drack_class_snapshot {
	struct drack_class_counters c;
	u32 requested;
};

struct drack_class_attr {
	struct device_attribute attr;
	u32 buf_class;
	size_t field;		/* in struct drack_class_snapshot */
};

static ssize_t drack_class_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct drack_class_attr *ca = container_of(attr, struct drack_class_attr,
						   attr);
	struct drack_dev *dd = drack_sysfs_dev(dev);
	struct drack_class_snapshot s;

	drack_alloc_counters(&dd->alloc, ca->buf_class, &s.c);
	s.requested = READ_ONCE(dd->alloc.cls[ca->buf_class].requested);
	return sysfs_emit(buf, "%u\n", *(u32 *)((u8 *)&s + ca->field));
}

#define DRACK_CLASS_ATTR(_name, _class, _field)				\
	static struct drack_class_attr drack_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, drack_class_show, NULL),	\
		.buf_class = _class,					\
		.field = offsetof(struct drack_class_snapshot, _field),	\
	}

DRACK_CLASS_ATTR(buf2k_sections, DRACK_CLASS_2K, c.sections);
DRACK_CLASS_ATTR(buf2k_total, DRACK_CLASS_2K, c.total);
DRACK_CLASS_ATTR(buf2k_free, DRACK_CLASS_2K, c.free);
DRACK_CLASS_ATTR(buf2k_inflight, DRACK_CLASS_2K, c.inflight);
DRACK_CLASS_ATTR(buf2k_requested, DRACK_CLASS_2K, requested);
DRACK_CLASS_ATTR(buf64k_sections, DRACK_CLASS_64K, c.sections);
DRACK_CLASS_ATTR(buf64k_total, DRACK_CLASS_64K, c.total);
DRACK_CLASS_ATTR(buf64k_free, DRACK_CLASS_64K, c.free);
DRACK_CLASS_ATTR(buf64k_inflight, DRACK_CLASS_64K, c.inflight);
DRACK_CLASS_ATTR(buf64k_requested, DRACK_CLASS_64K, requested);

static struct attribute *drack_sysfs_attrs[] = {
	&dev_attr_host_id.attr,
	&dev_attr_pool_id.attr,
	&dev_attr_peers.attr,
	&drack_attr_buf2k_sections.attr.attr,
	&drack_attr_buf2k_total.attr.attr,
	&drack_attr_buf2k_free.attr.attr,
	&drack_attr_buf2k_inflight.attr.attr,
	&drack_attr_buf2k_requested.attr.attr,
	&drack_attr_buf64k_sections.attr.attr,
	&drack_attr_buf64k_total.attr.attr,
	&drack_attr_buf64k_free.attr.attr,
	&drack_attr_buf64k_inflight.attr.attr,
	&drack_attr_buf64k_requested.attr.attr,
	NULL,
};

const struct attribute_group drack_sysfs_group = {
	.name = "drack",
	.attrs = drack_sysfs_attrs,
};
