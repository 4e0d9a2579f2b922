// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the user-space parsers: drackctl's command line
 * (tools/drackctl/ctl-args.c: abbreviations, numbers, host ids, Buffer classes,
 * interface names, keyword tables) and libdrack's names of uapi values
 * (lib/names.c). Error messages on stderr are expected.
 */
#include <limits.h>
#include "ctl.h"
#include "kselftest_harness.h"

TEST(parse_matches)
{
	ASSERT_TRUE(matches("s", "show"));
	ASSERT_TRUE(matches("sh", "show"));
	ASSERT_TRUE(matches("show", "show"));
	ASSERT_FALSE(matches("", "show"));
	ASSERT_FALSE(matches("shows", "show"));
	ASSERT_FALSE(matches("how", "show"));
	ASSERT_FALSE(matches("Show", "show"));
}

TEST(parse_u32)
{
	uint32_t v = 7;

	ASSERT_EQ(0, get_u32(&v, "0"));
	ASSERT_EQ(0U, v);
	ASSERT_EQ(0, get_u32(&v, "4294967295"));
	ASSERT_EQ(UINT32_MAX, v);
	ASSERT_EQ(0, get_u32(&v, "0x10"));
	ASSERT_EQ(16U, v);
	ASSERT_EQ(0, get_u32(&v, "010"));	/* strtoul base 0: octal */
	ASSERT_EQ(8U, v);
	v = 7;
	ASSERT_EQ(-1, get_u32(&v, "4294967296"));
	ASSERT_EQ(-1, get_u32(&v, "99999999999999999999999"));
	ASSERT_EQ(-1, get_u32(&v, "-1"));
	ASSERT_EQ(-1, get_u32(&v, "-0"));
	ASSERT_EQ(-1, get_u32(&v, "-18446744073709551615"));	/* strtoul: 1 */
	ASSERT_EQ(-1, get_u32(&v, "+1"));
	ASSERT_EQ(-1, get_u32(&v, ""));
	ASSERT_EQ(-1, get_u32(&v, NULL));
	ASSERT_EQ(-1, get_u32(&v, "12a"));
	ASSERT_EQ(-1, get_u32(&v, "1 "));
	ASSERT_EQ(-1, get_u32(&v, "0x"));
	ASSERT_EQ(-1, get_u32(&v, "09"));
	ASSERT_EQ(7U, v);	/* untouched on error */
}

TEST(parse_host_id)
{
	uint32_t v;

	ASSERT_EQ(0, get_host_id(&v, "0"));
	ASSERT_EQ(0U, v);
	ASSERT_EQ(0, get_host_id(&v, "63"));
	ASSERT_EQ(63U, v);
	ASSERT_EQ(-1, get_host_id(&v, "64"));
	ASSERT_EQ(-1, get_host_id(&v, "4294967295"));
	ASSERT_EQ(-1, get_host_id(&v, "-1"));
	ASSERT_EQ(-1, get_host_id(&v, "one"));
}

