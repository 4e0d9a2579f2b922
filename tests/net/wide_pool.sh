#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wide_pool: a pool formatted for 64 hosts with three in use, one of them
# in the last slot.
#
#   h0  rack0 host 0  198.18.0.1  --+
#   h37 rack0 host 37 198.18.0.38 --+-- pool 0 (ram, max_hosts=64)
#   h63 rack0 host 63 198.18.0.64 --+
#
# A poll's return and held-Buffer work visits only the peers it has to
# (dd->watch: the present ones, and any that still hold Buffers either
# way), not all 64 slots. Slot 63 is bit 63 of every mask.
#
# streams: h63 -> h0 and h0 -> h63, by reference, intact, and every
# Buffer home, on both sides. small_owner: with 64 slots in a 64 MB pool
# each host gets one 2 MB Section of 64 KB Buffers; a socket on h0 that
# never reads may hold only half of h63's, the rest is copied, and h63
# neither runs out nor finds h0 stalled. two_never_readers: never-reading
# sockets on h0 and h37, each holding up to half of h63's, would hold
# them all; h63 flags frames scarce once fewer than 8 are free, and
# they are copied. owner_left: h0's socket keeps h63's data
# unread (by reference) while h63's link is deleted; h63 is then neither
# present nor alive, yet h0 must still look at it, drop its held Buffers
# (rx_held back to 0, the socket's data still readable and intact), and
# the socket reads it all afterwards.
#
# What breaks it: a mask that loses high slots (streams: returns from
# host 63 never taken), a reader's cap blind to how few Buffers the
# owner has (small_owner: h0 holds all 32, h63's queue stops, the
# stream's end never arrives; two_never_readers: no scarce flag, h63's
# queue waits for Buffers h0 and h37 hold), a watch of present peers only
# (owner_left: h0 keeps holding the Buffers of a host that left), leaks
# (dmesg_clean).
. "$(dirname "$0")/lib.sh"

ktap_plan 10

STREAM=(python3 "$DRACK_TESTDIR/stream.py")
PORT=5401
sysctl -qw net.core.rmem_max=67108864

# wide_host I: netns hI with rack0 joined as host I of pool 0
wide_host() {
	local i=$1 ns=h$1 mac
	drack_netns_add "$ns" || return 1
	IP_LIB_DIR=$DRACK_IP_LIB_DIR ip link add rack0 netns "$ns" type drack pool 0 host "$i" ||
		{ echo "ip link add rack0 netns $ns type drack pool 0 host $i failed"; return 1; }
	DRACK_HOSTS+=("$ns")
	mac=$(in_ns "$ns" cat /sys/class/net/rack0/address)
	[[ $mac == "$(host_mac "$i")" ]] || { echo "$ns: MAC $mac, expected $(host_mac "$i")"; return 1; }
	ip -n "$ns" addr add "$(ip4 "$i")/24" dev rack0 && ip -n "$ns" link set rack0 up
}

setup_wide() {
	drack_load max_hosts=64 && drack_start_fmd || return 1
	[[ $(cat /sys/module/drack/parameters/max_hosts) == 64 ]] || { echo "max_hosts not 64"; return 1; }
	local i
	for i in 0 37 63; do wide_host "$i" || return 1; done
	for i in 0 37 63; do
		wait_for 10 has_carrier "h$i" || { echo "h$i: no carrier"; return 1; }
	done
	wait_for 20 ping_once h63 "$(ip4 0)" && wait_for 20 ping_once h37 "$(ip4 0)" &&
		wait_for 20 ping_once h37 "$(ip4 63)"
}
ktap_check setup setup_wide || ktap_finish

