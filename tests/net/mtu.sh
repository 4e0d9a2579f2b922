#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mtu: jumbo frames through 64K Buffers.
#
#   h0 rack0 mtu 65000  <-- pool 0 -->  h1 rack0 mtu 65000
#
# MTU limits (65522 is the largest: 65522 + 14 = one 64K Buffer), 60000-byte
# pings that must not be fragmented (-M do), a 65536-byte frame at MTU
# 65522, iperf3 TCP both ways, the 64K Buffer class in use.
#
# What breaks it: max_mtu not 65522 (mtu_limits), frames > 2K not put in
# 64K Buffers or truncated (ping_*), an off-by-one at the 64K class edge
# (ping_frame_64k), GSO packets larger than a 64K Buffer (tcp stalls),
# 64K Buffers not returned (buffers_home).
. "$(dirname "$0")/lib.sh"

ktap_plan 12
drack_setup 2 65000 || ktap_finish

mtu_is() {
	local ns=$1 want=$2 got
	got=$(in_ns "$ns" cat /sys/class/net/rack0/mtu)
	[[ $got == "$want" ]] || { echo "$ns: mtu $got, expected $want"; return 1; }
}
ktap_check mtu_65000 eval 'mtu_is h0 65000 && mtu_is h1 65000'

mtu_limits() {
	local bad=0 m
	for m in 70000 65523; do
		if ip -n h0 link set rack0 mtu $m 2>/dev/null; then
			echo "ip link set mtu $m succeeded"
			bad=1
		fi
	done
	mtu_is h0 65000 || bad=1
	ip -n h0 link set rack0 mtu 65522 || { echo "mtu 65522 refused"; bad=1; }
	mtu_is h0 65522 || bad=1
	ip -n h0 link set rack0 mtu 65000
	return $bad
}
ktap_check mtu_limits mtu_limits

ktap_check ping_60000_v4 eval 'ping_ok h1 198.18.0.1 -M do -s 60000 && ping_ok h0 198.18.0.2 -M do -s 60000'
ktap_check ping_60000_v6 eval 'ping_ok h1 2001:db8:d7::1 -M do -s 60000 && ping_ok h0 2001:db8:d7::2 -M do -s 60000'

# MTU 65522: a 65494-byte ICMP payload makes a 65522-byte IP packet, a
# 65536-byte frame, exactly one 64K Buffer.
frame_64k() {
	local ns rc=0
	for ns in h0 h1; do ip -n "$ns" link set rack0 mtu 65522 || return 1; done
	ping_ok h1 198.18.0.1 -M do -s 65494 || rc=1
	for ns in h0 h1; do ip -n "$ns" link set rack0 mtu 65000; done
	return $rc
}
ktap_check ping_frame_64k frame_64k

iperf_server h0 5201 >/dev/null
iperf_check tcp_jumbo h1 198.18.0.1 5201 10 100 -t 4
iperf_check tcp_jumbo_reverse h1 198.18.0.1 5201 10 100 -t 4 -R

class_64k() {
	local ns v bad=0
	for ns in h0 h1; do
		v=$(drack_stat "$ns" buf64k_sections) || { echo "no buf64k_sections"; return 1; }
		echo "$ns buf64k_sections = $v"
		((v > 0)) || bad=1
	done
	return $bad
}
ktap_check class_64k_used class_64k

drack_finish
