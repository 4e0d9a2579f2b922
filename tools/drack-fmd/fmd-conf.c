// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration: built-in defaults, then /etc/drack/fmd.conf (or -c
 * FILE), then the command line. The file has "key = value" lines; '#'
 * starts a comment. A file with an unknown key or a bad value is refused
 * as a whole, naming FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "fmd.h"

struct fmd_conf fmd_conf;

void fmd_conf_defaults(struct fmd_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->quota = 0;
	c->reclaim_interval_ms = 2000;
	c->reclaim_slack = 1;
	c->min_sections = 1;
	c->dead_timeout_ms = 3000;
	c->poll_interval_ms = 500;
	c->format = false;
	c->max_hosts = 0;
	c->regions = 0;
	c->npools = 0;
	c->log_level = FMD_INFO;
	c->nic_assign = true;
	c->nic_load_interval_s = 10;
	c->vnic_mac_rack = FMD_RACK_POOL;
	c->nic_schedule = FMD_SCHED_STATIC;
	c->queue_depth_high = 8;
	c->nic_hold_ms = 2000;
}

static const char *const fmd_schedules[FMD_SCHED_NR] = {
	[FMD_SCHED_STATIC] = "static",
	[FMD_SCHED_ROUND_ROBIN] = "round-robin",
	[FMD_SCHED_QUEUE_DEPTH] = "queue-depth",
	[FMD_SCHED_DEMAND] = "demand",
	[FMD_SCHED_MATCHING] = "matching",
};

const char *fmd_nic_schedule_name(uint32_t s)
{
	return s < FMD_SCHED_NR ? fmd_schedules[s] : "?";
}

static int fmd_conf_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fmd_conf_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal number in [min, max]; signs refused. */
static bool fmd_conf_u32(const char *s, uint32_t min, uint32_t max,
			 uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool fmd_conf_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < FMD_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* "all", or pool ids separated by commas and/or blanks. */
static bool fmd_conf_pools(const char *s, struct fmd_conf *c)
{
	uint32_t ids[FMD_CONF_MAX_POOLS], n = 0, i;
	char buf[1024], *tok, *save;

	if (!strcasecmp(s, "all")) {
		c->npools = 0;
		return true;
	}
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		uint32_t id;

		if (!fmd_conf_u32(tok, 0, UINT32_MAX - 1, &id) ||
		    n == FMD_CONF_MAX_POOLS)
			return false;
		for (i = 0; i < n && ids[i] != id; i++)
			;
		if (i == n)
			ids[n++] = id;
	}
	if (!n)
		return false;
	memcpy(c->pools, ids, n * sizeof(ids[0]));
	c->npools = n;
	return true;
}

static bool fmd_conf_level(const char *s, enum fmd_level *out)
{
	static const struct {
		const char *name;
		enum fmd_level level;
	} names[] = {
		{ "error", FMD_ERR }, { "err", FMD_ERR },
		{ "warning", FMD_WARN }, { "warn", FMD_WARN },
		{ "info", FMD_INFO }, { "debug", FMD_DEBUG },
	};
	size_t i;

	for (i = 0; i < FMD_ARRAY_SIZE(names); i++) {
		if (!strcasecmp(s, names[i].name)) {
			*out = names[i].level;
			return true;
		}
	}
	return false;
}

/* Numeric keys: where the value goes, its range, what to say if wrong. */
struct fmd_conf_num {
	const char *key;
	size_t off;
	uint32_t min, max;
	bool zero_ok;		/* 0 allowed besides [min, max] */
	const char *expect;
};

#define FMD_NUM(k, field, lo, hi, z, what) \
	{ k, offsetof(struct fmd_conf, field), lo, hi, z, what }

static const struct fmd_conf_num fmd_conf_nums[] = {
	FMD_NUM("reclaim-interval-ms", reclaim_interval_ms, 100, 3600000, true,
		"0 (never revoke) or 100 to 3600000"),
	FMD_NUM("reclaim-slack", reclaim_slack, 0, 1024, false,
		"0 to 1024 Sections"),
	FMD_NUM("min-sections", min_sections, 0, 65536, false,
		"0 to 65536 Sections"),
	FMD_NUM("dead-timeout-ms", dead_timeout_ms, 300, 3600000, true,
		"0 (never fence) or 300 to 3600000"),
	FMD_NUM("poll-interval-ms", poll_interval_ms, 50, 60000, false,
		"50 to 60000"),
	FMD_NUM("max-hosts", max_hosts, 2, DRACK_MAX_HOSTS, true,
		"0 (keep the pool's) or 2 to 64"),
	FMD_NUM("regions", regions, 1, 16, true,
		"0 (keep the pool's) or 1 to 16"),
	FMD_NUM("nic-load-interval", nic_load_interval_s, 1, 86400, true,
		"0 (never) or 1 to 86400 seconds"),
	FMD_NUM("vnic-mac-rack", vnic_mac_rack, 0, 255, true,
		"0 to 255, byte 3 of the vNIC MACs"),
	FMD_NUM("queue-depth-high", queue_depth_high, 1, 100000, false,
		"1 to 100000 packets"),
	FMD_NUM("nic-hold-ms", nic_hold_ms, 100, 600000, false,
		"100 to 600000"),
};

