#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# link_events: links going down, up and away while traffic runs.
#
#   h0 .1 <- iperf3 -- h1 .2          (rack0 of h1 flaps down 1 s)
#   h0 .1 <- iperf3 -- h1 .2    h2 .3 (h2's rack0 deleted meanwhile)
#   h0 .1 -- iperf3 UDP flood -> h3 .4 (h3's rack0, the receiver, deleted)
#   h2 re-created: takes host id 2 again, reachable at once
#
# What breaks it: refs or Buffers of a downed or deleted peer never
# returned or reclaimed (buffers_home_after_peer_delete, buffers_home),
# a queue stopped for a vanished peer that is never woken (delete_idle
# traffic stops), stale rings on a host id reused (readd_host), a leave
# path that deadlocks or leaks (teardown: rmmod, dmesg).
. "$(dirname "$0")/lib.sh"

N=4
ktap_plan 11
drack_setup $N || ktap_finish

iperf_server h0 5201 >/dev/null

# iperf3 h1 -> h0 for 10 s; h1's rack0 goes down for 1 s in the middle.
flap() {
	local pid rc=0 res t0=$SECONDS
	iperf_run h1 198.18.0.1 5201 "$DRACK_LOGDIR/flap.json" -t 10 &
	pid=$!
	sleep 3
	ip -n h1 link set rack0 down || echo "link down failed"
	sleep 1
	ip -n h1 link set rack0 up || echo "link up failed"
	wait "$pid" || rc=$?
	res=$(iperf_result "$DRACK_LOGDIR/flap.json")
	echo "iperf3 rc $rc after $((SECONDS - t0)) s: $res"
	# It may end with an error, but not hang (timeout 60 gives 124).
	((rc != 124))
}
ktap_check flap_no_hang flap
ktap_check flap_recovers eval 'wait_for 10 has_carrier h1 && wait_for 10 ping_once h1 198.18.0.1 && ping_ok h1 198.18.0.1'

# h2 (idle) is deleted while h1 -> h0 runs: the traffic must not notice.
delete_idle() {
	local pid rc=0 res
	iperf_run h1 198.18.0.1 5201 "$DRACK_LOGDIR/delete_idle.json" -t 5 &
	pid=$!
	sleep 2
	drack_del_host h2 || echo "cannot delete h2's rack0"
	wait "$pid" || rc=$?
	res=$(iperf_result "$DRACK_LOGDIR/delete_idle.json" 1) || { ((rc)) || rc=1; }
	echo "$res"
	has_carrier h0 || { echo "h0 lost carrier"; rc=1; }
	ping_ok h0 198.18.0.2 || rc=1
	return $rc
}
ktap_check delete_idle_during_tcp delete_idle

# h0 floods h3 (UDP, no rate limit: h3's ref_queue[0] stays full of h0's
# Buffers) while h3's rack0 is deleted: the sender gets its Buffers back.
iperf_server h3 5201 >/dev/null
delete_receiver() {
	local pid rc=0 t0=$SECONDS
	iperf_run h0 "$(ip4 3)" 5201 "$DRACK_LOGDIR/delete_receiver.json" -u -b 0 -l 1400 -t 8 \
		--snd-timeout 3000 &
	pid=$!
	sleep 3
	drack_del_host h3 || echo "cannot delete h3's rack0"
	wait "$pid" || rc=$?
	echo "iperf3 rc $rc after $((SECONDS - t0)) s: $(iperf_result "$DRACK_LOGDIR/delete_receiver.json")"
	((rc != 124))
}
ktap_check delete_receiver_no_hang delete_receiver

home_h0() { drack_check_buffers_home h0; }
ktap_check buffers_home_after_peer_delete home_h0

# A new rack0 in h2 takes the lowest free host id (2) and works at once.
readd() {
	local mac
	ip link add rack0 netns h2 type drack || return 1
	DRACK_HOSTS+=(h2)
	mac=$(in_ns h2 cat /sys/class/net/rack0/address)
	[[ $mac == "$(host_mac 2)" ]] || { echo "new rack0 has MAC $mac, expected $(host_mac 2)"; return 1; }
	ip -n h2 addr add "$(ip4 2)/24" dev rack0 &&
		ip -n h2 addr add "$(ip6 2)/64" dev rack0 nodad &&
		ip -n h2 link set rack0 up || return 1
	wait_for 20 ping_once h2 198.18.0.1 || { echo "re-added h2 cannot reach h0"; return 1; }
	ping_ok h0 "$(ip4 2)" && ping_ok h2 2001:db8:d7::1 && ping_ok h1 "$(ip6 2)"
}
ktap_check readd_host readd

ktap_check ping_after_events eval 'ping_ok h0 198.18.0.2 && ping_ok h1 2001:db8:d7::1'

drack_finish
