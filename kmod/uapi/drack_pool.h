/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * drack: the pool format, the on-media layout shared with other kernels.
 *
 * The format layer: one header for the kernel, libdrack, the tools and the
 * tests, with the pure layout helpers. The pool is shared with other
 * kernels, so everything in it is little endian, is addressed by offset
 * from the pool base and must be validated by readers.
 * Documentation/pool-format.rst describes the layout in prose.
 */
#ifndef _UAPI_DRACK_POOL_H
#define _UAPI_DRACK_POOL_H

#include <linux/types.h>
#include <linux/virtio_net.h>

/* ---------------------------------------------------------------- */
/* Pool format, version 3 (2: one ref_queue per pair; 1: no NIC pool) */
/* ---------------------------------------------------------------- */

#define DRACK_POOL_MAGIC	0x314c4f4f504b5244ULL	/* "DRKPOOL1" */
#define DRACK_POOL_VERSION	3
#define DRACK_POOL_VERSION_MIN	1	/* still adopted: max_nics is 0 */

/* ref_queues per (destination, source) pair a pool may have. */
#define DRACK_MAX_QUEUES	8

#define DRACK_SECTION_SHIFT	21			/* 2 MB Sections */
#define DRACK_SECTION_SIZE	(1U << DRACK_SECTION_SHIFT)
#define DRACK_CACHELINE		64
#define DRACK_META_ALIGN	4096

#define DRACK_MAX_HOSTS		64	/* format limit; a pool has fewer */
#define DRACK_MIN_POOL_SIZE	(4U * DRACK_SECTION_SIZE)

/* Buffer size classes: a Section holds Buffers of one class. */
enum drack_buf_class {
	DRACK_CLASS_2K,		/* one MTU-sized frame */
	DRACK_CLASS_64K,	/* a GSO packet or a jumbo frame */
	DRACK_NR_CLASSES,
};

#define DRACK_CLASS_SHIFT(c)	((c) == DRACK_CLASS_2K ? 11 : 16)
#define DRACK_CLASS_SIZE(c)	(1U << DRACK_CLASS_SHIFT(c))
#define DRACK_MAX_FRAME		DRACK_CLASS_SIZE(DRACK_CLASS_64K)

/* Section owners besides host ids. */
#define DRACK_SECTION_FREE	0xffff	/* the fabric manager may grant it */
#define DRACK_SECTION_META	0xfffe	/* superblock, tables, ring areas */

enum drack_host_state {
	DRACK_HOST_FREE,	/* slot unused */
	DRACK_HOST_JOINING,	/* resetting its rings */
	DRACK_HOST_UP,		/* member of the rack */
	DRACK_HOST_LEAVING,	/* draining, returning Buffers */
	DRACK_HOST_DEAD,	/* fenced by the fabric manager */
	DRACK_HOST_NR_STATES,
};

#define DRACK_HOST_F_RUNNING	(1U << 0)	/* interface is up: send to it */

/* Offset 0 of every pool. Written once by whoever formats the pool. */
struct drack_superblock {
	__le64 magic;
	__le32 version;
	__le32 sb_size;			/* sizeof(struct drack_superblock) */
	__le64 pool_size;		/* bytes, a multiple of the Section size */
	__le32 section_shift;
	__le32 section_count;
	__le32 meta_sections;		/* Sections [0, meta) hold metadata */
	__le32 max_hosts;
	__le32 ref_ring_entries;	/* power of two */
	__le32 ret_ring_entries;	/* power of two */
	__le32 grant_ring_entries;	/* power of two */
	__le32 pool_id;
	__le64 host_table_off;
	__le64 section_table_off;
	__le64 host_area_off;
	__le64 host_area_size;		/* bytes per host */
	__le64 fm_epoch;		/* bumped by every registering FM */
	__le32 regions;			/* memory devices interleaved, >= 1 */
	__le32 max_nics;		/* NIC table entries, version 2 */
	__le64 nic_table_off;
	__le64 nic_area_off;
	__le64 nic_area_size;		/* bytes per NIC */
	__le32 vq_ring_entries;		/* power of two */
	__le32 ref_queues;		/* per pair, version 3; read as 1 before */
	__le64 reserved;
};

/*
 * Why the fabric manager did not grant a host's request (the host
 * entry's @refused). Written by the FM's kernel, cleared by its grants.
 */
enum drack_refusal {
	DRACK_REFUSED_NONE,	/* no refusal since the last grant */
	DRACK_REFUSED_QUOTA,	/* the host owns its quota of Sections */
	DRACK_REFUSED_POOL_FULL, /* no free Section left */
	DRACK_REFUSED_NR,
};