int fmd_conf_set(struct fmd_conf *c, const char *key, const char *value,
		 char *err, size_t errlen)
{
	size_t i;

	if (!*value)
		return fmd_conf_fail(err, errlen, "%s: missing value", key);

	if (!strcmp(key, "quota")) {
		uint32_t q;

		if (!strcasecmp(value, "auto"))
			q = 0;
		else if (!fmd_conf_u32(value, 0, UINT32_MAX, &q))
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for quota (expected auto or a number of Sections, 0: auto)",
				value);
		c->quota = q;
		return 0;
	}
	if (!strcmp(key, "format")) {
		if (!fmd_conf_bool(value, &c->format))
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for format (expected yes or no)",
				value);
		return 0;
	}
	if (!strcmp(key, "nic-assign")) {
		if (!fmd_conf_bool(value, &c->nic_assign))
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for nic-assign (expected yes or no)",
				value);
		return 0;
	}
	if (!strcmp(key, "nic-schedule")) {
		for (i = 0; i < FMD_SCHED_NR; i++)
			if (!strcmp(value, fmd_schedules[i]))
				break;
		if (i == FMD_SCHED_NR)
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for nic-schedule (expected static, round-robin, queue-depth, demand or matching)",
				value);
		c->nic_schedule = (uint32_t)i;
		return 0;
	}
	if (!strcmp(key, "nic-match-priority")) {
		if (!strcmp(value, "fcfs"))
			c->nic_match_priority = FMD_MATCH_FCFS;
		else if (!strcmp(value, "srpt"))
			c->nic_match_priority = FMD_MATCH_SRPT;
		else
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for nic-match-priority (expected fcfs or srpt)",
				value);
		return 0;
	}
	if (!strcmp(key, "pools")) {
		if (!fmd_conf_pools(value, c))
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for pools (expected all or up to %d pool ids)",
				value, FMD_CONF_MAX_POOLS);
		return 0;
	}
	if (!strcmp(key, "log-level")) {
		if (!fmd_conf_level(value, &c->log_level))
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for log-level (expected error, warning, info or debug)",
				value);
		return 0;
	}
	for (i = 0; i < FMD_ARRAY_SIZE(fmd_conf_nums); i++) {
		const struct fmd_conf_num *n = &fmd_conf_nums[i];
		uint32_t v;

		if (strcmp(key, n->key))
			continue;
		if (!fmd_conf_u32(value, 0, UINT32_MAX, &v) ||
		    (!(v == 0 && n->zero_ok) && (v < n->min || v > n->max)))
			return fmd_conf_fail(err, errlen,
				"invalid value '%s' for %s (expected %s)",
				value, key, n->expect);
		*(uint32_t *)((char *)c + n->off) = v;
		return 0;
	}
	return fmd_conf_fail(err, errlen, "unknown key '%s'", key);
}

static char *fmd_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "key = value" (or "key=value"): 0, or -1 with a message in @err. */
static int fmd_conf_line(struct fmd_conf *c, char *line, char *err,
			 size_t errlen)
{
	char *eq = strchr(line, '='), *key, *value;

	if (!eq)
		return fmd_conf_fail(err, errlen,
				     "expected 'key = value', got '%s'", line);
	*eq = '\0';
	key = fmd_trim(line);
	value = fmd_trim(eq + 1);
	if (!*key)
		return fmd_conf_fail(err, errlen, "missing key before '='");
	return fmd_conf_set(c, key, value, err, errlen);
}