# xfer FROM TO NAME BYTES [recv args]: one checked stream hFROM -> hTO
xfer() {
	local from=$1 to=$2 name=$3 bytes=$4 got sent pid
	shift 4
	rm -f "$DRACK_LOGDIR/$name.ready"
	ip netns exec "h$to" "${STREAM[@]}" recv "$PORT" --ready "$DRACK_LOGDIR/$name.ready" "$@" \
		>"$DRACK_LOGDIR/$name.recv" 2>&1 </dev/null &
	pid=$!
	DRACK_PIDS+=("$pid")
	wait_for 30 test -e "$DRACK_LOGDIR/$name.ready" || { echo "h$to: receiver did not start"; return 1; }
	sent=$(in_ns "h$from" timeout 120 "${STREAM[@]}" send "$(ip4 "$to")" "$PORT" "$bytes") ||
		{ echo "h$from: send failed: $sent"; return 1; }
	wait_for 60 eval "! kill -0 $pid 2>/dev/null" || { echo "h$to: receiver did not finish"; return 1; }
	got=$(cat "$DRACK_LOGDIR/$name.recv")
	[[ $got == "$sent" ]] || { echo "sent $sent, received $got"; return 1; }
}

stream_to() { # FROM TO: 16 MB, most of it by reference
	local from=$1 to=$2 ref
	snap s "h$to"
	xfer "$from" "$to" "s$from-$to" $((16 << 20)) || return 1
	ref=$(delta s "h$to" rx_byref)
	echo "h$from -> h$to: 16 MB intact, h$to rx_byref +$ref"
	((ref > 100))
}
ktap_check stream_63_to_0 stream_to 63 0 && diag "$(cat "$DRACK_LOGDIR/check.out")"
ktap_check stream_0_to_63 stream_to 0 63 && diag "$(cat "$DRACK_LOGDIR/check.out")"
ktap_check buffers_home_streams drack_check_buffers_home

held_none() { [[ $(drack_stat h0 rx_held) == 0 ]]; }

# h0_recv NAME PORT HOLD: h0 receives one stream on PORT, reading
# nothing until HOLD exists; sets RPID
h0_recv() {
	rm -f "$3" "$DRACK_LOGDIR/$1.ready"
	ip netns exec h0 "${STREAM[@]}" recv "$2" --rcvbuf $((32 << 20)) --hold "$3" \
		--ready "$DRACK_LOGDIR/$1.ready" >"$DRACK_LOGDIR/$1.recv" 2>&1 </dev/null &
	RPID=$!
	DRACK_PIDS+=("$RPID")
	wait_for 30 test -e "$DRACK_LOGDIR/$1.ready" || { echo "h0: receiver did not start"; return 1; }
}

# h0_ended PORT: all of the stream and its FIN are in h0's socket
h0_ended() { in_ns h0 ss -Htn state close-wait "( sport = :$1 )" | grep -q .; }

