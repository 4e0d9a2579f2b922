// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_drack.so: the "drack" link kind for iproute2's ip(8).
 *
 *   ip link add rack0 type drack [ pool ID ] [ host ID ]
 *   ip -d link show rack0        ... drack pool 0 host 5 state up peers 3 sections 4
 *                                carrier_reason none
 *   ip link help drack
 *
 * ip dlopens $IP_LIB_DIR/link_drack.so (default
 * /usr/lib/x86_64-linux-gnu/ip on Debian) and looks up drack_link_util.
 * iproute2 installs no headers, so what is used of ip's own exported
 * helpers is declared here, as iproute2 6.1 defines it (ip/ip_common.h,
 * include/utils.h, include/libnetlink.h, include/json_print.h,
 * include/color.h). Only those symbols are used; ip resolves them
 * (-rdynamic), so the plugin links against nothing.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "uapi/drack.h"

/* ---- iproute2 6.1's ABI ------------------------------------------------ */

/* ip/ip_common.h */
struct link_util {
	struct link_util *next;
	const char *id;
	int maxattr;
	int (*parse_opt)(struct link_util *lu, int argc, char **argv,
			 struct nlmsghdr *n);
	void (*print_opt)(struct link_util *lu, FILE *f, struct rtattr *tb[]);
	void (*print_xstats)(struct link_util *lu, FILE *f,
			     struct rtattr *xstats);
	void (*print_help)(struct link_util *lu, int argc, char **argv,
			   FILE *f);
	int (*parse_ifla_xstats)(struct link_util *lu, int argc, char **argv);
	int (*print_ifla_xstats)(struct nlmsghdr *n, void *arg);
};

/* include/utils.h */
int get_u32(__u32 *val, const char *arg, int base);
/* false if prefix is a non-empty prefix of string */
bool matches(const char *prefix, const char *string);
void incomplete_command(void) __attribute__((noreturn));
void invarg(const char *msg, const char *arg) __attribute__((noreturn));
void duparg(const char *key, const char *arg) __attribute__((noreturn));

/* include/libnetlink.h */
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);

/* include/json_print.h, include/color.h */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);

/* iplink.c's request buffer: struct iplink_req's payload, 1024 in 6.1 */
#define DRACK_REQ_MAX 1024

/* ---- the plugin -------------------------------------------------------- */

#define DRACK_POOL_ID_MAX 255	/* the kernel's policy: a u8 */

static void print_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... drack [ pool POOL ] [ host HOST ]\n"
		"\n"
		"Where:	POOL	:= 0-%u (default 0)\n"
		"	HOST	:= 0-%u (default: the lowest free host id)\n",
		DRACK_POOL_ID_MAX, DRACK_MAX_HOSTS - 1);
}

static void explain(void)
{
	print_explain(stderr);
}

static int drack_parse_opt(struct link_util *lu, int argc, char **argv,
			   struct nlmsghdr *n)
{
	bool have_pool = false, have_host = false;
	__u32 v;

	(void)lu;
	while (argc > 0) {
		if (!matches(*argv, "pool")) {
			if (argc < 2)
				incomplete_command();
			argc--, argv++;
			if (have_pool)
				duparg("pool", *argv);
			if (get_u32(&v, *argv, 0) || v > DRACK_POOL_ID_MAX)
				invarg("pool id must be 0-255", *argv);
			addattr32(n, DRACK_REQ_MAX, IFLA_DRACK_POOL, v);
			have_pool = true;
		} else if (!matches(*argv, "host")) {
			if (argc < 2)
				incomplete_command();
			argc--, argv++;
			if (have_host)
				duparg("host", *argv);
			if (get_u32(&v, *argv, 0) || v >= DRACK_MAX_HOSTS)
				invarg("host id must be 0-63", *argv);
			addattr32(n, DRACK_REQ_MAX, IFLA_DRACK_HOST, v);
			have_host = true;
		} else if (!matches(*argv, "help")) {
			explain();
			return -1;
		} else {
			fprintf(stderr, "drack: unknown option \"%s\"?\n", *argv);
			explain();
			return -1;
		}
		argc--, argv++;
	}
	return 0;
}

static const char *const drack_state_names[DRACK_HOST_NR_STATES] = {
	[DRACK_HOST_FREE] = "free",
	[DRACK_HOST_JOINING] = "joining",
	[DRACK_HOST_UP] = "up",
	[DRACK_HOST_LEAVING] = "leaving",
	[DRACK_HOST_DEAD] = "dead",
};

/* libdrack's drack_carrier_reason_name(); ip does not link libdrack */
static const char *const drack_carrier_reasons[DRACK_CARRIER_MAX + 1] = {
	[DRACK_CARRIER_OK] = "none",
	[DRACK_CARRIER_NO_PEER] = "no_peer",
	[DRACK_CARRIER_WAITING] = "waiting",
	[DRACK_CARRIER_NO_FM] = "no_fm",
	[DRACK_CARRIER_QUOTA] = "quota",
	[DRACK_CARRIER_POOL_FULL] = "pool_full",
	[DRACK_CARRIER_FENCED] = "fenced",
};

static bool drack_attr_u32(struct rtattr *tb[], int type, __u32 *v)
{
	if (!tb[type] || RTA_PAYLOAD(tb[type]) < sizeof(__u32))
		return false;
	memcpy(v, RTA_DATA(tb[type]), sizeof(*v));
	return true;
}

static void drack_print_u32(struct rtattr *tb[], int type, const char *key,
			    const char *fmt)
{
	__u32 v;

	if (drack_attr_u32(tb, type, &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, key, fmt, v);
}

static void drack_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	char buf[16];
	__u32 v;

	(void)lu;
	(void)f;
	if (!tb)
		return;
	drack_print_u32(tb, IFLA_DRACK_POOL, "pool", "pool %u ");
	drack_print_u32(tb, IFLA_DRACK_HOST, "host", "host %u ");
	if (drack_attr_u32(tb, IFLA_DRACK_STATE, &v)) {
		const char *name = v < DRACK_HOST_NR_STATES ?
				   drack_state_names[v] : NULL;

		if (!name) {
			snprintf(buf, sizeof(buf), "%u", v);
			name = buf;
		}
		print_color_string(PRINT_ANY, COLOR_NONE, "state", "state %s ",
				   name);
	}
	drack_print_u32(tb, IFLA_DRACK_PEERS, "peers", "peers %u ");
	drack_print_u32(tb, IFLA_DRACK_SECTIONS, "sections", "sections %u ");
	if (drack_attr_u32(tb, IFLA_DRACK_CARRIER_REASON, &v)) {
		const char *name = v <= DRACK_CARRIER_MAX ?
				   drack_carrier_reasons[v] : NULL;

		if (!name) {
			snprintf(buf, sizeof(buf), "%u", v);
			name = buf;
		}
		print_color_string(PRINT_ANY, COLOR_NONE, "carrier_reason",
				   "carrier_reason %s ", name);
	}
}

static void drack_print_help(struct link_util *lu, int argc, char **argv,
			     FILE *f)
{
	(void)lu;
	(void)argc;
	(void)argv;
	print_explain(f);
}

struct link_util drack_link_util = {
	.id = "drack",
	.maxattr = IFLA_DRACK_MAX,
	.parse_opt = drack_parse_opt,
	.print_opt = drack_print_opt,
	.print_help = drack_print_help,
};
