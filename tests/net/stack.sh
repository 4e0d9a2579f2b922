#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# stack: what admins stack on any Ethernet NIC, on rack0.
#
#   h0 v10 / vx0 / gre1 / br0 / bond0 over rack0  <-- pool 0 -->  h1 rack0
#
# A VLAN (TSO passed on, frames by reference), a VXLAN and a GRE tunnel,
# a netem qdisc, rack0 as a bridge port and as a bond's slave (the bond
# reporting the speed set with ethtool on rack0; an 802.3ad bond, which
# sets its slaves' MAC, refused).
#
# What breaks it: vlan_features without the offloads or a tagged frame's
# offsets mangled (vlan_tcp slow, or bad descriptors), encapsulated frames
# dropped (vxlan/gre), a qdisc not used or not removable (netem), a port
# role that refuses rack0 or loses its frames (bridge, bond), link
# settings not kept or a MAC change accepted (bond).

# shellcheck disable=SC2016 # both_ns's $I and $O expand in each netns's sh
. "$(dirname "$0")/lib.sh"

ktap_plan 11
drack_setup 2 || ktap_finish

# both_ns CMD...: CMD in h0 and h1, with I for the host id and O the other's
both_ns() {
	local i o
	for i in 0 1; do
		o=$((1 - i))
		in_ns "h$i" sh -c "I=$i O=$o; $*" || { echo "h$i: $* failed"; return 1; }
	done
}

vlan_up() {
	both_ns 'ip link add link rack0 name v10 type vlan id 10 &&
		ip addr add 10.10.0.$((I + 1))/24 dev v10 && ip link set v10 up'
}
ktap_check vlan_ping eval 'vlan_up && ping_ok h1 10.10.0.1 -s 1400 && ping_ok h0 10.10.0.2 -s 4000'

iperf_server h0 5201 >/dev/null
# tcp_ok DST SECS: an iperf3 stream from h1 to DST moves at least 10 Mbit/s
tcp_ok() {
	local out=$DRACK_LOGDIR/tcp-$1.json
	iperf_run h1 "$1" 5201 "$out" -t "$2" && iperf_result "$out" 10
}
# TSO through the VLAN: frames of tens of KB (not MTU-sized segments),
# each one reference, none bad.
rx_counts() { in_ns h0 cat /sys/class/net/rack0/statistics/rx_packets /sys/class/net/rack0/statistics/rx_bytes | tr '\n' ' '; }
vlan_tcp() {
	local byref bad p0 b0 p1 b1 size
	read -r p0 b0 <<<"$(rx_counts)"
	snap .v h0
	tcp_ok 10.10.0.1 3 || return 1
	read -r p1 b1 <<<"$(rx_counts)"
	byref=$(delta .v h0 rx_byref) && bad=$(delta .v h0 rx_bad_desc) || return 1
	size=$(((b1 - b0) / (p1 > p0 ? p1 - p0 : 1)))
	echo "h0 rx_byref +$byref, rx_bad_desc +$bad, $size bytes per frame"
	((byref > 100 && bad == 0 && size >= 16384))
}
ktap_check vlan_tcp vlan_tcp && diag "$(tail -n 1 "$DRACK_LOGDIR/check.out")"

vxlan() {
	both_ns 'ip link add vx0 type vxlan id 42 dstport 4789 dev rack0 \
		local 198.18.0.$((I + 1)) remote 198.18.0.$((O + 1)) &&
		ip addr add 10.20.0.$((I + 1))/24 dev vx0 && ip link set vx0 up' || return 1
	ping_ok h1 10.20.0.1 -s 1000 || return 1
	tcp_ok 10.20.0.1 2
}
ktap_check vxlan_tcp vxlan

gre() {
	both_ns 'ip link add gre1 type gre local 198.18.0.$((I + 1)) \
		remote 198.18.0.$((O + 1)) && ip addr add 10.30.0.$((I + 1))/24 dev gre1 &&
		ip link set gre1 up' || return 1
	ping_ok h1 10.30.0.1
}
ktap_check gre_ping gre