/*
 * One per host id, DRACK_CACHELINE bytes. Written by that host, but for
 * @refused (the FM's kernel) and the state changes of a fence or reclaim.
 */
struct drack_host_entry {
	__le32 state;			/* enum drack_host_state */
	__le32 flags;			/* DRACK_HOST_F_* */
	__le64 heartbeat;		/* bumped periodically while UP */
	__le32 generation;		/* bumped at every join */
	__le32 sections_wanted[DRACK_NR_CLASSES]; /* 1: request pending */
	__le16 notify;			/* backend doorbell id */
	__u8 mac[6];
	__le32 buffers_free[DRACK_NR_CLASSES]; /* published with heartbeat */
	__le32 refused;			/* enum drack_refusal */
	__le64 released;		/* bit p: holds nothing of DEAD host p */
	__le32 lend_cap_kb;		/* Buffers one peer may hold, per class */
	/* Sections it lends Buffers from, per class (0: not said) */
	__le16 lend_sections[DRACK_NR_CLASSES];
};

/*
 * One per Section, 16 bytes. Granted by the fabric manager; a host that
 * leaves, or gives back a revoked Section, writes it back to
 * DRACK_SECTION_FREE; the FM frees the Sections of a host it fenced.
 */
struct drack_section_entry {
	__le16 owner;			/* host id or DRACK_SECTION_* */
	__u8 buf_class;			/* enum drack_buf_class */
	__u8 flags;
	__le32 generation;		/* bumped at every grant */
	__le64 reserved;
};

#define DRACK_SECTION_F_REVOKE	(1U << 0)	/* FM wants it back */

/*
 * Single-producer single-consumer ring. Indexes run freely and are masked
 * with (entries - 1); producer and consumer fields live on their own cache
 * lines. The consumer stores in @event the index after which it wants a
 * doorbell (the virtio event-index scheme); the producer rings only when
 * it moves prod past it. In the TX ring of virt_queue block (n, h), host
 * h publishes in @bytes, with its heartbeat, what its vNIC n sent so far
 * through whichever NIC: its demand, for the fabric manager's scheduling.
 * 0 elsewhere.
 */
struct drack_ring_hdr {
	__le32 prod;
	__le32 reserved;
	__le64 bytes;			/* virt_queue TX: the vNIC's bytes sent */
	__u8 pad0[DRACK_CACHELINE - 16];
	__le32 cons;
	__le32 event;
	__u8 pad1[DRACK_CACHELINE - 8];
};

/* A reference to a packet: ref_queue[src] of the destination host. */
struct drack_ref {
	__le64 off;			/* Buffer offset from the pool base */
	__le32 len;			/* frame length in bytes */
	__le16 src;			/* sending host, also the Buffer owner */
	__le16 flags;			/* DRACK_REF_F_* */
	struct virtio_net_hdr vnet;	/* GSO and checksum, little endian */
	__u8 reserved[6];
};

#define DRACK_REF_F_BCAST	(1U << 0)	/* copy of a broadcast frame */
#define DRACK_REF_F_SCARCE	(1U << 1)	/* sender short: copy, do not hold */

/* A Buffer handed back to its owner: ret_ring[returner] of the owner. */
struct drack_ret {
	__le64 off;
};

/* A Section granted to a host: the host's grant ring. */
struct drack_grant {
	__le32 section;
	__le32 generation;
};

/* ---------------------------------------------------------------- */
/* The NIC pool (version 2)                                          */
/* ---------------------------------------------------------------- */

#define DRACK_MAX_NICS		16	/* format limit */

enum drack_nic_state {
	DRACK_NIC_FREE,		/* entry unused */
	DRACK_NIC_UP,		/* exported, link up: vNICs may use it */
	DRACK_NIC_DOWN,		/* exported, link down: vNICs fail over */
	DRACK_NIC_NR_STATES,
};

/*
 * One per NIC slot, DRACK_CACHELINE bytes. Claimed and written by the
 * owner, except @assigned, which the fabric manager writes. The owner
 * publishes its load with its heartbeat (the FM's queue-depth view).
 */
struct drack_nic_entry {
	__le32 state;			/* enum drack_nic_state */
	__le16 owner;			/* host id of the exporting host */
	__u8 mac[6];			/* of the physical NIC */
	__le32 generation;		/* bumped at every export */
	__le32 rate_mbps;		/* link speed, 0: unknown */
	__le32 queue_depth;		/* TX entries waiting, all hosts */
	__le64 assigned;		/* bit h: host h has a vNIC (FM) */
	__le64 tx_bytes;		/* vNIC frames sent on the wire */
	__le64 rx_bytes;		/* wire frames handed to vNICs */
	__le64 drops;			/* frames the owner dropped */
	__le64 wire_tx_bytes;		/* all the NIC sent, the owner's too */
};

