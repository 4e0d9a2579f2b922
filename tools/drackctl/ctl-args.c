// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl: parsing the command line, like iproute2's utils.c: keywords
 * and their abbreviations, numbers, host ids, Buffer classes, interface
 * names, the keyword argument tables (ctl_args()). Nothing here talks to
 * the kernel, so tests/unit/ links it alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl.h"

bool matches(const char *arg, const char *word)
{
	size_t n = strlen(arg);

	return n && n <= strlen(word) && !memcmp(arg, word, n);
}

int incomplete_command(void)
{
	fprintf(stderr, "Command line is not complete. Try option \"help\"\n");
	return CTL_EUSAGE;
}

int invarg(const char *what, const char *arg)
{
	fprintf(stderr, "Error: argument \"%s\" is wrong: %s\n", arg, what);
	return CTL_EUSAGE;
}

int duparg(const char *key, const char *arg)
{
	fprintf(stderr, "Error: duplicate \"%s\": \"%s\" is the second value.\n",
		key, arg);
	return CTL_EUSAGE;
}

int unknown_command(const char *obj, const char *cmd)
{
	fprintf(stderr, "Command \"%s\" is unknown, try \"drackctl %s help\".\n",
		cmd, obj);
	return CTL_EUSAGE;
}

int garbage(const char *obj, const char *arg)
{
	fprintf(stderr, "Error: unknown argument \"%s\", try \"drackctl %s help\".\n",
		arg, obj);
	return CTL_EUSAGE;
}

int get_u32(uint32_t *val, const char *arg)
{
	unsigned long v;
	char *end;

	if (!arg || !*arg || *arg == '-' || *arg == '+')
		return -1;
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*val = (uint32_t)v;
	return 0;
}

int get_host_id(uint32_t *val, const char *arg)
{
	return get_u32(val, arg) || *val >= DRACK_MAX_HOSTS ? -1 : 0;
}

int get_class(uint32_t *buf_class, const char *arg)
{
	if (!strcmp(arg, "2k") || !strcmp(arg, "2K") || !strcmp(arg, "2048"))
		*buf_class = DRACK_CLASS_2K;
	else if (!strcmp(arg, "64k") || !strcmp(arg, "64K") ||
		 !strcmp(arg, "65536"))
		*buf_class = DRACK_CLASS_64K;
	else
		return -1;
	return 0;
}

bool ifname_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= IFNAMSIZ || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (*name == '/' || *name == ':' || *name == ' ' ||
		    *name == '\t' || *name == '\n')
			return false;
	return true;
}

static bool ctl_arg_is(const struct ctl_arg *a, const char *arg)
{
	if (a->flags & CTL_ARG_EXACT)
		return !strcmp(arg, a->key) || (a->alias && !strcmp(arg, a->alias));
	return matches(arg, a->key) || (a->alias && matches(arg, a->alias));
}

static bool ctl_arg_have(const struct ctl_arg *a)
{
	return a->have ? *a->have : *a->str != NULL;
}

/* The value @arg of @a: 0, or the exit status after an error message. */
static int ctl_arg_set(const struct ctl_arg *a, const char *arg)
{
	if (ctl_arg_have(a))
		return duparg(a->name ? a->name : a->key, arg);
	if (a->get) {
		if (a->get(a->u32, arg))
			return invarg(a->invalid, arg);
	} else {
		if ((a->flags & CTL_ARG_IFNAME) && !ifname_ok(arg))
			return invarg(a->invalid, arg);
		*a->str = arg;
	}
	if (a->have)
		*a->have = true;
	return 0;
}

int ctl_args(int argc, char **argv, const struct ctl_arg *args,
	     const char *obj, void (*usage)(FILE *out))
{
	const struct ctl_arg *a, *pos;
	int ret;

	for (; argc > 0; argc--, argv++) {
		pos = NULL;
		for (a = args; a->key; a++) {
			if (a->flags & CTL_ARG_POSITIONAL)
				pos = a;
			else if (ctl_arg_is(a, *argv))
				break;
		}
		if (a->key) {
			if (!(a->flags & CTL_ARG_BARE))
				NEXT_ARG();
		} else if (matches(*argv, "help")) {
			usage(stdout);
			return CTL_OK;
		} else if (pos) {
			a = pos;
			if (ctl_arg_is(a, *argv))
				NEXT_ARG();
		} else {
			return garbage(obj, *argv);
		}
		ret = ctl_arg_set(a, *argv);
		if (ret)
			return ret;
	}
	for (a = args; a->key; a++) {
		if ((a->flags & CTL_ARG_REQUIRED) && !ctl_arg_have(a)) {
			fprintf(stderr, "Not enough information: \"%s\" argument is required.\n",
				a->name ? a->name : a->key);
			return CTL_EUSAGE;
		}
	}
	return CTL_MORE;
}
