#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# xdp-drop.sh: what h1 takes in a second of a pktgen UDP flood from h0,
# with no program and with tests/xdp/xdp_drop on h1's rack0 (in a guest:
# tools/rack/run-guest.sh -- bash tests/bench/xdp-drop.sh).
#
#   h0 rack0 198.18.0.1 (pktgen, 60-byte UDP to port 7777)
#   h1 rack0 198.18.0.2 (no program: the stack; xdp_drop: XDP_DROP)
#
# Prints frames per second h0 posted (tx_refs) and h1 handled: rx_refs
# without a program (the stack, no socket on the port), xdp_drop with it.
DRACK_TEST=xdp-drop
. "$(dirname "$0")/../net/lib.sh"

SECS=${DRACK_BENCH_SECS:-5}
D=$DRACK_LOGDIR
if [[ -n $DRACK_TOP ]]; then XDP_DIR=$DRACK_TOP/tests/xdp; else XDP_DIR=$DRACK_TESTDIR; fi
modprobe pktgen || { echo "no pktgen"; exit 1; }
if ! { drack_load && drack_start_fmd && drack_hosts 2; } >"$D/setup.log" 2>&1; then
	cat "$D/setup.log"
	exit 1
fi

# flood: pktgen on h0's rack0 for $SECS s; prints "posted handled" per s
flood() {
	local counter=$1 tx0 rx0 tx1 rx1
	in_ns h0 bash -c '
		P=/proc/net/pktgen
		echo rem_device_all >$P/kpktgend_0
		echo "add_device rack0" >$P/kpktgend_0
		for c in "count 0" "pkt_size 60" "clone_skb 0" "delay 0" "dst $1" \
			 "dst_mac $2" "udp_dst_min 7777" "udp_dst_max 7777"; do
			echo "$c" >$P/rack0
		done' _ "$(ip4 1)" "$(host_mac 1)" || return 1
	in_ns h0 bash -c 'echo start >/proc/net/pktgen/pgctrl' &
	local pg=$!
	sleep 1
	tx0=$(drack_stat h0 tx_refs) rx0=$(drack_stat h1 "$counter")
	sleep "$SECS"
	tx1=$(drack_stat h0 tx_refs) rx1=$(drack_stat h1 "$counter")
	in_ns h0 bash -c 'echo stop >/proc/net/pktgen/pgctrl'
	wait "$pg"
	echo "$(((tx1 - tx0) / SECS)) $(((rx1 - rx0) / SECS))"
}

read -r tx rx <<<"$(flood rx_refs)"
echo "no program:   h0 posted $tx/s, h1 stack took $rx/s"
ip -n h1 link set dev rack0 xdp obj "$XDP_DIR/xdp_drop.bpf.o" sec xdp || exit 1
read -r tx rx <<<"$(flood xdp_drop)"
echo "xdp_drop:     h0 posted $tx/s, h1 XDP_DROP $rx/s"
ip -n h1 link set dev rack0 xdp off
drack_cleanup >/dev/null
