#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# basic: two hosts over one RAM pool.
#
#   h0 rack0 198.18.0.1 2001:db8:d7::1  <-- pool 0 -->  h1 rack0 198.18.0.2 2001:db8:d7::2
#
# ping v4/v6 (ARP and ND resolve to the drack MACs), iperf3 TCP 4 streams
# both ways, UDP datagrams larger than the MTU (IP fragments), 4000-byte
# pings, carrier following the peer, ethtool -i/-g/-l/-T and link
# settings (speed, duplex; ethtool -s), Buffers back
# home.
#
# What breaks it: no delivery or wrong MACs (ping/neigh), broadcast not
# replicated (ARP, ND), lost or reordered fragments (udp/ping_4000), a
# stuck queue (iperf3 throughput 0), carrier not tracking the peer's
# up/down, Buffers not returned (buffers_home), bad-descriptor counters
# moving on clean traffic (counters), rmmod failing (teardown).
. "$(dirname "$0")/lib.sh"

ktap_plan 18
drack_setup 2 || ktap_finish

ethtool_driver() {
	local ns drv
	for ns in h0 h1; do
		drv=$(in_ns "$ns" ethtool -i rack0 | awk '$1 == "driver:" { print $2 }')
		[[ $drv == drack ]] || { echo "$ns: ethtool -i driver '$drv'"; return 1; }
	done
}
ktap_check ethtool_driver ethtool_driver

# What every NIC answers: rings (the pool's ref_queue size, fixed by its
# format), queue pairs, software timestamps; changes it cannot make are
# refused.
ethtool_queries() {
	local g l t want
	g=$(in_ns h0 ethtool -g rack0) || { echo "ethtool -g failed"; return 1; }
	l=$(in_ns h0 ethtool -l rack0) || { echo "ethtool -l failed"; return 1; }
	t=$(in_ns h0 ethtool -T rack0) || { echo "ethtool -T failed"; return 1; }
	awk '/^RX:/ { n++; if ($2 + 0 < 64) bad = 1 } END { exit !(n == 2 && !bad) }' <<<"$g" ||
		{ echo "ethtool -g:"; echo "$g"; return 1; }
	# Maximum: the pool's ref_queues per pair (4 by default); in use:
	# one per online CPU up to that.
	want=$(($(nproc) < 4 ? $(nproc) : 4))
	awk -v want="$want" '/^Combined:/ { n++; v[n] = $2 }
		END { exit !(n == 2 && v[1] == 4 && v[2] == want) }' <<<"$l" ||
		{ echo "ethtool -l (want max 4, current $want):"; echo "$l"; return 1; }
	grep -q "software-transmit" <<<"$t" || { echo "ethtool -T:"; echo "$t"; return 1; }
	if in_ns h0 ethtool -L rack0 combined 5 2>/dev/null; then echo "ethtool -L combined 5 accepted"; return 1; fi
	if in_ns h0 ethtool -L rack0 combined 0 2>/dev/null; then echo "ethtool -L combined 0 accepted"; return 1; fi
	if in_ns h0 ethtool -G rack0 rx 64 2>/dev/null; then echo "ethtool -G rx 64 accepted"; return 1; fi
	[[ $(in_ns h0 ethtool -l rack0) == "$l" ]] || { echo "a refused ethtool -L changed the channels"; return 1; }
	echo "rings $(awk '/^RX:/ { print $2; exit }' <<<"$g"), combined $want of 4"
}
ktap_check ethtool_queries ethtool_queries && diag "$(tail -n 1 "$DRACK_LOGDIR/check.out")"

# Link settings as on virtio_net: full duplex, speed unknown until an admin
# sets one for upper devices (a bond in 802.3ad mode); autoneg refused.
link_settings() {
	local s
	s=$(in_ns h0 ethtool rack0) || { echo "ethtool rack0 failed"; return 1; }
	[[ $s == *"Speed: Unknown"* && $s == *"Duplex: Full"* && $s == *"Port: Other"* ]] ||
		{ echo "ethtool rack0:"; echo "$s"; return 1; }
	in_ns h0 ethtool -s rack0 speed 100000 duplex full || { echo "ethtool -s speed 100000 failed"; return 1; }
	s=$(in_ns h0 ethtool rack0)
	[[ $s == *"Speed: 100000Mb/s"* ]] || { echo "after ethtool -s speed 100000:"; echo "$s"; return 1; }
	if in_ns h0 ethtool -s rack0 autoneg on 2>/dev/null; then echo "ethtool -s autoneg on accepted"; return 1; fi
	[[ $(in_ns h1 ethtool rack0) == *"Speed: Unknown"* ]] || { echo "h1's speed changed with h0's"; return 1; }
}
ktap_check link_settings link_settings

