/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drack-fmd internals: logging, configuration, pool snapshots, the grant
 * policy, Section reclaim, host health and the NIC pool.
 */
#ifndef _DRACK_FMD_H
#define _DRACK_FMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <drack/drack.h>
#include "uapi/drack.h"

#define FMD_VERSION	"0.2"
#define FMD_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- fmd-log.c ---- */
enum fmd_level { FMD_ERR, FMD_WARN, FMD_INFO, FMD_DEBUG };

extern enum fmd_level fmd_log_level;	/* from the configuration */

void fmd_log_syslog(void);	/* after daemonizing */
void fmd_log(enum fmd_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define fmd_err(...)	fmd_log(FMD_ERR, __VA_ARGS__)
#define fmd_warn(...)	fmd_log(FMD_WARN, __VA_ARGS__)
#define fmd_info(...)	fmd_log(FMD_INFO, __VA_ARGS__)
/* only with log-level = debug (-v) */
#define fmd_dbg(...)	fmd_log(FMD_DEBUG, __VA_ARGS__)

uint64_t fmd_now_ms(void);	/* CLOCK_MONOTONIC */

/* ---- fmd-conf.c: /etc/drack/fmd.conf and the command line ---- */
#define FMD_CONF_DEFAULT	"/etc/drack/fmd.conf"
#define FMD_CONF_MAX_POOLS	64
#define FMD_CONF_ERR_MAX	512

struct fmd_conf {
	uint32_t quota;			/* Sections per host and pool, 0: auto */
	uint32_t reclaim_interval_ms;	/* revoke pass period, 0: never */
	uint32_t reclaim_slack;		/* Sections' worth of Buffers left free */
	uint32_t min_sections;		/* per host and class, kept */
	uint32_t dead_timeout_ms;	/* heartbeat silence to fence, 0: never */
	uint32_t poll_interval_ms;	/* pools and hosts re-read */
	bool format;			/* format idle pools when taking them on */
	uint32_t max_hosts;		/* for format, 0: keep the pool's */
	uint32_t regions;		/* for format, 0: keep the pool's */
	uint32_t npools;		/* 0: every pool */
	uint32_t pools[FMD_CONF_MAX_POOLS];
	enum fmd_level log_level;
	bool nic_assign;		/* every NIC to every host up */
	uint32_t nic_load_interval_s;	/* NIC load log period, 0: never */
	uint32_t vnic_mac_rack;		/* byte 3 of vNIC MACs, or: */
#define FMD_RACK_POOL	UINT32_MAX	/* the pool id */
	uint32_t nic_schedule;		/* enum fmd_nic_schedule */
	uint32_t queue_depth_high;	/* queue-depth: a deep queue, packets */
	uint32_t nic_hold_ms;		/* between two moves / decisions */
	uint32_t nic_match_priority;	/* matching: enum fmd_match_priority */
};

/* Which request a NIC grants first under nic-schedule = matching. */
enum fmd_match_priority {
	FMD_MATCH_FCFS,		/* the one demanding longest */
	FMD_MATCH_SRPT,		/* the one with the fewest frames queued */
};

/* Which NIC carries each host's vNICs (fmd-sched.c). */
enum fmd_nic_schedule {
	FMD_SCHED_STATIC,	/* its own NIC (failover aside) */
	FMD_SCHED_ROUND_ROBIN,	/* host h's vNIC k on the (k + h)th usable NIC */
	FMD_SCHED_QUEUE_DEPTH,	/* off the deepest queue, onto the shallowest */
	FMD_SCHED_DEMAND,	/* NICs loaded in proportion to measured demand */
	FMD_SCHED_MATCHING,	/* NICs granted to demanding vNICs by PIM */
	FMD_SCHED_NR,
};

const char *fmd_nic_schedule_name(uint32_t s);

/* The configuration in force. */
extern struct fmd_conf fmd_conf;

void fmd_conf_defaults(struct fmd_conf *c);
/*
 * Set @key to @value in @c: 0, or -1 with a message ("unknown key ...",
 * "invalid value ...") in @err.
 */
int fmd_conf_set(struct fmd_conf *c, const char *key, const char *value,
		 char *err, size_t errlen);
/*
 * Defaults, then the file @path (missing: fine unless @must_exist), then
 * @overrides ("key=value", from the command line, which wins). 0 if the
 * file was read, 1 if it is missing, or -1 with "FILE:LINE: ..." in
 * @err; @c is only written on success.
 */
int fmd_conf_load(struct fmd_conf *c, const char *path, bool must_exist,
		  char *const *overrides, size_t noverrides,
		  char *err, size_t errlen);
bool fmd_conf_manages(const struct fmd_conf *c, uint32_t pool);
/* One line describing @c, for the log. */
void fmd_conf_describe(const struct fmd_conf *c, char *buf, size_t len);

/* ---- fmd-view.c: one consistent-enough snapshot of a pool ---- */
#define FMD_MAX_REGIONS		64

struct fmd_view {
	struct drack_pool_info pool;
	struct drack_host_info host[DRACK_MAX_HOSTS];
	bool present[DRACK_MAX_HOSTS];		/* slot in use */
	uint32_t owned[DRACK_MAX_HOSTS];	/* from the Section table */
	uint32_t owned_cls[DRACK_MAX_HOSTS][DRACK_NR_CLASSES];
	uint32_t up_hosts;
	uint32_t hosts;				/* slots in use */
	uint32_t regions;			/* >= 1, <= FMD_MAX_REGIONS */
	struct drack_section_info *sec;		/* by id, section_count */
	uint32_t *free;				/* free data Sections, ascending */
	uint32_t nfree;
};

int fmd_view_load(struct drack_nl *nl, uint32_t pool, struct fmd_view *v);
void fmd_view_free(struct fmd_view *v);
/* Region of Section @id, always < v->regions (fmd-place.c). */
uint32_t fmd_view_region(const struct fmd_view *v, uint32_t id);

/* ---- what the daemon remembers about pools and hosts ---- */
#define FMD_REFUSAL_LOG_MS	60000	/* one refusal line per host per minute */
#define FMD_SETTLE_MS		300	/* a request this soon after a grant is stale */
#define FMD_REVOKE_SETTLE_MS	3000	/* no revoke this soon after a grant */
#define FMD_RECLAIM_RETRY_MS	200	/* poll period while a reclaim waits */
#define FMD_RECLAIM_WARN_MS	10000	/* a reclaim held up this long is logged */

struct fmd_host_mem {
	uint32_t state;
	uint32_t generation;		/* of the slot's current join */
	bool generation_known;		/* generation read from a dump */
	uint64_t last_refusal_log;
	uint64_t last_grant[DRACK_NR_CLASSES];
	/* fmd-health.c */
	uint64_t heartbeat;		/* last value seen */
	uint64_t hb_when;		/* when it last changed; 0: not watched */
	uint64_t dead_since;		/* fenced or found DEAD; 0: not dead */
	uint32_t dead_sections;		/* owned when fenced */
	bool reclaim_busy_logged;
	bool error_logged;		/* fence or reclaim error, once */
	/* fmd-reclaim.c: our revoke in flight per class, Section id + 1 */
	uint32_t revoking[DRACK_NR_CLASSES];
};

/* fmd-nic.c: one exported NIC as last seen. */
struct fmd_nic_mem {
	uint32_t state;			/* enum drack_nic_state */
	uint32_t owner;
	uint32_t generation;		/* 0: not read from a dump yet */
	bool error_logged;		/* an assignment error, once */
	/* the counters at the previous load line, for rates */
	uint64_t tx_bytes, rx_bytes, drops, wire_tx_bytes;
	uint64_t load_when;		/* 0: no load line yet */
};

/* fmd-sched.c: the steering this daemon set, [vNIC's NIC][host]. */
struct fmd_sched_mem {
	bool synced;			/* steer[][] is what the pool has */
	int8_t steer[DRACK_MAX_NICS][DRACK_MAX_HOSTS];	/* -1: its own NIC */
	bool dirty[DRACK_MAX_NICS][DRACK_MAX_HOSTS];	/* to be written */
	uint64_t last_move;		/* ms of the last move or decision */
	uint64_t reassert;		/* ms of the next rewrite of all steers */
	uint32_t cursor;		/* queue-depth: whose vNIC moves next */
	double depth[DRACK_MAX_NICS];	/* smoothed queue_depth */
	uint64_t moved[DRACK_MAX_NICS][DRACK_MAX_HOSTS];	/* ms, cooldown */
	/* demand telemetry per (NIC, host): bytes seen, smoothed rate */
	uint64_t bytes[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
	double rate[DRACK_MAX_NICS][DRACK_MAX_HOSTS];	/* bytes/s */
	uint32_t queued[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
	/* per NIC: the owner's own traffic, bytes/s (wire - vNIC bytes) */
	uint64_t wire[DRACK_MAX_NICS], vnic_tx[DRACK_MAX_NICS];
	uint32_t wire_gen[DRACK_MAX_NICS];	/* export they count from, 0: none */
	double own[DRACK_MAX_NICS];		/* smoothed, may be < 0 */
	double vnic_rate[DRACK_MAX_NICS];	/* vNIC bytes/s, smoothed */
	uint64_t sampled;		/* ms of the last sample, 0: none */
	/* matching: since when vNIC [v][h] demands (ms), 0: it does not */
	uint64_t since[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
};

struct fmd_nic_pool {
	bool seen;			/* the table was read once */
	bool unsupported;		/* drack.ko refused DRACK_CMD_NIC_GET */
	struct fmd_nic_mem nic[DRACK_MAX_NICS];
	struct fmd_sched_mem sched;
};

struct fmd_pool {
	uint32_t id;
	uint32_t max_nics;			/* NIC table entries */
	uint32_t max_hosts;			/* host table entries */
	bool seen;				/* in the latest pool dump */
	bool registered;			/* we are its fabric manager */
	bool busy_logged;			/* another FM has it: said so */
	int reg_err;				/* last registration error */
	uint32_t fm_pid;			/* the pool's FM pid and epoch */
	uint64_t fm_epoch;			/* when we took it on, 0: unknown */
	uint64_t last_exhausted_log;
	uint64_t last_revoke_err_log;
	/* order of this daemon's grants, by Section id; 0: not ours */
	uint64_t *grant_seq;
	uint32_t grant_nsec;
	uint64_t next_seq;
	/* host[] states are the kernel's (the last host dump succeeded) */
	bool hosts_ok;
	struct fmd_host_mem host[DRACK_MAX_HOSTS];
	struct fmd_nic_pool nic;
};

void fmd_pool_release(struct fmd_pool *fp);	/* frees grant_seq */
/* Remember that this daemon just granted Section @id. */
void fmd_pool_note_grant(struct fmd_pool *fp, uint32_t nsec, uint32_t id);
/* Section @id went back to the pool. */
void fmd_pool_note_free(struct fmd_pool *fp, uint32_t id);

/* ---- fmd-pool.c: registration, taking a pool on ---- */
/*
 * FM_REGISTER for @fp; on success take the pool on: format it if so
 * configured and idle, log what it holds. Returns 0 or -errno (-EBUSY:
 * another fabric manager has it, logged once).
 */
int fmd_pool_register(struct drack_nl *nl, struct fmd_pool *fp,
		      const struct drack_pool_info *pi);
void fmd_pool_unregister(struct drack_nl *nl, struct fmd_pool *fp);
/* The pool dump says someone else (or no one) is @fp's FM now. */
bool fmd_pool_lost(const struct fmd_pool *fp, const struct drack_pool_info *pi);

/* ---- fmd-policy.c ---- */
uint32_t fmd_host_quota(const struct fmd_view *v);
/*
 * Placement (fmd-place.c): choose up to @want of @v's free Sections for
 * @host, @cls, spreading the host's Sections across the pool's Regions.
 * Returns how many ids went to @out.
 */
uint32_t fmd_place(const struct fmd_view *v, uint32_t host, uint32_t cls,
		   uint32_t want, uint32_t *out);
/* A SECTION_REQUEST (event): grant within quota. */
void fmd_handle_request(struct drack_nl *nl, struct fmd_pool *fp,
			uint32_t host, uint32_t cls, uint32_t count);

/* ---- fmd-reclaim.c: taking back Sections hosts do not need ---- */
/* One pass over @fp: revoke at most one Section per host and class. */
void fmd_reclaim_pass(struct drack_nl *nl, struct fmd_pool *fp);
/* SECTION_NOTIFY: @section now belongs to @owner. */
void fmd_reclaim_section_event(struct fmd_pool *fp, uint32_t section,
			       uint32_t owner);

/* ---- fmd-health.c: host states, heartbeats, fencing ---- */
/* A host's state as an event or a dump reports it. */
void fmd_host_state(struct fmd_pool *fp, uint32_t host, uint32_t state);
/*
 * Once per poll of a registered pool: re-read the hosts, fence those
 * whose heartbeat stopped, reclaim fenced ones. Returns true while a
 * reclaim is waiting for live hosts (poll sooner).
 */
bool fmd_health_poll(struct drack_nl *nl, struct fmd_pool *fp);

/* ---- fmd-sched.c: which NIC carries which vNIC ---- */
/*
 * One scheduling pass over @fp's NIC table @n (entries with @present),
 * after the assignments: steer vNICs as nic-schedule says.
 */
void fmd_sched_pass(struct drack_nl *nl, struct fmd_pool *fp,
		    const struct drack_nic_info *n, const bool *present);

/* ---- fmd-nic.c: the NIC pool ---- */
/*
 * Once per poll of a registered pool, after fmd_health_poll(): read the
 * NIC table, log exports and state changes, and keep every NIC assigned
 * to every host that is up (nic-assign), taking the vNICs of free and
 * dead hosts back.
 */
void fmd_nic_poll(struct drack_nl *nl, struct fmd_pool *fp);
/* NIC_NOTIFY: NIC @nic is now in @state (exported by @owner). */
void fmd_nic_event(struct drack_nl *nl, struct fmd_pool *fp, uint32_t nic,
		   uint32_t state, uint32_t owner);
/* HOST_NOTIFY: a host came or went; assignments follow at once. */
void fmd_nic_hosts_changed(struct drack_nl *nl, struct fmd_pool *fp);
/* Every nic-load-interval: one line per NIC: queue depth, bytes, rates. */
void fmd_nic_load_log(struct drack_nl *nl, struct fmd_pool *fp);

#endif /* _DRACK_FMD_H */
