#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# four_hosts: four hosts on one pool, all to all.
#
#        h0 198.18.0.1
#   h1 .2     h2 .3     h3 .4        (2001:db8:d7::1..4)
#
# Every host pings every other (v4 and v6), then three iperf3 clients send
# to h0 at once, then h0 sends to the three at once (-R); per-peer counters
# add up and every Buffer comes home.
#
# What breaks it: refs posted to the wrong peer's ref_queue or with the
# wrong src (a pair fails to ping), broadcast copies missing for some peer
# (ARP/ND to that host fails), one peer's full ring or a shared Buffer
# class starving the others (one concurrent client at 0), per-peer counters
# not kept per peer, Buffers lent to one peer never returned.
. "$(dirname "$0")/lib.sh"

N=4
ktap_plan 13
drack_setup $N || ktap_finish

all_pairs() {
	local fam=$1 i j bad=0 dst
	for ((i = 0; i < N; i++)); do
		for ((j = 0; j < N; j++)); do
			((i == j)) && continue
			if [[ $fam == 4 ]]; then dst=$(ip4 $j); else dst=$(ip6 $j); fi
			in_ns "h$i" timeout 20 ping -c 2 -i 0.2 -W 3 -q "$dst" >/dev/null 2>&1 ||
				{ echo "h$i -> h$j ($dst) fails"; bad=1; }
		done
	done
	return $bad
}
ktap_check ping4_all_pairs all_pairs 4
ktap_check ping6_all_pairs all_pairs 6

# Three clients at once, one server port each on h0.
for i in 1 2 3; do iperf_server h0 $((5200 + i)) >/dev/null; done

concurrent() {
	local dir=$1 i pids=() name out res rc
	shift
	for i in 1 2 3; do
		iperf_run "h$i" "$(ip4 0)" $((5200 + i)) "$DRACK_LOGDIR/$dir-h$i.json" -t 5 "$@" &
		pids+=($!)
	done
	for i in 1 2 3; do
		rc=0
		wait "${pids[$((i - 1))]}" || rc=$?
		out=$DRACK_LOGDIR/$dir-h$i.json
		res=$(iperf_result "$out" 2) || { ((rc)) || rc=1; }
		if [[ $dir == to_h0 ]]; then name=tcp_h${i}_to_h0; else name=tcp_h0_to_h${i}; fi
		if ((rc == 0)); then
			ktap_ok "$name"
			diag "$name: $res"
		else
			ktap_fail "$name" "rc $rc: $res" "$(drack_dump_stats)"
		fi
	done
}
concurrent to_h0
concurrent from_h0 -R

peer_counters() {
	local i v bad=0
	for i in 1 2 3; do
		for c in "h0 peer${i}_rx_packets" "h0 peer${i}_tx_packets" "h$i peer0_rx_packets" "h$i peer0_tx_packets"; do
			v=$(drack_stat $c) || { echo "no counter $c"; bad=1; continue; }
			echo "$c = $v"
			((v > 0)) || bad=1
		done
		# h1..h3 pinged each other, never through h0
		v=$(drack_stat h0 "peer${i}_rx_bad")
		((v == 0)) || { echo "h0 peer${i}_rx_bad = $v"; bad=1; }
	done
	v=$(drack_stat h0 tx_bcast) || { echo "no tx_bcast"; return 1; }
	echo "h0 tx_bcast = $v"
	((v > 0)) || { echo "h0 sent no broadcast (ARP) at all?"; bad=1; }
	return $bad
}
ktap_check peer_counters peer_counters

drack_finish
