#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# genl: the generic netlink family "drack", command by command.
#
#   h0 rack0 (host 0) --+
#                       +-- pool 0 (ram, 32 MB, 2 regions), no drack-fmd at first
#   h1 rack0 (host 1) --+
#
# tests/pool/genl (root, raw libnl, not libdrack) sends every command user
# space may send: valid requests (success, sane replies, events) and broken
# ones (attributes missing, mis-sized, out of range, unknown or reply-only;
# unknown pools, Sections, hosts and interfaces; event-only and unknown
# commands; damaged headers; no CAP_NET_ADMIN). Each rejection must carry
# the right errno and an extack message and leave the pool, host and
# Section tables as they were. It runs three times (DRACK_GENL_PHASE):
#   live  both hosts up, no drack-fmd: the program grants Sections itself,
#         registers as the fabric manager (and a second socket is refused),
#         revokes, fences and reclaims (hosts hung and resumed with
#         `ethtool --set-priv-flags rack0 stall on|off`)
#   idle  both links deleted: POOL_FORMAT for real (4 hosts / 4 regions,
#         geometries that do not fit, by the FM only while one is
#         registered), then the module's geometry again
#   fmd   drack-fmd started and both hosts back: they ping each other over
#         the reformatted pool; drack-fmd holds the pool, the program is
#         refused (skipped if this drack-fmd does not register)
#
# What breaks it: a wrong errno or a missing extack message for any
# rejected request, a rejected request that changed a table, a policy that
# lets reply-only or unknown attributes through, a valid request failing or
# answering with missing or wrong attributes, FM registration not exclusive
# or not ended by closing the socket, a Section given back by a hung host
# or not given back once it resumes, reclaim before every live host let
# go of the fenced one, a fenced host that does not rejoin, POOL_FORMAT on
# a busy pool or a formatted pool whose geometry or tables are wrong
# (genl_live, genl_idle, genl_fmd); a pool that carries no traffic after
# being formatted again (fmd_rejoin); Buffers not home, rmmod failing,
# kernel warnings (buffers_home, teardown, dmesg_clean).
. "$(dirname "$0")/lib.sh"

PROG=$DRACK_POOL_BIN/genl
REGIONS=2	# ram_regions, the module's default
POOL_MB=32	# 16 Sections: 55 hosts and more do not fit (a POOL_FORMAT case)

ktap_plan 9

setup_genl() {
	[[ -x $PROG ]] || { echo "no $PROG: run make"; return 1; }
	drack_load "ram_pool_mb=$POOL_MB" "ram_regions=$REGIONS" && drack_host_add 0 && drack_host_add 1 &&
		wait_for 10 sees_peer h0 1 && wait_for 10 sees_peer h1 0
}
# No carrier yet (no Section without a fabric manager), but up and running.
sees_peer() { [[ $(in_ns "$1" cat /sys/class/net/rack0/drack/peers) == "$2" ]]; }
ktap_check setup setup_genl || ktap_finish

# run_prog NAME PHASE: one KTAP result for one run of tests/pool/genl
run_prog() {
	local name=$1 phase=$2 log=$DRACK_LOGDIR/genl-$2.log rc=0
	kmsg "genl phase $phase"
	DRACK_GENL_PHASE=$phase DRACK_GENL_REGIONS=$REGIONS DRACK_POOL_DEV=$DRACK_POOL_DEV \
		timeout 300 "$PROG" >"$log" 2>&1 </dev/null || rc=$?
	if ((rc != 0)); then
		ktap_fail "$name" "tests/pool/genl, phase $phase: rc $rc"
		diag "$(grep -vE '^ok [0-9]+ .* # SKIP|^#      SKIP ' "$log")"
		return 1
	fi
	if grep -qE "^ok [0-9]+ genl\.fm_external # SKIP" "$log" && [[ $phase == fmd ]]; then
		ktap_skip "$name" "$(grep -m1 -oE 'SKIP .*' "$log")"
	else
		ktap_ok "$name"
	fi
	diag "$(grep -E '^(not )?ok [0-9]+ |^# Totals' "$log" | grep -v '# SKIP')"
}

run_prog genl_live live

# Every host leaves: the pool is idle.
hosts_leave() { drack_del_host h0 && drack_del_host h1; }
ktap_check hosts_leave hosts_leave

run_prog genl_idle idle

# readd_host I: rack0 again in the existing netns hI, host id I
readd_host() {
	local i=$1 ns=h$1 mac
	ip link add rack0 netns "$ns" type drack || { echo "ip link add rack0 netns $ns failed"; return 1; }
	DRACK_HOSTS+=("$ns")
	mac=$(in_ns "$ns" cat /sys/class/net/rack0/address)
	[[ $mac == "$(host_mac "$i")" ]] || { echo "$ns: rack0 MAC $mac, expected $(host_mac "$i")"; return 1; }
	ip -n "$ns" addr add "$(ip4 "$i")/24" dev rack0 &&
		ip -n "$ns" addr add "$(ip6 "$i")/64" dev rack0 nodad &&
		ip -n "$ns" link set rack0 up
}

# The reformatted pool carries traffic, Sections granted by drack-fmd.
fmd_rejoin() {
	drack_start_fmd && readd_host 0 && readd_host 1 || return 1
	if ! wait_for 10 has_carrier h0 || ! wait_for 10 has_carrier h1; then echo "no carrier"; return 1; fi
	wait_for 20 ping_once h1 "$(ip4 0)" || { echo "h1 cannot ping h0"; drack_dump_stats; return 1; }
	ping_ok h0 "$(ip4 1)" && ping_ok h1 "$(ip6 0)"
}
ktap_check fmd_rejoin fmd_rejoin

run_prog genl_fmd fmd

drack_finish
