# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The NIC pool's lab in one guest, shared by nic.sh and nic_policy.sh
# (sourced after lib.sh and drack_setup 2):
#
#   h0 eth1 (NIC 0) --+
#                     +-- x0: bridge br0, $X.100/24 (the world outside)
#   h1 eth1 (NIC 1) --+
#
#   nic_lab                 x0, br0 and the two veth "physical" NICs
#   vnic_addr NS DEV IP T   IP on DEV with a routing table T of its own
#   nic_wait_vnics          until h0 and h1 have rack0v0 and rack0v1 up
#   nic_lab_up              all of it: both NICs exported, hN rack0vV on
#                           $X.(10 * (N + 1) + V), table 100 + V
#   nic_lab_down            both NICs unexported, until the vNICs are gone

X=10.9.0

# Several vNICs share one subnet: a socket bound to IP must leave by DEV.
vnic_addr() {
	local ns=$1 dev=$2 ip=$3 t=$4
	ip -n "$ns" addr add "$ip/24" dev "$dev" || return 1
	ip -n "$ns" link set "$dev" up || return 1
	ip -n "$ns" route add "$X.0/24" dev "$dev" src "$ip" table "$t" || return 1
	ip -n "$ns" rule add from "$ip" table "$t" || return 1
}

nic_lab() {
	local i
	drack_netns_add x0 || return 1
	ip -n x0 link add br0 type bridge || return 1
	ip -n x0 link set br0 up
	ip -n x0 addr add "$X.100/24" dev br0 || return 1
	for i in 0 1; do
		ip link add eth1 netns "h$i" type veth peer p$i netns x0 || return 1
		ip -n x0 link set "p$i" master br0 up || return 1
		ip -n "h$i" link set eth1 up || return 1
		in_ns "h$i" sysctl -qw net.ipv4.conf.all.arp_ignore=1 \
			net.ipv4.conf.all.arp_announce=2 net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0
	done
}

nic_vnics_exist() {
	local i v
	for i in 0 1; do
		for v in 0 1; do ip -n "h$i" link set "rack0v$v" up 2>/dev/null || return 1; done
	done
}

nic_vnics_up() {
	local i v
	for i in 0 1; do
		for v in 0 1; do has_carrier "h$i" "rack0v$v" || return 1; done
	done
}

nic_wait_vnics() {
	wait_for 20 nic_vnics_exist && wait_for 10 nic_vnics_up && return 0
	for i in 0 1; do ip -n "h$i" -br link; done
	in_ns h0 "$DRACKCTL" nic show pool 0
	tail -n 20 /tmp/fmd.log
	return 1
}

nic_lab_up() {
	local i out
	nic_lab || return 1
	for i in 0 1; do
		out=$(in_ns "h$i" "$DRACKCTL" nic export dev eth1 2>&1) ||
			{ echo "h$i: drackctl nic export dev eth1: $out"; return 1; }
	done
	nic_wait_vnics || return 1
	vnic_addr h0 rack0v0 "$X.10" 100 && vnic_addr h0 rack0v1 "$X.11" 101 &&
		vnic_addr h1 rack0v0 "$X.20" 100 && vnic_addr h1 rack0v1 "$X.21" 101
}

nic_lab_down() {
	local i
	for i in 0 1; do in_ns "h$i" "$DRACKCTL" nic unexport dev eth1 || return 1; done
	for i in 0 1; do
		wait_for 10 eval "! ip -n h$i link show rack0v0 && ! ip -n h$i link show rack0v1" ||
			{ echo "h$i still has a vNIC"; return 1; }
	done
}
