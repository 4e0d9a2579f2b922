// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic policy: how this network namespace spreads its traffic to
 * other racks over its vNICs, one policy at a time:
 *
 *	mptcp	MPTCP subflow endpoints on the vNICs ("nic mptcp on")
 *	ecmp	tc program drack_ecmp on the vNICs' egress: the vNIC of a
 *		flow by the hash of its addresses and ports
 *	spray	drack_spray: every packet through the next vNIC
 *	none	no program, no MPTCP endpoint
 *
 * ecmp and spray spread over the vNICs that are up (and have carrier)
 * when the command runs, and attach to every vNIC or, with "dev VNIC",
 * to the one the applications send through. Setting a policy first takes
 * the other policies' programs and endpoints away. The programs and
 * their loading are in ctl-nic-bpf.c and bpf/nic_policy.bpf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "ctl.h"
#include "ctl-nic-bpf.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl nic policy { mptcp | ecmp | spray | none } [ dev VNIC ]\n"
		"       drackctl nic policy [ show [ dev VNIC ] ]\n"
		"       drackctl nic policy help\n"
		"ecmp:  a tc program on the vNICs' egress sends each flow (by the hash of\n"
		"       its addresses and ports) through one vNIC;\n"
		"spray: every packet through the next vNIC, round robin;\n"
		"mptcp: MPTCP endpoints on every vNIC, as \"nic mptcp on\";\n"
		"none:  no program, no MPTCP endpoint.\n"
		"ecmp and spray spread over every vNIC of this network namespace that is\n"
		"up, from every vNIC or, with dev, from VNIC only.\n");
}

static const struct {
	const char *name;
	enum ctl_policy policy;
} policies[] = {
	{ "mptcp", CTL_POLICY_MPTCP },
	{ "ecmp", CTL_POLICY_ECMP },
	{ "spray", CTL_POLICY_SPRAY },
	{ "none", CTL_POLICY_NONE },
};

/* "dev VNIC": a vNIC of @vs, or an error message. */
static int policy_dev(const struct ctl_vnics *vs, const char *dev,
		      const struct ctl_vnic **v)
{
	*v = ctl_vnic_by_name(vs, dev);
	if (*v)
		return CTL_OK;
	if (!if_nametoindex(dev))
		return ctl_link_err(dev, -ENODEV);
	fprintf(stderr, "Error: \"%s\" is not a vNIC of this network namespace (see \"drackctl nic show\").\n",
		dev);
	return CTL_EUSAGE;
}

/* "Error: WHAT: strerror." with a hint for missing privileges. */
static int bpf_err(int err, const char *what, const char *dev)
{
	fprintf(stderr, "Error: %s%s%s: %s%s.\n", what, dev ? " " : "",
		dev ? dev : "", strerror(-err),
		err == -EPERM ? " (run it as root)" : "");
	return CTL_EKERNEL;
}

/* ---- show ---------------------------------------------------------- */

static void print_targets(const struct drack_policy_conf *c)
{
	char name[IF_NAMESIZE + 8];
	uint32_t i;

	open_json_array(PRINT_JSON, "targets");
	print_string(PRINT_FP, NULL, "%s", " targets ");
	for (i = 0; i < c->nr; i++) {
		if (!if_indextoname(c->vnic[i].ifindex, name))
			snprintf(name, sizeof(name), "if%u", c->vnic[i].ifindex);
		print_string(PRINT_FP, NULL, "%s", i ? "," : "");
		print_string(PRINT_ANY, NULL, "%s", name);
	}
	close_json_array(PRINT_JSON, NULL);
}