# netem's delay shows in the RTT; deleting it gives rack0 its mq back.
netem() {
	local rtt q
	in_ns h0 tc qdisc replace dev rack0 root netem delay 40ms || return 1
	rtt=$(in_ns h1 ping -c 2 -i 0.2 -W 2 198.18.0.1 |
		awk -F' = ' '/^rtt/ { split($2, v, "/"); print int(v[1]) }')
	in_ns h0 tc qdisc del dev rack0 root || return 1
	echo "RTT min ${rtt:-?} ms with netem delay 40ms"
	((${rtt:-0} >= 40)) || return 1
	q=$(in_ns h0 tc qdisc show dev rack0)
	[[ $q == "qdisc mq "* ]] || { echo "after tc qdisc del:"; echo "$q"; return 1; }
}
ktap_check netem netem && diag "$(tail -n 2 "$DRACK_LOGDIR/check.out" | head -n 1)"

# rack0 as a port; its addresses move to the bridge and back. The
# bridge goes whatever happened, so one failure fails one check.
bridge() {
	local rc=0
	in_ns h0 sh -c 'ip link add br0 type bridge && ip link set rack0 master br0 &&
		ip addr del 198.18.0.1/24 dev rack0 && ip addr add 198.18.0.1/24 dev br0 &&
		ip link set br0 up' || rc=1
	((rc == 0)) && { wait_for 10 ping_once h1 198.18.0.1 || rc=1; }
	((rc == 0)) && { tcp_ok 198.18.0.1 2 || rc=1; }
	ip -n h0 link del br0 2>/dev/null
	ip -n h0 addr replace 198.18.0.1/24 dev rack0 || rc=1
	((rc == 0)) && ping_ok h1 198.18.0.1
}
ktap_check bridge_port bridge

# A bond cannot give rack0 its MAC: fail_over_mac active leaves it.
bond() {
	local rc=0 speed err
	# A speed for the bond to read when it takes rack0 (as on virtio_net,
	# setting one is no link event: upper devices read it then).
	in_ns h0 ethtool -s rack0 speed 25000 duplex full || rc=1
	in_ns h0 sh -c 'ip link add bond0 type bond mode active-backup miimon 100 \
		fail_over_mac active && ip link set rack0 down && ip link set rack0 master bond0 &&
		ip addr add 10.50.0.1/24 dev bond0 && ip link set bond0 up' || rc=1
	((rc == 0)) && { ip -n h1 addr add 10.50.0.2/24 dev rack0 || rc=1; }
	((rc == 0)) && { wait_for 10 ping_once h1 10.50.0.1 || rc=1; }
	# The bond reports its active slave's speed: the one set on rack0.
	if ((rc == 0)); then
		speed=$(in_ns h0 ethtool bond0 | sed -n 's/^[[:space:]]*Speed: //p')
		echo "bond0 speed: ${speed:-none} (rack0 set to 25000Mb/s)"
		[[ $speed == 25000Mb/s ]] || rc=1
	fi
	# Modes that give every slave the bond's MAC cannot take rack0, and
	# say why.
	if ((rc == 0)); then
		in_ns h0 ip link add bond1 type bond mode 802.3ad || rc=1
		in_ns h0 ip link set rack0 nomaster || rc=1
		if ((rc == 0)) && err=$(in_ns h0 ip link set rack0 master bond1 2>&1); then
			echo "an 802.3ad bond took rack0, whose MAC cannot change"
			rc=1
		elif ((rc == 0)); then
			echo "802.3ad: $err"
			[[ $err == *"Operation not supported"* || $err == *"MAC address"* ]] || rc=1
		fi
	fi
	ip -n h0 link del bond1 2>/dev/null
	ip -n h0 link del bond0 2>/dev/null
	ip -n h0 link set rack0 up || rc=1
	ip -n h0 addr replace 198.18.0.1/24 dev rack0 || rc=1
	ip -n h0 addr replace 2001:db8:d7::1/64 dev rack0 nodad || rc=1
	((rc == 0)) && wait_for 10 has_carrier h0 && ping_ok h1 198.18.0.1
}
ktap_check bond_port bond

drack_finish