/*
 * Per (NIC n, host h), first in the pair's virt_queue block. Written by
 * h except @mac, @flushed and @drops. @vnics says which of h's vNICs NIC
 * n serves: its own one (bit n) and, after a failover, others. @mac is
 * the MAC of h's vNIC number n, whatever NIC serves it: the fabric
 * manager's kernel writes it before it assigns NIC n to h (it must be
 * drack_vnic_mac_ok(), else drack_vnic_mac() stands). @mc_filter is the
 * multicast filter of h's vNIC n (bit drack_mc_hash(group); all ones:
 * allmulti). h bumps @seq at every attach; the owner stores in @flushed
 * the @seq it served once it no longer touches h's Buffers (h detached,
 * or the NIC was unexported), and in @drops what it dropped of h's
 * frames on NIC n (enum drack_vq_drop). @steer, written by the fabric
 * manager's kernel: 0, h's vNIC n goes through NIC n; m + 1, through NIC
 * m while m is usable (its scheduling policy's choice).
 */
struct drack_vq_ctl {
	__le32 attached;		/* NIC generation h uses, 0: none */
	__le32 flags;			/* DRACK_VQ_F_* */
	__le64 vnics;			/* bit v: h's vNIC v goes through n */
	__u8 mac[6];			/* FM: MAC of h's vNIC n */
	__le16 steer;			/* FM: NIC to carry h's vNIC n + 1 */
	__le32 flushed;			/* owner: @seq it let go of */
	__le32 seq;			/* h: attach counter */
	__le64 mc_filter[2];		/* h: multicast groups of vNIC n */
	__le32 drops[4];		/* owner of n: enum drack_vq_drop */
};

#define DRACK_VQ_F_TX_WAIT	(1U << 0)	/* kick h when TX has room */

/* What the owner of a NIC drops of a host's frames, counted in @drops. */
enum drack_vq_drop {
	DRACK_VQ_DROP_SPOOFED,	/* source MAC not the vNIC's */
	DRACK_VQ_DROP_OVERSIZE,	/* longer than the NIC's MTU allows */
	DRACK_VQ_DROP_LINK_LOCAL, /* pause, STP, LLDP: the owner's business */
	DRACK_VQ_DROP_FILTERED,	/* multicast no vNIC of h subscribed to */
	DRACK_VQ_DROP_NR,
};

/* Bit of a multicast group in @mc_filter: the top 7 bits of its CRC. */
static inline __u32 drack_mc_hash(const __u8 mac[6])
{
	__u32 crc = 0xffffffff;
	int i, b;

	for (i = 0; i < 6; i++)
		for (b = 0; b < 8; b++) {
			__u32 bit = ((mac[i] >> b) ^ crc) & 1;

			crc >>= 1;
			if (bit)
				crc ^= 0xedb88320;
		}
	return crc >> 25;
}

/* ---------------------------------------------------------------- */
/* Layout arithmetic shared by every reader and writer of a pool    */
/* ---------------------------------------------------------------- */

/* Native-endian, validated copy of the superblock geometry. */
struct drack_geometry {
	__u64 pool_size;
	__u32 section_count;
	__u32 meta_sections;
	__u32 max_hosts;
	__u32 ref_queues;		/* ref_queues per pair */
	__u32 ref_ring_entries;		/* entries of each */
	__u32 ret_ring_entries;
	__u32 grant_ring_entries;
	__u64 host_table_off;
	__u64 section_table_off;
	__u64 host_area_off;
	__u64 host_area_size;
	__u32 max_nics;
	__u32 vq_ring_entries;
	__u64 nic_table_off;
	__u64 nic_area_off;
	__u64 nic_area_size;
};

static inline __u64 drack_align(__u64 v, __u64 a)
{
	return (v + a - 1) & ~(a - 1);
}

static inline __u64 drack_ring_bytes(__u32 entries, __u32 entry_size)
{
	return drack_align(sizeof(struct drack_ring_hdr) +
			   (__u64)entries * entry_size, DRACK_CACHELINE);
}

/*
 * Lay out a pool of @pool_size bytes for @max_hosts hosts, @ref_queues
 * ref_queues of @ref_entries each per pair. Returns 0, or -1 when the
 * metadata would not leave a single data Section.
 */