# A socket on h0 that never reads is sent twice what h63 owns of 64 KB
# Buffers (64 slots in 64 MB: drack-fmd's quota leaves each host one
# Section of each class). h0 holds at most half of them by reference
# (h63 publishes its Sections per class, lend_sections) and copies the
# rest: h63 never runs out, the stream ends, and h63 never finds h0
# stalled. Then the socket reads it all, intact.
# h63's 64 KB Buffers out: at most half of what it has
held_half() {
	(($(drack_stat h63 buf64k_inflight) <= $(drack_stat h63 buf64k_sections) * 16))
}
small_owner() {
	local port=5402 hold=$DRACK_LOGDIR/hold2 secs stalls asked sent got inflight now
	secs=$(drack_stat h63 buf64k_sections)
	stalls=$(drack_stat h63 peer_stalls)
	asked=$(drack_stat h63 section_requests)
	((secs > 0)) || { echo "h63 owns no 64 KB Section"; return 1; }
	snap o h0
	h0_recv small "$port" "$hold" || return 1
	sent=$(in_ns h63 timeout 30 "${STREAM[@]}" send "$(ip4 0)" "$port" $((secs << 22))) ||
		{ echo "h63: send failed: $sent"; drack_dump_stats; return 1; }
	wait_for 20 h0_ended "$port" ||
		{ echo "h0: the stream's end did not arrive"; drack_dump_stats; return 1; }
	# The copied frames' Buffers come home lazily (returns are taken
	# within 100 ms); those h0 holds stay out.
	wait_for 5 held_half || true
	inflight=$(drack_stat h63 buf64k_inflight)
	now=$(drack_stat h63 buf64k_sections)
	echo "h63 owns $now Section(s) of 64 KB Buffers ($secs before), $inflight of them held by h0; h0 rx_byref +$(delta o h0 rx_byref), rx_copied_lend_cap +$(delta o h0 rx_copied_lend_cap); h63 section_requests +$(($(drack_stat h63 section_requests) - asked)) (drack-fmd: $(grep -c 'host 63: .*refused' /tmp/fmd.log) refused), peer_stalls +$(($(drack_stat h63 peer_stalls) - stalls))"
	# Half of what h63 has now (it may have been granted more meanwhile).
	((inflight <= now * 16 && $(delta o h0 rx_copied_lend_cap) > 0)) || return 1
	(($(drack_stat h63 peer_stalls) == stalls)) || return 1
	touch "$hold"
	wait_for 30 eval "! kill -0 $RPID 2>/dev/null" || { echo "h0: receiver did not finish"; return 1; }
	got=$(cat "$DRACK_LOGDIR/small.recv")
	[[ $got == "$sent" ]] || { echo "sent $sent, received $got"; return 1; }
	drack_check_buffers_home
}
ktap_check small_owner small_owner && diag "$(head -n 1 "$DRACK_LOGDIR/check.out")"

# ns_recv NS NAME PORT HOLD: like h0_recv, in netns NS; sets RPID
ns_recv() {
	rm -f "$4" "$DRACK_LOGDIR/$2.ready"
	ip netns exec "$1" "${STREAM[@]}" recv "$3" --rcvbuf $((32 << 20)) --hold "$4" \
		--ready "$DRACK_LOGDIR/$2.ready" >"$DRACK_LOGDIR/$2.recv" 2>&1 </dev/null &
	RPID=$!
	DRACK_PIDS+=("$RPID")
	wait_for 30 test -e "$DRACK_LOGDIR/$2.ready" || { echo "$1: receiver did not start"; return 1; }
}

# ns_ended NS PORT: all of the stream and its FIN are in NS's socket
ns_ended() { in_ns "$1" ss -Htn state close-wait "( sport = :$2 )" | grep -q .; }