static int fmd_conf_file(struct fmd_conf *c, const char *path,
			 bool must_exist, char *err, size_t errlen)
{
	char line[1024], msg[FMD_CONF_ERR_MAX];
	unsigned int lineno = 0;
	FILE *f;
	int ret = 0;

	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 1;
		return fmd_conf_fail(err, errlen, "%s: %s", path,
				     strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *s, *hash;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' &&
		    !feof(f)) {
			ret = fmd_conf_fail(err, errlen, "%s:%u: line too long",
					    path, lineno);
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = fmd_trim(line);
		if (!*s)
			continue;
		if (fmd_conf_line(c, s, msg, sizeof(msg))) {
			ret = fmd_conf_fail(err, errlen, "%s:%u: %s", path,
					    lineno, msg);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = fmd_conf_fail(err, errlen, "%s: read error", path);
	fclose(f);
	return ret;
}

int fmd_conf_load(struct fmd_conf *c, const char *path, bool must_exist,
		  char *const *overrides, size_t noverrides,
		  char *err, size_t errlen)
{
	char msg[FMD_CONF_ERR_MAX], buf[1024];
	struct fmd_conf n;
	int ret = 0;
	size_t i;

	fmd_conf_defaults(&n);
	if (path) {
		ret = fmd_conf_file(&n, path, must_exist, err, errlen);
		if (ret < 0)
			return -1;
	}
	for (i = 0; i < noverrides; i++) {
		snprintf(buf, sizeof(buf), "%s", overrides[i]);
		if (fmd_conf_line(&n, buf, msg, sizeof(msg)))
			return fmd_conf_fail(err, errlen, "command line: %s",
					     msg);
	}
	*c = n;
	return ret;
}

bool fmd_conf_manages(const struct fmd_conf *c, uint32_t pool)
{
	uint32_t i;

	if (!c->npools)
		return true;
	for (i = 0; i < c->npools; i++)
		if (c->pools[i] == pool)
			return true;
	return false;
}

void fmd_conf_describe(const struct fmd_conf *c, char *buf, size_t len)
{
	static const char *const levels[] = {
		[FMD_ERR] = "error", [FMD_WARN] = "warning",
		[FMD_INFO] = "info", [FMD_DEBUG] = "debug",
	};
	char quota[32], reclaim[96], dead[48], format[64], nicload[32];
	char sched[64];
	char pools[FMD_CONF_MAX_POOLS * 11 + 8];
	size_t o = 0;
	uint32_t i;

	if (c->quota)
		snprintf(quota, sizeof(quota), "%u", c->quota);
	else
		snprintf(quota, sizeof(quota), "auto");
	if (c->reclaim_interval_ms)
		snprintf(reclaim, sizeof(reclaim),
			 "every %u ms (slack %u, min %u Sections)",
			 c->reclaim_interval_ms, c->reclaim_slack,
			 c->min_sections);
	else
		snprintf(reclaim, sizeof(reclaim), "off");
	if (c->dead_timeout_ms)
		snprintf(dead, sizeof(dead), "%u ms", c->dead_timeout_ms);
	else
		snprintf(dead, sizeof(dead), "off");
	if (!c->npools)
		snprintf(pools, sizeof(pools), "all");
	for (i = 0; i < c->npools && o < sizeof(pools); i++)
		o += (size_t)snprintf(pools + o, sizeof(pools) - o, "%s%u",
				      i ? "," : "", c->pools[i]);
	if (!c->format)
		snprintf(format, sizeof(format), "no");
	else if (!c->max_hosts && !c->regions)
		snprintf(format, sizeof(format), "yes");
	else
		snprintf(format, sizeof(format), "yes (max-hosts %u, regions %u)",
			 c->max_hosts, c->regions);
	if (c->nic_schedule == FMD_SCHED_QUEUE_DEPTH)
		snprintf(sched, sizeof(sched), "queue-depth (high %u, hold %u ms)",
			 c->queue_depth_high, c->nic_hold_ms);
	else if (c->nic_schedule == FMD_SCHED_MATCHING)
		snprintf(sched, sizeof(sched), "matching (%s, hold %u ms)",
			 c->nic_match_priority == FMD_MATCH_SRPT ? "srpt" : "fcfs",
			 c->nic_hold_ms);
	else if (c->nic_schedule == FMD_SCHED_DEMAND)
		snprintf(sched, sizeof(sched), "demand (hold %u ms)",
			 c->nic_hold_ms);
	else
		snprintf(sched, sizeof(sched), "%s",
			 fmd_nic_schedule_name(c->nic_schedule));
	if (c->nic_load_interval_s)
		snprintf(nicload, sizeof(nicload), "every %u s",
			 c->nic_load_interval_s);
	else
		snprintf(nicload, sizeof(nicload), "off");
	snprintf(buf, len,
		 "quota %s, reclaim %s, dead-timeout %s, poll %u ms, pools %s, format %s, nic-assign %s, nic-load %s, nic-schedule %s, log-level %s",
		 quota, reclaim, dead, c->poll_interval_ms, pools, format,
		 c->nic_assign ? "yes" : "no", nicload,
		 sched,
		 levels[c->log_level]);
}
