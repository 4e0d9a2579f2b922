#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# privilege: a pool is shared by the whole rack, so joining it and every
# state-changing genl command need CAP_NET_ADMIN in the initial user
# namespace, not just over some network namespace.
#
#   h0 rack0  <-- pool 0 -->  h1 rack0        "tenant": unshare -Urn
#
# The tenant is root in its own user and network namespace (what any
# unprivileged user can make). rtnetlink lets it create links there, so
# only drack's own check stands between it and the pool.
#
# What breaks it: a newlink without the check (link_add_refused), a genl
# command flagged GENL_UNS_ADMIN_PERM or unflagged (genl_write_refused),
# a refusal that still changed the pool (nothing_changed).
. "$(dirname "$0")/lib.sh"


ktap_plan 7

setup_priv() {
	drack_load && drack_start_fmd && drack_host_add 0 && drack_host_add 1 &&
		wait_for 10 has_carrier h0 && wait_for 10 ping_once h0 "$(ip4 1)"
}
ktap_check setup setup_priv || ktap_finish

tenant() { unshare -Urn "$@"; }
# Who is in the pool, in which incarnation (heartbeats move on their own).
hosts_now() {
	"$DRACKCTL" host show 2>&1 |
		sed -E 's/.*(host [0-9]+ state [a-z]+).*(generation [0-9]+).*/\1 \2/'
}
before=$(hosts_now)

link_add_refused() {
	local out rc=0
	out=$(tenant ip link add rack9 type drack 2>&1) || rc=$?
	echo "rc $rc: $out"
	((rc != 0)) || { echo "an unprivileged user joined the pool"; return 1; }
	[[ $out == *"CAP_NET_ADMIN in the initial user namespace"* ]] || {
		echo "no extack message"; return 1; }
}
ktap_check link_add_refused link_add_refused

genl_write_refused() {
	local cmd out rc bad=0
	for cmd in "host fence 1" "section revoke 3" "pool format 0" "nic steer 0 host 1 via 1"; do
		rc=0
		# shellcheck disable=SC2086
		out=$(tenant "$DRACKCTL" $cmd 2>&1) || rc=$?
		if ((rc == 0)); then
			echo "tenant ran drackctl $cmd"; bad=1
		elif [[ $out != *"Operation not permitted"* ]]; then
			echo "drackctl $cmd: unexpected error: $out"; bad=1
		fi
	done
	return $bad
}
ktap_check genl_write_refused genl_write_refused

nothing_changed() {
	local after
	after=$(hosts_now)
	[[ $after == "$before" ]] || { echo "before:"; echo "$before"; echo "after:"; echo "$after"; return 1; }
	ping_once h0 "$(ip4 1)" || { echo "the rack stopped working"; return 1; }
}
ktap_check nothing_changed nothing_changed

drack_finish