static inline int drack_layout(struct drack_geometry *g, __u64 pool_size,
			       __u32 max_hosts, __u32 ref_queues,
			       __u32 ref_entries, __u32 ret_entries,
			       __u32 grant_entries)
{
	__u64 per_host, meta_end;

	g->pool_size = pool_size & ~((__u64)DRACK_SECTION_SIZE - 1);
	g->section_count = (__u32)(g->pool_size >> DRACK_SECTION_SHIFT);
	g->max_hosts = max_hosts;
	g->ref_queues = ref_queues;
	g->ref_ring_entries = ref_entries;
	g->ret_ring_entries = ret_entries;
	g->grant_ring_entries = grant_entries;
	g->host_table_off = DRACK_META_ALIGN;
	g->section_table_off = drack_align(g->host_table_off +
			(__u64)max_hosts * sizeof(struct drack_host_entry),
			DRACK_META_ALIGN);
	g->host_area_off = drack_align(g->section_table_off +
			(__u64)g->section_count *
			sizeof(struct drack_section_entry), DRACK_META_ALIGN);
	per_host = (__u64)max_hosts * ref_queues *
		   drack_ring_bytes(ref_entries, sizeof(struct drack_ref)) +
		   (__u64)max_hosts *
		   drack_ring_bytes(ret_entries, sizeof(struct drack_ret)) +
		   drack_ring_bytes(grant_entries, sizeof(struct drack_grant));
	g->host_area_size = drack_align(per_host, DRACK_META_ALIGN);
	meta_end = g->host_area_off + (__u64)max_hosts * g->host_area_size;
	g->max_nics = 0;
	g->vq_ring_entries = 0;
	g->nic_table_off = meta_end;
	g->nic_area_off = meta_end;
	g->nic_area_size = 0;
	g->meta_sections = (__u32)((meta_end + DRACK_SECTION_SIZE - 1) >>
				   DRACK_SECTION_SHIFT);
	return g->meta_sections < g->section_count ? 0 : -1;
}

/* Bytes of one (NIC, host) virt_queue block: control, TX, RX post, RX done. */
static inline __u64 drack_vq_bytes(__u32 entries)
{
	return sizeof(struct drack_vq_ctl) +
	       drack_ring_bytes(entries, sizeof(struct drack_ref)) +
	       drack_ring_bytes(entries, sizeof(struct drack_ret)) +
	       drack_ring_bytes(entries, sizeof(struct drack_ref));
}

/*
 * Version 2: add a NIC table of @max_nics entries and their virt_queues
 * after the host areas of a geometry from drack_layout(). Returns 0, or
 * -1 when the metadata would not leave a single data Section.
 */
static inline int drack_layout_nics(struct drack_geometry *g, __u32 max_nics,
				    __u32 vq_entries)
{
	__u64 meta_end = g->host_area_off +
			 (__u64)g->max_hosts * g->host_area_size;

	g->max_nics = max_nics;
	g->vq_ring_entries = max_nics ? vq_entries : 0;
	g->nic_table_off = drack_align(meta_end, DRACK_META_ALIGN);
	g->nic_area_off = drack_align(g->nic_table_off + (__u64)max_nics *
				      sizeof(struct drack_nic_entry),
				      DRACK_META_ALIGN);
	g->nic_area_size = max_nics ?
		drack_align((__u64)g->max_hosts * drack_vq_bytes(vq_entries),
			    DRACK_META_ALIGN) : 0;
	if (max_nics)
		meta_end = g->nic_area_off + (__u64)max_nics * g->nic_area_size;
	g->meta_sections = (__u32)((meta_end + DRACK_SECTION_SIZE - 1) >>
				   DRACK_SECTION_SHIFT);
	return g->meta_sections < g->section_count ? 0 : -1;
}

static inline __u64 drack_nic_entry_off(const struct drack_geometry *g,
					__u32 nic)
{
	return g->nic_table_off + (__u64)nic * sizeof(struct drack_nic_entry);
}

/* Pool offset of the virt_queue block of (@nic, @host). */
static inline __u64 drack_vq_off(const struct drack_geometry *g, __u32 nic,
				 __u32 host)
{
	return g->nic_area_off + (__u64)nic * g->nic_area_size +
	       (__u64)host * drack_vq_bytes(g->vq_ring_entries);
}

/* The three rings of a block follow its control line in this order. */
static inline __u64 drack_vq_tx_off(const struct drack_geometry *g,
				    __u32 nic, __u32 host)
{
	return drack_vq_off(g, nic, host) + sizeof(struct drack_vq_ctl);
}

static inline __u64 drack_vq_post_off(const struct drack_geometry *g,
				      __u32 nic, __u32 host)
{
	return drack_vq_tx_off(g, nic, host) +
	       drack_ring_bytes(g->vq_ring_entries, sizeof(struct drack_ref));
}