TEST(parse_class)
{
	static const char *const c2k[] = { "2k", "2K", "2048" };
	static const char *const c64k[] = { "64k", "64K", "65536" };
	static const char *const bad[] = {
		"", "2", "4k", "2kb", "64", "65535", "2k ", "0x800", "large",
	};
	uint32_t c;
	size_t i;

	for (i = 0; i < sizeof(c2k) / sizeof(c2k[0]); i++) {
		c = 9;
		ASSERT_EQ(0, get_class(&c, c2k[i]));
		ASSERT_EQ((uint32_t)DRACK_CLASS_2K, c);
	}
	for (i = 0; i < sizeof(c64k) / sizeof(c64k[0]); i++) {
		c = 9;
		ASSERT_EQ(0, get_class(&c, c64k[i]));
		ASSERT_EQ((uint32_t)DRACK_CLASS_64K, c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-1, get_class(&c, bad[i])) TH_LOG("bad[%zu]", i);
	/* What libdrack prints, drackctl reads back. */
	for (i = 0; i < DRACK_NR_CLASSES; i++) {
		ASSERT_EQ(0, get_class(&c, drack_class_name(i)));
		ASSERT_EQ(i, c);
	}
}

TEST(parse_ifname)
{
	ASSERT_TRUE(ifname_ok("eth0"));
	ASSERT_TRUE(ifname_ok("rack0"));
	ASSERT_TRUE(ifname_ok("..."));
	ASSERT_TRUE(ifname_ok("a-b_c.d@e"));
	ASSERT_TRUE(ifname_ok("123456789012345"));	/* IFNAMSIZ - 1 */
	ASSERT_FALSE(ifname_ok("1234567890123456"));
	ASSERT_FALSE(ifname_ok(""));
	ASSERT_FALSE(ifname_ok("."));
	ASSERT_FALSE(ifname_ok(".."));
	ASSERT_FALSE(ifname_ok("a/b"));
	ASSERT_FALSE(ifname_ok("a:b"));
	ASSERT_FALSE(ifname_ok("a b"));
	ASSERT_FALSE(ifname_ok("a\tb"));
	ASSERT_FALSE(ifname_ok("a\n"));
}

/* ---- ctl_args(): a command's keyword table ---- */

static int usage_calls;

static void usage(FILE *out)
{
	(void)out;
	usage_calls++;
}

struct cmd {
	uint32_t pool, host, cls;
	bool have_pool, have_host, have_cls, force;
	const char *dev;
};

static int get_force(uint32_t *val, const char *arg)
{
	(void)arg;
	*val = 1;
	return 0;
}

/* "pool ID host ID [ class CLASS ] [ force ] [ [ dev ] DEV ]" */
static int parse(struct cmd *c, int argc, char **argv)
{
	uint32_t force = 0;
	bool have_force = false;
	const struct ctl_arg args[] = {
		{ .key = "pool", .flags = CTL_ARG_REQUIRED, .get = get_u32,
		  .u32 = &c->pool, .have = &c->have_pool,
		  .invalid = "not a pool id" },
		{ .key = "host", .alias = "id", .get = get_host_id,
		  .u32 = &c->host, .have = &c->have_host,
		  .invalid = "not a host id" },
		{ .key = "class", .flags = CTL_ARG_EXACT, .get = get_class,
		  .u32 = &c->cls, .have = &c->have_cls,
		  .invalid = "not a Buffer class" },
		{ .key = "force", .flags = CTL_ARG_BARE | CTL_ARG_EXACT,
		  .get = get_force, .u32 = &force, .have = &have_force },
		{ .key = "dev", .flags = CTL_ARG_POSITIONAL | CTL_ARG_IFNAME,
		  .str = &c->dev, .invalid = "not a valid ifname" },
		{ 0 }
	};
	int ret;

	memset(c, 0, sizeof(*c));
	ret = ctl_args(argc, argv, args, "test", usage);
	c->force = force;
	return ret;
}

#define PARSE(c, ...) ({						\
	char *_argv[] = { __VA_ARGS__ };				\
	parse((c), sizeof(_argv) / sizeof(_argv[0]), _argv);		\
})

TEST(args_table)
{
	struct cmd c;

	ASSERT_EQ(CTL_MORE, PARSE(&c, "pool", "3", "host", "2"));
	ASSERT_TRUE(c.have_pool);
	ASSERT_EQ(3U, c.pool);
	ASSERT_TRUE(c.have_host);
	ASSERT_EQ(2U, c.host);
	ASSERT_FALSE(c.have_cls);
	ASSERT_FALSE(c.force);
	ASSERT_EQ(NULL, c.dev);
	/* Abbreviations, the alias, a bare flag, the positional word. */
	ASSERT_EQ(CTL_MORE, PARSE(&c, "po", "0x7", "id", "63", "force",
				  "eth0"));
	ASSERT_EQ(7U, c.pool);
	ASSERT_EQ(63U, c.host);
	ASSERT_TRUE(c.force);
	ASSERT_STREQ("eth0", c.dev);
	ASSERT_EQ(CTL_MORE, PARSE(&c, "dev", "rack0", "class", "64k", "pool",
				  "1"));
	ASSERT_STREQ("rack0", c.dev);
	ASSERT_EQ((uint32_t)DRACK_CLASS_64K, c.cls);
	/* "help" anywhere prints the usage and ends the command. */
	usage_calls = 0;
	ASSERT_EQ(CTL_OK, PARSE(&c, "pool", "1", "help"));
	ASSERT_EQ(1, usage_calls);
}

TEST(args_table_errors)
{
	struct cmd c;

	/* Required argument missing. */
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "host", "2"));
	/* Keyword without its value. */
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "dev"));
	/* Twice the same. */
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "pool", "2"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "host", "2", "id", "3"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "eth0", "eth1"));
	/* Bad values. */
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "-1"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "host", "64"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "class", "4k"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "a/b"));
	ASSERT_EQ(CTL_EUSAGE, PARSE(&c, "pool", "1", "dev", "12345678901234567"));
	/* EXACT keywords are not abbreviated: "cl" is taken as a device. */
	ASSERT_EQ(CTL_MORE, PARSE(&c, "pool", "1", "cl"));
	ASSERT_STREQ("cl", c.dev);
	ASSERT_FALSE(c.have_cls);
}

