// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl output: text or JSON from the same calls, like iproute2's
 * json_print.c. In JSON mode the values go under their keys into a json-c
 * tree and the text formats are ignored; in text mode the formats are
 * printf'ed and the keys ignored. With -j the output is one array of
 * objects on one line (-p: indented); the monitor prints one object per
 * line instead. json-c writes the JSON text: a top-level value is printed
 * when it is closed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <json-c/json.h>
#include "ctl.h"

#define JW_MAX_DEPTH	16

/* The open arrays and objects, outermost first. */
static struct {
	int depth;
	struct json_object *open[JW_MAX_DEPTH];
} jw;

/* Print a complete top-level value, one line (-p: indented). */
static void jw_emit(struct json_object *v)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= ctl_pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			      JSON_C_TO_STRING_PLAIN;
	puts(json_object_to_json_string_ext(v, flags));
	fflush(stdout);
	json_object_put(v);
}

/* @v (a new reference) into the innermost open container under @key. */
static void jw_add(const char *key, struct json_object *v)
{
	struct json_object *cur;

	if (!jw.depth) {
		jw_emit(v);
		return;
	}
	cur = jw.open[jw.depth - 1];
	if (json_object_is_type(cur, json_type_array))
		json_object_array_add(cur, v);
	else
		json_object_object_add(cur, key ? key : "", v);
}

static void jw_open(const char *key, struct json_object *c)
{
	if (jw.depth >= JW_MAX_DEPTH) {	/* never this deep: drop it */
		json_object_put(c);
		return;
	}
	if (jw.depth)
		jw_add(key, json_object_get(c));
	jw.open[jw.depth++] = c;
}

static void jw_close(void)
{
	struct json_object *c;

	if (!jw.depth)
		return;
	c = jw.open[--jw.depth];
	if (!jw.depth)
		jw_emit(c);	/* the last reference */
	else
		json_object_put(c);	/* the parent holds it */
}

void new_json_obj(void)
{
	if (ctl_json)
		jw_open(NULL, json_object_new_array());
}

void delete_json_obj(void)
{
	if (ctl_json)
		jw_close();
	fflush(stdout);
}

void open_json_object(const char *name)
{
	if (ctl_json)
		jw_open(name, json_object_new_object());
}

void close_json_object(void)
{
	if (ctl_json)
		jw_close();
}

void open_json_array(enum output_type t, const char *name)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_open(name, json_object_new_array());
	} else if ((t & PRINT_FP) && name) {
		printf("%s ", name);
	}
}

void close_json_array(enum output_type t, const char *delim)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_close();
	} else if ((t & PRINT_FP) && delim) {
		fputs(delim, stdout);
	}
}

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_add(key, json_object_new_string(value));
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_add(key, json_object_new_uint64(value));
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_add(key, json_object_new_uint64(value));
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_add(key, json_object_new_boolean(value));
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value ? "true" : "false");
	}
}

void print_null(enum output_type t, const char *key, const char *fmt,
		const char *text)
{
	if (ctl_json) {
		if (t & PRINT_JSON)
			jw_add(key, NULL);
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