ktap_check ping4 eval 'ping_ok h0 198.18.0.2 && ping_ok h1 198.18.0.1'
ktap_check ping6 eval 'ping_ok h0 2001:db8:d7::2 && ping_ok h1 2001:db8:d7::1'

# neigh_ok NS ADDR MAC: a resolved neighbour entry with the drack MAC
neigh_ok() {
	local e
	e=$(ip -n "$1" neigh show "$2" dev rack0)
	echo "$1: $e"
	[[ $e == *"lladdr $3"* ]] || { echo "$1: $2 not resolved to $3"; return 1; }
	[[ $e != *FAILED* && $e != *INCOMPLETE* ]]
}
ktap_check neigh_arp eval 'neigh_ok h0 198.18.0.2 $(host_mac 1) && neigh_ok h1 198.18.0.1 $(host_mac 0)'
ktap_check neigh_nd eval 'neigh_ok h0 2001:db8:d7::2 $(host_mac 1) && neigh_ok h1 2001:db8:d7::1 $(host_mac 0)'

iperf_server h0 5201 >/dev/null
iperf_check tcp_4streams h1 198.18.0.1 5201 10 100 -t 5 -P 4
iperf_check tcp_4streams_reverse h1 198.18.0.1 5201 10 100 -t 5 -P 4 -R
# 8000-byte datagrams are IP fragments on a 1500 MTU: every one of them
# must arrive for the datagram to count. Big socket buffers, so that a
# slow iperf3 server under TCG does not count as loss on the link.
sysctl -qw net.core.rmem_max=16777216 net.core.wmem_max=16777216
udp_check() {
	local out=$DRACK_LOGDIR/udp_8000.json res rc=0
	iperf_run h1 198.18.0.1 5201 "$out" -u -l 8000 -b 20M -t 3 -w 4M || rc=$?
	res=$(iperf_result "$out" 5 5) || { ((rc)) || rc=1; }
	if ((rc == 0)); then
		ktap_ok udp_8000
		diag "udp_8000: $res"
	else
		ktap_fail udp_8000 "rc $rc: $res" \
			"h0: $(in_ns h0 nstat -az UdpRcvbufErrors UdpInErrors IpReasmFails IpReasmTimeout | awk 'NR > 1 { printf "%s %s ", $1, $2 }')" \
			"$(drack_dump_stats)"
	fi
}
udp_check

ktap_check ping_4000 eval 'ping_ok h1 198.18.0.1 -s 4000 && ping_ok h1 2001:db8:d7::1 -s 4000'

# Clean traffic: per-peer counters moved, nothing counted as bad.
counters() {
	local v bad=0 ns c
	for c in "h0 peer1_rx_packets" "h0 peer1_tx_packets" "h1 peer0_rx_packets" "h1 peer0_tx_packets" \
		"h0 rx_refs" "h1 tx_refs" "h0 grants" "h1 grants"; do
		v=$(drack_stat $c) || { echo "no counter: $c"; bad=1; continue; }
		echo "$c = $v"
		((v > 0)) || { echo "$c should be > 0"; bad=1; }
	done
	for ns in h0 h1; do
		for c in rx_bad_desc rx_bad_ring ret_bad grant_bad peer0_rx_bad peer1_rx_bad; do
			v=$(drack_stat "$ns" "$c") || { echo "no counter: $ns $c"; bad=1; continue; }
			((v == 0)) || { echo "$ns $c = $v on clean traffic"; bad=1; }
		done
	done
	return $bad
}
ktap_check counters counters

# Carrier follows the peer: h1 down -> h0 loses carrier (~0.5 s), up -> back.
# The contract says ~0.5 s; allow 5 s for a slow, busy TCG guest (the time
# taken is printed).
carrier_follows() {
	local want=$1 t0 ms
	t0=$(date +%s%N)
	ip -n h1 link set rack0 "$want" || return 1
	if [[ $want == down ]]; then
		wait_for 5 no_carrier h0 || { echo "h0 still has carrier 5 s after h1 went down"; return 1; }
	else
		wait_for 5 has_carrier h0 || { echo "h0 has no carrier 5 s after h1 came up"; return 1; }
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [[ $want == up ]]; then
		wait_for 5 has_carrier h1 || { echo "h1 has no carrier 5 s after coming up"; return 1; }
		ping_ok h0 198.18.0.2 || return 1
	fi
	echo "h0 carrier followed h1 $want in $ms ms"
}
carrier_check() {
	if ktap_check "carrier_$1" carrier_follows "$2"; then
		diag "$(cat "$DRACK_LOGDIR/check.out")"
	fi
}
carrier_check off down
carrier_check on up

drack_finish