static int policy_show(const struct ctl_vnics *vs, const struct ctl_vnic *only)
{
	unsigned int *eps = calloc(vs->n ? vs->n : 1, sizeof(*eps));
	struct ctl_bpf_info info;
	enum ctl_policy p;
	int i, err, ret;

	if (!eps)
		return ctl_err(-ENOMEM, NULL, "nic policy show");
	ret = ctl_nic_mptcp_count(vs, eps);
	new_json_obj();
	for (i = 0; i < vs->n; i++) {
		if (only && only != &vs->v[i])
			continue;
		err = ctl_bpf_query((int)vs->v[i].ifindex, &info);
		if (err < 0) {
			err = bpf_err(err, "reading the policy program of",
				      vs->v[i].name);
			ret = ret ? ret : err;
			continue;
		}
		p = err ? info.policy :
		    eps[i] ? CTL_POLICY_MPTCP : CTL_POLICY_NONE;
		open_json_object(NULL);
		print_string(PRINT_ANY, "dev", "%s", vs->v[i].name);
		print_uint(PRINT_ANY, "pool", " pool %u", vs->v[i].pool);
		print_uint(PRINT_ANY, "nic", " nic %u", vs->v[i].nic);
		print_string(PRINT_ANY, "policy", " policy %s",
			     ctl_policy_name(p));
		if (err) {
			print_uint(PRINT_ANY, "prog_id", " prog %u",
				   info.prog_id);
			if (p == CTL_POLICY_OTHER)
				print_string(PRINT_ANY, "prog_name", " name %s",
					     info.name[0] ? info.name : "?");
			if (info.have_conf)
				print_targets(&info.conf);
		}
		print_uint(PRINT_JSON, "mptcp_endpoints", NULL, eps[i]);
		if (eps[i] && p != CTL_POLICY_MPTCP)
			print_uint(PRINT_FP, NULL, " mptcp_endpoints %u", eps[i]);
		close_json_object();
		print_nl();
	}
	delete_json_obj();
	free(eps);
	return ret;
}

/* ---- set ----------------------------------------------------------- */

/* Flags and MAC of interface @name: 0 or -errno. */
static int link_state(int sk, const char *name, short *flags, uint8_t *mac)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sk, SIOCGIFFLAGS, &ifr))
		return -errno;
	*flags = ifr.ifr_flags;
	if (ioctl(sk, SIOCGIFHWADDR, &ifr))
		return -errno;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* The vNICs to spread over: those up with carrier. CTL_OK or an error. */
static int policy_conf(const struct ctl_vnics *vs,
		       struct drack_policy_conf *c)
{
	struct drack_policy_vnic *t;
	int sk, i, err;
	short flags = 0;

	memset(c, 0, sizeof(*c));
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return ctl_err(-errno, NULL, "socket");
	for (i = 0; i < vs->n; i++) {
		t = &c->vnic[c->nr];
		err = link_state(sk, vs->v[i].name, &flags, t->mac);
		if (err) {
			close(sk);
			return ctl_err(err, NULL, vs->v[i].name);
		}
		if ((flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING)) {
			fprintf(stderr, "Warning: %s is %s: not spread over.\n",
				vs->v[i].name,
				flags & IFF_UP ? "without carrier" : "down");
			continue;
		}
		if (c->nr == DRACK_POLICY_MAX) {
			fprintf(stderr, "Warning: more than %d vNICs: %s and the following ones are not spread over.\n",
				DRACK_POLICY_MAX, vs->v[i].name);
			break;
		}
		t->ifindex = vs->v[i].ifindex;
		c->nr++;
	}
	close(sk);
	if (!c->nr) {
		fprintf(stderr, "Error: no vNIC is up: nothing to spread over.\n");
		return CTL_EKERNEL;
	}
	if (c->nr == 1)
		fprintf(stderr, "Warning: only one vNIC is up: its traffic stays on it.\n");
	return CTL_OK;
}

/* Our program off vNIC @v and, with @tidy, its clsact if left empty. */
static int policy_off(const struct ctl_vnic *v, bool tidy, bool *had)
{
	int err = ctl_bpf_detach((int)v->ifindex);

	/*
	 * The error test comes before the store to *had: QEMU's TCG (the
	 * guest tests) took "js" after "test; setg mem" with a zero result.
	 */
	if (err < 0)
		return bpf_err(err, "removing the policy program of", v->name);
	if (had)
		*had = err;
	if (err && tidy) {
		err = ctl_bpf_tidy((int)v->ifindex);
		if (err < 0)
			return bpf_err(err, "removing the policy program of",
				       v->name);
	}
	return CTL_OK;
}

