// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl output: text or JSON from the same calls, like iproute2's
 * json_print.c. In JSON mode the values go out under their keys and the
 * text formats are ignored; in text mode the formats are printf'ed and
 * the keys ignored. With -j the output is one array of objects on one
 * line (-p: indented); the monitor prints one object per line instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include "ctl.h"

#define JW_MAX_DEPTH	16

static struct {
	int depth;
	bool first[JW_MAX_DEPTH];
} jw;

static void jw_indent(void)
{
	int i;

	if (!ctl_pretty)
		return;
	putchar('\n');
	for (i = 0; i < jw.depth; i++)
		fputs("    ", stdout);
}

static void jw_string(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* Separator, indent and "key": before any value. */
static void jw_value(const char *key)
{
	if (jw.depth > 0) {
		if (!jw.first[jw.depth])
			putchar(',');
		jw.first[jw.depth] = false;
		jw_indent();
	}
	if (key) {
		jw_string(key);
		fputs(ctl_pretty ? ": " : ":", stdout);
	}
}

static void jw_open(const char *key, char c)
{
	jw_value(key);
	putchar(c);
	if (jw.depth < JW_MAX_DEPTH - 1)
		jw.depth++;
	jw.first[jw.depth] = true;
}

static void jw_close(char c)
{
	bool empty = jw.first[jw.depth];

	if (jw.depth > 0)
		jw.depth--;
	if (!empty)
		jw_indent();
	putchar(c);
	if (jw.depth == 0) {
		putchar('\n');
		fflush(stdout);
	}
}

void new_json_obj(void)
{
	if (ctl_json)
		jw_open(NULL, '[');
}

void delete_json_obj(void)
{
	if (ctl_json)
		jw_close(']');
	fflush(stdout);
}

void open_json_object(const char *name)
{
	if (ctl_json)
		jw_open(name, '{');
}

void close_json_object(void)
{
	if (ctl_json)
		jw_close('}');
}

void open_json_array(enum output_type t, const char *name)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_open(name, '[');
	} else if ((t & PRINT_FP) && name) {
		printf("%s ", name);
	}
}

void close_json_array(enum output_type t, const char *delim)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_close(']');
	} else if ((t & PRINT_FP) && delim) {
		fputs(delim, stdout);
	}
}

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value)
{
	if (ctl_json) {
		if (!(t & PRINT_JSON))
			return;
		jw_value(key);
		jw_string(value);
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value)
{
	if (ctl_json) {
		if (!(t & PRINT_JSON))
			return;
		jw_value(key);
		printf("%u", value);
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value)
{
	if (ctl_json) {
		if (!(t & PRINT_JSON))
			return;
		jw_value(key);
		printf("%" PRIu64, value);
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value)
{
	if (ctl_json) {
		if (!(t & PRINT_JSON))
			return;
		jw_value(key);
		fputs(value ? "true" : "false", stdout);
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value ? "true" : "false");
	}
}

void print_null(enum output_type t, const char *key, const char *fmt,
		const char *text)
{
	if (ctl_json) {
		if (!(t & PRINT_JSON))
			return;
		jw_value(key);
		fputs("null", stdout);
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, text);
	}
}

void print_nl(void)
{
	if (!ctl_json)
		putchar('\n');
}

void print_indent(int n)
{
	if (!ctl_json)
		printf("%*s", n, "");
}

const char *ctl_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes >= 1024 && !(bytes % 1024)) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", bytes, units[u]);
	return buf;
}

const char *ctl_mac(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

const char *ctl_owner(uint32_t owner, char *buf, size_t len)
{
	if (owner == DRACK_SECTION_FREE)
		return "free";
	if (owner == DRACK_SECTION_META)
		return "meta";
	snprintf(buf, len, "%u", owner);
	return buf;
}