# Never-reading sockets on two hosts, h0 then h37, are each sent twice
# what h63 owns of 64 KB Buffers. Each may hold half of them: together
# all. Once fewer than 8 are free h63 flags its frames scarce
# (DRACK_REF_F_SCARCE) and the receivers copy them, so h63 keeps 8 (no
# frame left it fewer unflagged), both streams end, then read intact.
# Sequential, so that the second never-reader finds half of h63's
# Buffers already held.
two_never_readers() {
	local secs stalls sent0 sent37 pid0 pid37 inflight now got
	secs=$(drack_stat h63 buf64k_sections)
	stalls=$(drack_stat h63 peer_stalls)
	((secs > 0)) || { echo "h63 owns no 64 KB Section"; return 1; }
	snap t0 h0
	snap t37 h37
	snap t63 h63
	ns_recv h0 nr0 5403 "$DRACK_LOGDIR/hold3" && pid0=$RPID || return 1
	ns_recv h37 nr37 5404 "$DRACK_LOGDIR/hold4" && pid37=$RPID || return 1
	sent0=$(in_ns h63 timeout 30 "${STREAM[@]}" send "$(ip4 0)" 5403 $((secs << 22))) ||
		{ echo "h63 -> h0: send failed: $sent0"; drack_dump_stats; return 1; }
	wait_for 20 ns_ended h0 5403 || { echo "h0: the stream's end did not arrive"; drack_dump_stats; return 1; }
	sent37=$(in_ns h63 timeout 30 "${STREAM[@]}" send "$(ip4 37)" 5404 $((secs << 22))) ||
		{ echo "h63 -> h37: send failed: $sent37 (h0 holds $(drack_stat h0 rx_held), h37 $(drack_stat h37 rx_held))"; drack_dump_stats; return 1; }
	wait_for 20 ns_ended h37 5404 || { echo "h37: the stream's end did not arrive"; drack_dump_stats; return 1; }
	now=$(drack_stat h63 buf64k_sections)
	# Copies come home lazily; the held ones stay out.
	wait_for 5 eval '(($(drack_stat h63 buf64k_inflight) <= now * 32 - 8))' || true
	inflight=$(drack_stat h63 buf64k_inflight)
	echo "h63: $inflight of $((now * 32)) 64 KB Buffers out (h0 holds $(drack_stat h0 rx_held), h37 $(drack_stat h37 rx_held)); tx_scarce +$(delta t63 h63 tx_scarce); rx_copied_scarce h0 +$(delta t0 h0 rx_copied_scarce), h37 +$(delta t37 h37 rx_copied_scarce); peer_stalls +$(($(drack_stat h63 peer_stalls) - stalls))"
	((inflight <= now * 32 - 8 && $(delta t37 h37 rx_copied_scarce) > 0)) || return 1
	(($(drack_stat h63 peer_stalls) == stalls)) || return 1
	touch "$DRACK_LOGDIR/hold3" "$DRACK_LOGDIR/hold4"
	wait_for 30 eval "! kill -0 $pid0 2>/dev/null && ! kill -0 $pid37 2>/dev/null" ||
		{ echo "a receiver did not finish"; return 1; }
	got=$(cat "$DRACK_LOGDIR/nr0.recv")
	[[ $got == "$sent0" ]] || { echo "h0: sent $sent0, received $got"; return 1; }
	got=$(cat "$DRACK_LOGDIR/nr37.recv")
	[[ $got == "$sent37" ]] || { echo "h37: sent $sent37, received $got"; return 1; }
	drack_check_buffers_home
}
ktap_check two_never_readers two_never_readers && diag "$(head -n 1 "$DRACK_LOGDIR/check.out")"

# h63 sends 1 MB that h0's socket does not read yet (by reference: h0
# holds h63's Buffers), then h63's link goes. Its leave waits a bounded
# 2 s for them and goes; h0 must let go of them without a read. (1 MB:
# with 64 slots in 64 MB drack-fmd grants a host one Section of each
# class, 2 MB of 64 KB Buffers, all of which a reader may hold.)
owner_left() {
	local hold=$DRACK_LOGDIR/hold held sent got
	h0_recv left "$PORT" "$hold" || return 1
	sent=$(in_ns h63 timeout 120 "${STREAM[@]}" send "$(ip4 0)" "$PORT" $((1 << 20))) ||
		{ echo "h63: send failed: $sent"; return 1; }
	# All of it and the FIN in h0's socket before h63 goes.
	wait_for 30 h0_ended "$PORT" || { echo "h0: the stream's end did not arrive"; return 1; }
	held=$(drack_stat h0 rx_held)
	echo "h0 holds $held Buffers of h63, unread"
	((held > 0)) || return 1
	timeout 30 ip -n h63 link del rack0 || { echo "h63: link del failed"; return 1; }
	DRACK_HOSTS=(h0 h37)
	wait_for 10 held_none || { echo "h63 left; h0 still holds $(drack_stat h0 rx_held) of its Buffers"; return 1; }
	touch "$hold"
	wait_for 30 eval "! kill -0 $RPID 2>/dev/null" || { echo "h0: receiver did not finish"; return 1; }
	got=$(cat "$DRACK_LOGDIR/left.recv")
	[[ $got == "$sent" ]] || { echo "sent $sent, received $got"; return 1; }
	echo "h0: rx_held 0 once h63 left; then read $got"
}
ktap_check owner_left owner_left && diag "$(cat "$DRACK_LOGDIR/check.out")"

drack_finish