/* Without a positional entry, an unknown word is garbage. */
TEST(args_table_garbage)
{
	uint32_t v = 0;
	bool have = false;
	const struct ctl_arg args[] = {
		{ .key = "pool", .get = get_u32, .u32 = &v, .have = &have,
		  .invalid = "not a pool id" },
		{ 0 }
	};
	char *ok[] = { "pool", "5" };
	char *bad[] = { "pool", "5", "bogus" };

	ASSERT_EQ(CTL_MORE, ctl_args(2, ok, args, "test", usage));
	ASSERT_EQ(5U, v);
	have = false;
	ASSERT_EQ(CTL_EUSAGE, ctl_args(3, bad, args, "test", usage));
	have = false;
	ASSERT_EQ(CTL_MORE, ctl_args(0, NULL, args, "test", usage));
	ASSERT_FALSE(have);
}

/* ---- libdrack's names ---- */

TEST(host_state_names)
{
	ASSERT_STREQ("free", drack_host_state_name(DRACK_HOST_FREE));
	ASSERT_STREQ("joining", drack_host_state_name(DRACK_HOST_JOINING));
	ASSERT_STREQ("up", drack_host_state_name(DRACK_HOST_UP));
	ASSERT_STREQ("leaving", drack_host_state_name(DRACK_HOST_LEAVING));
	ASSERT_STREQ("dead", drack_host_state_name(DRACK_HOST_DEAD));
	ASSERT_STREQ("?", drack_host_state_name(DRACK_HOST_NR_STATES));
	ASSERT_STREQ("?", drack_host_state_name(UINT32_MAX));
}

TEST(class_and_nic_names)
{
	ASSERT_STREQ("2k", drack_class_name(DRACK_CLASS_2K));
	ASSERT_STREQ("64k", drack_class_name(DRACK_CLASS_64K));
	ASSERT_STREQ("?", drack_class_name(DRACK_NR_CLASSES));
	ASSERT_STREQ("free", drack_nic_state_name(DRACK_NIC_FREE));
	ASSERT_STREQ("up", drack_nic_state_name(DRACK_NIC_UP));
	ASSERT_STREQ("down", drack_nic_state_name(DRACK_NIC_DOWN));
	ASSERT_STREQ("?", drack_nic_state_name(DRACK_NIC_NR_STATES));
}

/* The carrier reasons as drackctl -j and ip -d link show print them. */
TEST(carrier_reason_names)
{
	ASSERT_STREQ("none", drack_carrier_reason_name(DRACK_CARRIER_OK));
	ASSERT_STREQ("no_peer", drack_carrier_reason_name(DRACK_CARRIER_NO_PEER));
	ASSERT_STREQ("waiting", drack_carrier_reason_name(DRACK_CARRIER_WAITING));
	ASSERT_STREQ("no_fm", drack_carrier_reason_name(DRACK_CARRIER_NO_FM));
	ASSERT_STREQ("quota", drack_carrier_reason_name(DRACK_CARRIER_QUOTA));
	ASSERT_STREQ("pool_full",
		     drack_carrier_reason_name(DRACK_CARRIER_POOL_FULL));
	ASSERT_STREQ("fenced", drack_carrier_reason_name(DRACK_CARRIER_FENCED));
	ASSERT_STREQ("?", drack_carrier_reason_name(DRACK_CARRIER_MAX + 1));
	ASSERT_STREQ("?", drack_carrier_reason_name(0xffffffff));
}

/*
 * Every counter has a name, a distinct one; none for UNSPEC or beyond
 * the last.
 */
TEST(stat_names)
{
	const char *a, *b;
	uint32_t i, j;

	ASSERT_EQ(NULL, drack_stat_name(DRACK_STAT_UNSPEC));
	for (i = 1; i <= DRACK_STAT_MAX; i++) {
		a = drack_stat_name(i);
		ASSERT_NE(NULL, a) TH_LOG("stat %u", i);
		ASSERT_NE(0, a[0]);
		for (j = 1; j < i; j++) {
			b = drack_stat_name(j);
			ASSERT_NE(0, strcmp(a, b)) TH_LOG("%u %u: %s", i, j, a);
		}
	}
	ASSERT_STREQ("tx_packets", drack_stat_name(DRACK_STAT_TX_PACKETS));
	ASSERT_STREQ("fenced", drack_stat_name(DRACK_STAT_FENCED));
	ASSERT_EQ(NULL, drack_stat_name(DRACK_STAT_MAX + 1));
	ASSERT_EQ(NULL, drack_stat_name(UINT32_MAX));
}

TEST_HARNESS_MAIN