static int policy_bpf(const struct ctl_vnics *vs, enum ctl_policy p,
		      const struct ctl_vnic *only)
{
	struct drack_policy_conf conf;
	struct ctl_bpf *b;
	bool *had, *on;
	int i, err, ret;

	ret = policy_conf(vs, &conf);
	if (ret)
		return ret;
	b = ctl_bpf_load(p, &conf, &err);
	if (!b)
		return bpf_err(err, "loading the BPF program of policy",
			       ctl_policy_name(p));
	had = calloc(2 * vs->n, sizeof(*had));
	if (!had) {
		ctl_bpf_close(b);
		return ctl_err(-ENOMEM, NULL, "nic policy");
	}
	on = had + vs->n;
	ret = ctl_nic_mptcp_set(vs, false);
	/*
	 * Off everywhere before on anywhere: an old program (with per-CPU
	 * state of its own) and the new one never redirect to each other.
	 */
	for (i = 0; i < vs->n && !ret; i++)
		ret = policy_off(&vs->v[i], false, &had[i]);
	for (i = 0; i < vs->n && !ret; i++) {
		if (only && only != &vs->v[i])
			continue;
		err = ctl_bpf_attach(b, (int)vs->v[i].ifindex);
		if (err)
			ret = bpf_err(err, "attaching the policy program to",
				      vs->v[i].name);
		on[i] = !err;
	}
	ctl_bpf_close(b);
	/* Failed: none left anywhere. No program: no clsact of ours. */
	for (i = 0; i < vs->n; i++) {
		if (ret && on[i])
			policy_off(&vs->v[i], true, NULL);
		else if (had[i] && !on[i])
			ctl_bpf_tidy((int)vs->v[i].ifindex);
	}
	free(had);
	return ret;
}

static int policy_set(const struct ctl_vnics *vs, enum ctl_policy p,
		      const struct ctl_vnic *only)
{
	int i, r, ret;

	if (p == CTL_POLICY_ECMP || p == CTL_POLICY_SPRAY)
		return policy_bpf(vs, p, only);
	for (ret = CTL_OK, i = 0; i < vs->n; i++) {
		r = policy_off(&vs->v[i], true, NULL);
		ret = ret ? ret : r;
	}
	r = ctl_nic_mptcp_set(vs, p == CTL_POLICY_MPTCP);
	return ret ? ret : r;
}

int do_nic_policy(int argc, char **argv)
{
	const struct ctl_vnic *only = NULL;
	enum ctl_policy p = CTL_POLICY_NONE;
	const char *dev = NULL;
	const struct ctl_arg args[] = {
		{ .key = "dev", .str = &dev,
		  .flags = CTL_ARG_POSITIONAL | CTL_ARG_IFNAME,
		  .invalid = "not a valid ifname" },
		{ 0 }
	};
	struct ctl_vnics vs;
	bool show = false;
	size_t i;
	int ret;

	if (argc < 1 || matches(*argv, "show") || matches(*argv, "list")) {
		show = true;
	} else if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	} else {
		for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
			if (!strcmp(*argv, policies[i].name))
				break;
		if (i == sizeof(policies) / sizeof(policies[0])) {
			fprintf(stderr, "Error: unknown policy \"%s\": mptcp, ecmp, spray or none (try \"drackctl nic policy help\").\n",
				*argv);
			return CTL_EUSAGE;
		}
		p = policies[i].policy;
	}
	if (argc > 0) {
		ret = ctl_args(argc - 1, argv + 1, args, "nic policy", usage);
		if (ret != CTL_MORE)
			return ret;
	}
	if (dev && !show && p != CTL_POLICY_ECMP && p != CTL_POLICY_SPRAY) {
		fprintf(stderr, "Error: \"dev\" goes with ecmp and spray only: %s is for every vNIC.\n",
			ctl_policy_name(p));
		return CTL_EUSAGE;
	}
	ret = ctl_vnics(&vs);
	if (ret)
		return ret;
	if (dev)
		ret = policy_dev(&vs, dev, &only);
	if (!ret && show)
		ret = policy_show(&vs, only);
	else if (!ret && !vs.n && p != CTL_POLICY_NONE) {
		fprintf(stderr, "Error: no vNIC in this network namespace (see \"drackctl nic show\").\n");
		ret = CTL_EKERNEL;
	} else if (!ret) {
		ret = policy_set(&vs, p, only);
	}
	ctl_vnics_free(&vs);
	return ret;
}
