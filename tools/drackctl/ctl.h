/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drackctl: shared declarations. One file per object (ctl-OBJECT.c), each
 * with a do_OBJECT(argc, argv) that gets the arguments after the object
 * name and returns the exit status: 0, 1 for a usage error, 2 when the
 * kernel refused or could not be asked.
 */
#ifndef _DRACKCTL_H
#define _DRACKCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include "uapi/drack.h"
#include "drack/drack.h"

#define CTL_VERSION	"1.0.0"

#define CTL_OK		0
#define CTL_EUSAGE	1
#define CTL_EKERNEL	2

extern bool ctl_json;		/* -j */
extern bool ctl_pretty;		/* -p */
extern int ctl_stats;		/* -s, repeatable */

/* ---- arguments, like iproute2's utils.h ---------------------------- */

/* Is @arg a prefix of @word (abbreviations: "sh" for "show")? */
bool matches(const char *arg, const char *word);

#define NEXT_ARG() do {					\
		argv++;					\
		if (--argc <= 0)			\
			return incomplete_command();	\
	} while (0)
#define NEXT_ARG_OK()	(argc - 1 > 0)
#define PREV_ARG()	do { argv--; argc++; } while (0)

int incomplete_command(void);
/* Error: argument "ARG" is wrong: WHAT. Returns CTL_EUSAGE. */
int invarg(const char *what, const char *arg);
/* Error: duplicate "KEY": "ARG" is the second value. */
int duparg(const char *key, const char *arg);
/* Command "CMD" is unknown, try "drackctl OBJ help". */
int unknown_command(const char *obj, const char *cmd);
/* Error: unknown argument "ARG", try "drackctl OBJ help". */
int garbage(const char *obj, const char *arg);

int get_u32(uint32_t *val, const char *arg);
/* A host id: below DRACK_MAX_HOSTS. */
int get_host_id(uint32_t *val, const char *arg);
/* "2k", "64k" (or 2048, 65536): 0, or -1 */
int get_class(uint32_t *buf_class, const char *arg);
bool ifname_ok(const char *name);

/*
 * A command's keyword arguments, as a table ended by an entry with no
 * @key: "KEY VALUE" (or "ALIAS VALUE") each at most once, "help", and at
 * most one CTL_ARG_POSITIONAL entry, whose keyword may be left out.
 */
struct ctl_arg {
	const char *key, *alias;	/* matches(), or strcmp() if EXACT */
	const char *name;		/* in messages; NULL: @key */
	unsigned int flags;		/* CTL_ARG_* */
	/* A number into @u32: 0, or -1 for invarg(@invalid). */
	int (*get)(uint32_t *val, const char *arg);
	uint32_t *u32;
	const char **str;		/* without @get: the word itself */
	bool *have;			/* NULL for @str: *@str != NULL */
	const char *invalid;
};

#define CTL_ARG_POSITIONAL	0x01	/* KEY may be left out */
#define CTL_ARG_EXACT		0x02	/* KEY is not abbreviated */
#define CTL_ARG_BARE		0x04	/* no VALUE: @get parses KEY itself */
#define CTL_ARG_IFNAME		0x08	/* @str must be an interface name */
#define CTL_ARG_REQUIRED	0x10	/* "Not enough information" without */

/* ctl_args() parsed every argument: the command goes on. */
#define CTL_MORE	(-1)

/*
 * Parse @argv by @args; "help" prints @usage, an unknown word is
 * garbage(@obj). CTL_MORE, or the exit status: CTL_OK after help, else
 * CTL_EUSAGE after an error message.
 */
int ctl_args(int argc, char **argv, const struct ctl_arg *args,
	     const char *obj, void (*usage)(FILE *out));

/* ---- talking to the kernel ----------------------------------------- */

/* The generic netlink handle, opened once; NULL after an error message. */
struct drack_nl *ctl_nl(void);
void ctl_nl_close(void);
/*
 * Report a failed request like iproute2: "Error: EXTACK." when the kernel
 * said why, else "Error: CONTEXT: strerror." Returns CTL_EKERNEL.
 */
int ctl_err(int err, const char *extack, const char *context);

/*
 * ctl-run-ip.c: run ip(8) with @argv (argv[0] "ip"), its stdout into *@out
 * (free() it) if @out; CTL_OK, or an error line naming @what and
 * CTL_EKERNEL.
 */
int ctl_run_ip(const char *what, char *const argv[], char **out);
/* A request about pool @pool failed: "Error: pool 7 does not exist." */
int ctl_pool_err(int err, uint32_t pool);
/* The same for rtnetlink: "RTNETLINK answers: strerror" without extack. */
int ctl_rtnl_err(int err, const char *extack);
/*
 * A fabric manager request about pool @pool failed: the kernel's message,
 * else ctl_pool_err().
 */
int ctl_fm_err(int err, const char *extack, uint32_t pool);

/* The drack link @dev: CTL_OK, or an error message and CTL_EKERNEL. */
int ctl_link_get(const char *dev, struct drack_link_info *link);
/* Why @dev cannot be used: "Device ... does not exist." etc. */
int ctl_link_err(const char *dev, int err);
/* All pool ids of the kernel, ascending: count or -errno; free() *ids. */
int ctl_pool_ids(uint32_t **ids);
/* Every drack link of this netns: count or -errno; free() *links. */
int ctl_links(struct drack_link_info **links);
/*
 * netns NAME (in /run/netns), a path, or with @pids a pid: an fd, or -1
 * after an error message.
 */
int ctl_open_netns(const char *ns, bool pids);

/*
 * The show commands: @show for the link @dev, or for every drack link of
 * this netns, in one JSON array; with @need_nl, none if the generic
 * netlink family cannot be opened. The ORed returns, or an exit status.
 */