static inline __u64 drack_vq_done_off(const struct drack_geometry *g,
				      __u32 nic, __u32 host)
{
	return drack_vq_post_off(g, nic, host) +
	       drack_ring_bytes(g->vq_ring_entries, sizeof(struct drack_ret));
}

/* Pool offset of ref_queue[src][q] in host @dst's area. */
static inline __u64 drack_ref_ring_off(const struct drack_geometry *g,
				       __u32 dst, __u32 src, __u32 q)
{
	return g->host_area_off + (__u64)dst * g->host_area_size +
	       ((__u64)src * g->ref_queues + q) *
	       drack_ring_bytes(g->ref_ring_entries, sizeof(struct drack_ref));
}

/* Pool offset of the ring on which @from returns Buffers to @owner. */
static inline __u64 drack_ret_ring_off(const struct drack_geometry *g,
				       __u32 owner, __u32 from)
{
	return g->host_area_off + (__u64)owner * g->host_area_size +
	       (__u64)g->max_hosts * g->ref_queues *
	       drack_ring_bytes(g->ref_ring_entries, sizeof(struct drack_ref)) +
	       (__u64)from *
	       drack_ring_bytes(g->ret_ring_entries, sizeof(struct drack_ret));
}

/* Pool offset of host @host's grant ring. */
static inline __u64 drack_grant_ring_off(const struct drack_geometry *g,
					 __u32 host)
{
	return drack_ret_ring_off(g, host, g->max_hosts);
}

static inline __u64 drack_host_entry_off(const struct drack_geometry *g,
					 __u32 host)
{
	return g->host_table_off +
	       (__u64)host * sizeof(struct drack_host_entry);
}

static inline __u64 drack_section_entry_off(const struct drack_geometry *g,
					    __u32 section)
{
	return g->section_table_off +
	       (__u64)section * sizeof(struct drack_section_entry);
}

/*
 * Pages by Section. A host that gives the pool struct pages backs the
 * upper half of each Region with 64 KB compound pages and the lower half
 * with single pages. A 64 KB Buffer received by reference is then one
 * page: one frag, one page reference, one copy into the reader. 2 KB
 * Buffers stay on single pages, where each goes back to its owner on its
 * own, not with the 31 others of a compound page. The FM grants 64 KB
 * Sections from the upper halves first and 2 KB ones from the lower
 * halves. This is a hint for speed only: any Section holds either class.
 */
static inline int drack_section_large_pages(__u32 section_count,
					    __u32 regions, __u32 section)
{
	if (!regions || section >= section_count)
		return 0;
	return (int)(((__u64)section * regions * 2 / section_count) & 1);
}

/*
 * Memory device (Region) a Section lives on: the pool is @regions equal
 * stretches, one per device it interleaves.
 */
static inline __u32 drack_section_region(const struct drack_geometry *g,
					 __u32 regions, __u32 section)
{
	if (!regions || section >= g->section_count)
		return 0;
	return (__u32)(((__u64)section * regions) / g->section_count);
}

/* MAC address of a host: 02:44:52 ("DR", locally administered), pool, id. */
static inline void drack_host_mac(__u8 mac[6], __u32 pool_id, __u32 host)
{
	mac[0] = 0x02;
	mac[1] = 0x44;
	mac[2] = 0x52;
	mac[3] = (__u8)pool_id;
	mac[4] = (__u8)(host >> 8);
	mac[5] = (__u8)host;
}

/*
 * MAC address of host @host's vNIC of NIC @nic in rack @rack, as the
 * fabric manager assigns it: 02:44:4e ("DN", locally administered),
 * rack (drack-fmd's vnic-mac-rack, by default the pool id), host, NIC.
 */
static inline void drack_vnic_mac(__u8 mac[6], __u32 rack, __u32 host,
				  __u32 nic)
{
	mac[0] = 0x02;
	mac[1] = 0x44;
	mac[2] = 0x4e;
	mac[3] = (__u8)rack;
	mac[4] = (__u8)host;
	mac[5] = (__u8)nic;
}

/*
 * Can @mac be a vNIC MAC of @host? The fabric manager chooses bytes 3
 * and 5; byte 4 is the host, so that what a host writes into the pool
 * (which nothing stops it from doing) never gives it the MAC of another
 * host of the rack, nor one that is not a drack vNIC's.
 */
static inline int drack_vnic_mac_ok(const __u8 mac[6], __u32 host)
{
	return mac[0] == 0x02 && mac[1] == 0x44 && mac[2] == 0x4e &&
	       mac[4] == (__u8)host;
}

#endif /* _UAPI_DRACK_POOL_H */