int ctl_show_links(const char *dev, bool need_nl,
		   int (*show)(const struct drack_link_info *l, void *arg),
		   void *arg);
/*
 * "[ [ dev ] DEV ]": ctl_show_links(DEV, @need_nl, ...), or ctl_args()'
 * exit status.
 */
int ctl_show_dev(int argc, char **argv, const char *obj,
		 void (*usage)(FILE *out), bool need_nl,
		 int (*show)(const struct drack_link_info *l, void *arg));
/*
 * @list for pool @pool (if @have_pool) or for every pool, in one JSON
 * array, until one fails: @list returns 0 or -errno. An exit status.
 */
int ctl_show_pools(bool have_pool, uint32_t pool,
		   int (*list)(uint32_t pool, void *arg), void *arg);

/* ---- output: iproute2's json_print, cut down (ctl-json.c) ----------- */

enum output_type {
	PRINT_FP = 1,		/* text output only */
	PRINT_JSON = 2,		/* JSON output only */
	PRINT_ANY = 3,		/* both: @key for JSON, @fmt for text */
};

/* Start the output: with -j, the top-level array. */
void new_json_obj(void);
/* End it: close the array, newline. */
void delete_json_obj(void);
/* Objects and arrays; @name is NULL inside an array or at top level. */
void open_json_object(const char *name);
void close_json_object(void);
void open_json_array(enum output_type t, const char *name);
void close_json_array(enum output_type t, const char *delim);

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value);
void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value);
void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value);
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value);
void print_null(enum output_type t, const char *key, const char *fmt,
		const char *text);
/* Text output: end of a line; JSON: nothing. */
void print_nl(void);
/* Text output: @n spaces of indent. */
void print_indent(int n);

/* Open the object of a link: "IFNAME pool P host H" and a newline. */
void ctl_print_link_head(const struct drack_link_info *l);
/* A counter: " KEY VALUE" (JSON: "KEY": VALUE). */
void ctl_print_counter(const char *key, uint64_t value);
/* Counter @stat of @st, if it has a name: ctl_print_counter(). */
void ctl_print_stat(const struct drack_stats_info *st, uint32_t stat);
/*
 * The counters of the local host @ifindex into @st: CTL_OK, or an error
 * message about @ifname and CTL_EKERNEL.
 */
int ctl_local_stats(uint32_t ifindex, const char *ifname,
		    struct drack_stats_info *st);

/* "64M", "2M", "512K" */
const char *ctl_size(uint64_t bytes, char *buf, size_t len);
const char *ctl_mac(const uint8_t mac[6], char *buf, size_t len);
/* "meta", "free" or the host id */
const char *ctl_owner(uint32_t owner, char *buf, size_t len);

/* ---- objects ---------------------------------------------------------- */

int do_pool(int argc, char **argv);
int do_host(int argc, char **argv);
int do_peer(int argc, char **argv);
int do_section(int argc, char **argv);
int do_buffer(int argc, char **argv);
int do_link(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_nic(int argc, char **argv);

/* ---- the NIC pool (ctl-nic.c, ctl-nic-mptcp.c) ---------------------- */

/* "drackctl nic mptcp ...": the arguments after "mptcp". */
int do_nic_mptcp(int argc, char **argv);
/* "drackctl nic steer ...": the arguments after "steer". */
int do_nic_steer(int argc, char **argv);
/* "drackctl nic policy ...": the arguments after "policy". */
int do_nic_policy(int argc, char **argv);
/* A NIC id: below DRACK_MAX_NICS. */
int get_nic_id(uint32_t *val, const char *arg);
/* ctl_err(), or for -EOPNOTSUPP: "this drack.ko has no NIC pool". */
int ctl_nic_err(int err, const char *extack, const char *context);
/* Every pool of the kernel, as dumped: count or -errno; free() *pools. */
int ctl_nic_pools(struct drack_pool_info **pools);

/* A vNIC of this network namespace. */
struct ctl_vnic {
	uint32_t pool, nic, ifindex, via;
	char name[IF_NAMESIZE];
};

struct ctl_vnics {
	struct ctl_vnic *v;
	int n;
	/* every NIC of the pools seen, with its published queue depth */
	struct ctl_nic_load {
		uint32_t pool, nic, state, depth;
	} *load;
	int nload;
};

/*
 * Every vNIC of this network namespace, by pool and NIC id, and the load
 * of every NIC: CTL_OK, or an error message and the exit status.
 * ctl_vnics_free() it.
 */
int ctl_vnics(struct ctl_vnics *vs);
void ctl_vnics_free(struct ctl_vnics *vs);
/* The published queue depth of NIC @nic of pool @pool, -1: not up. */
int64_t ctl_nic_depth(const struct ctl_vnics *vs, uint32_t pool,
		      uint32_t nic);
const struct ctl_vnic *ctl_vnic_by_index(const struct ctl_vnics *vs,
					 int ifindex);
const struct ctl_vnic *ctl_vnic_by_name(const struct ctl_vnics *vs,
					const char *name);
/*
 * For nic policy: the MPTCP endpoints of the vNICs @vs on, as "nic mptcp
 * on" adds them, or off. CTL_OK, or an error message and the exit
 * status; off is CTL_OK on a kernel without MPTCP.
 */
int ctl_nic_mptcp_set(const struct ctl_vnics *vs, bool on);
/*
 * The number of MPTCP endpoints on each vNIC of @vs into @count[vs->n]
 * (all 0 on a kernel without MPTCP): CTL_OK, or an error message.
 */
int ctl_nic_mptcp_count(const struct ctl_vnics *vs, unsigned int *count);

#endif /* _DRACKCTL_H */
