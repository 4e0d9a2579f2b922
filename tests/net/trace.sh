#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# trace: the drack tracepoints (kmod/trace.h, Documentation/tracing.rst).
#
#   h0 .1, h1 .2, h2 .3 on pool 0, no drack-fmd: drackctl grants, revokes,
#   fences and reclaims, so that every event has one known cause.
#
# The drack events are enabled through tracefs before the hosts join.
# Joins, grants, a ping after an ARP flush, a revoke, a fence and reclaim
# of a stalled h2 and its rejoin, and h1's leave must each show their
# events with the right hosts, Sections, lengths and offsets; perf counts
# them too when installed. Disabled, the same causes leave no event.
#
# What breaks it: an event missing from tracefs (events_listed), a trace
# call removed or moved off its path (join_state ... leave), wrong fields
# (the request's Buffer offset outside the sender's Section or not the
# one its receiver consumed), events recorded while disabled (disabled).
. "$(dirname "$0")/lib.sh"

ktap_plan 17

T=/sys/kernel/tracing
EVENTS=(drack_xmit drack_receive drack_buf_return drack_section_grant
	drack_section_revoke drack_section_free drack_host_state
	drack_peer_state)
declare -A SEC=()	# SEC[HOST.CLASS]: the Section granted to it

trace_on() {
	echo 0 >"$T/events/drack/enable" && echo >"$T/trace" &&
		echo 1 >"$T/events/drack/enable" && echo 1 >"$T/tracing_on"
}
trace_off() { echo 0 >"$T/events/drack/enable"; }
# ev EVENT: the fields of each EVENT record in the buffer, oldest first
ev() { sed -n "s/^.* $1: //p" "$T/trace"; }
# want EVENT ERE: some EVENT record matches ERE, else show the last ones
want() {
	ev "$1" | grep -qE "$2" && return 0
	echo "no $1 record matching '$2'; the last ones:"
	ev "$1" | tail -n 8
	return 1
}
# fld RECORD KEY: one key=value field of a record
fld() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# host_state HOST: its state in the host table, as drackctl names it
host_state() {
	"$DRACKCTL" -j host show pool 0 | python3 -c '
import json, sys
print(next((e["state"] for e in json.load(sys.stdin) if e["host"] == int(sys.argv[1])), "absent"))' "$1"
}


setup_trace() {
	drack_load || return 1
	[[ -d $T/events ]] || mount -t tracefs nodev "$T" || return 1
	# Reading the buffer must not pause recording (wait_for polls it).
	[[ ! -e $T/options/pause-on-trace ]] || echo 0 >"$T/options/pause-on-trace"
	# With record-cmd on, enabling or disabling any event also flips the
	# sched_switch tracepoint, i.e. text_poke_bp() on __schedule. Under
	# QEMU TCG (7.2, thread=multi) a vCPU then sometimes keeps running the
	# stale int3 there with interrupts off (kprobe_int3_handler sees the
	# int3 gone and retries, forever): the guest locks up (testing.rst).
	RECORD_CMD=$(<"$T/options/record-cmd") && echo 0 >"$T/options/record-cmd" || return 1
	trace_on || return 1
	local i
	for i in 0 1 2; do drack_host_add "$i" || return 1; done
	# No carrier yet: that waits for the Sections section_grant gives.
	for i in 0 1 2; do
		wait_for 10 eval '[[ $(host_state '"$i"') == up ]]' ||
			{ echo "h$i: not up in the host table"; return 1; }
	done
}
ktap_check setup setup_trace || ktap_finish

events_listed() {
	local e have bad=0
	for e in "${EVENTS[@]}"; do
		[[ -r $T/events/drack/$e/format ]] || { echo "no $T/events/drack/$e"; bad=1; }
	done
	have=$(cd "$T/events/drack" && for e in */; do echo "${e%/}"; done | sort)
	[[ $have == "$(printf '%s\n' "${EVENTS[@]}" | sort)" ]] ||
		{ echo "events/drack has: $have"; echo "update this test and Documentation/tracing.rst"; bad=1; }
	return $bad
}
ktap_check events_listed events_listed

join_state() {
	local h
	for h in 0 1 2; do
		want drack_host_state "^pool=0 host=$h old=FREE new=JOINING$" || return 1
		want drack_host_state "^pool=0 host=$h old=JOINING new=UP$" || return 1
	done
}
ktap_check join_state join_state

# Each sees the others come up, whatever it saw first.
peer_state_join() {
	want drack_peer_state "^dev=rack0 ifindex=[0-9]+ pool=0 host=0 peer=1 old=[A-Z]+ new=UP$" &&
		want drack_peer_state " host=1 peer=0 old=FREE new=UP$" &&
		want drack_peer_state " host=2 peer=1 old=FREE new=UP$"
}
ktap_check peer_state_join peer_state_join

free_sections() {
	"$DRACKCTL" -j section show free | python3 -c '
import json, sys
print(" ".join(str(s["section"]) for s in json.load(sys.stdin)))'
}

section_state() {
	"$DRACKCTL" -j section show id "$1" | python3 -c '
import json, sys
print(json.load(sys.stdin)[0]["state"])'
}

# h0 and h1 get a Section of each class, h2 one of 2k; each host's grants
# counter says it took them.
section_grant() {
	local free k s n=0 h expect
	read -r -a free <<<"$(free_sections)" || return 1
	for k in 0.2k 0.64k 1.2k 1.64k 2.2k; do
		s=${free[n++]:-}
		[[ -n $s ]] || { echo "not enough free Sections: ${free[*]}"; return 1; }
		SEC[$k]=$s
		"$DRACKCTL" section grant host "${k%.*}" section "$s" class "${k#*.}" || return 1
	done
	for h in 0 1 2; do
		expect=$((h < 2 ? 2 : 1))
		wait_for 5 eval '[[ $(drack_stat h$h grants) == $expect ]]' ||
			{ echo "h$h: grants $(drack_stat "h$h" grants), expected $expect"; return 1; }
	done
	for k in "${!SEC[@]}"; do
		want drack_section_grant "^pool=0 section=${SEC[$k]} host=${k%.*} class=${k#*.}$" || return 1
	done
	for h in 0 1 2; do	# a 2 KB Section each: carrier
		wait_for 10 has_carrier "h$h" || { echo "h$h: no carrier"; return 1; }
	done
}
ktap_check section_grant section_grant

# A ping h0 -> h1 after an ARP flush: broadcast to h1 and h2, then the
# 98-byte echo request and reply, each in a 2k Buffer of its sender.
REQ='' REP=''
ping_traced() {
	trace_on || return 1
	ip -n h0 neigh flush dev rack0
	wait_for 20 ping_once h0 "$(ip4 1)" || { echo "h0 cannot ping h1"; drack_dump_stats; return 1; }
	trace_off
}
xmit() {
	local d
	ping_traced || return 1
	for d in 1 2; do
		want drack_xmit "^dev=rack0 ifindex=[0-9]+ pool=0 host=0 dst=$d len=[0-9]+ class=2k off=0x[0-9a-f]+ bcast=1$" || return 1
	done
	REQ=$(ev drack_xmit | grep -E " host=0 dst=1 len=98 class=2k .* bcast=0$" | tail -n 1)
	REP=$(ev drack_xmit | grep -E " host=1 dst=0 len=98 class=2k .* bcast=0$" | tail -n 1)
	[[ -n $REQ && -n $REP ]] || { echo "no echo request or reply:"; ev drack_xmit; return 1; }
	echo "request: $REQ"
	echo "reply: $REP"
	(($(fld "$REQ" off) >> 21 == ${SEC[0.2k]})) || { echo "request Buffer not in h0's Section ${SEC[0.2k]}"; return 1; }
	(($(fld "$REP" off) >> 21 == ${SEC[1.2k]})) || { echo "reply Buffer not in h1's Section ${SEC[1.2k]}"; return 1; }
}
ktap_check xmit xmit && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Each end consumed the other's frame from the very Buffer it was put in.
receive() {
	[[ -n $REQ && -n $REP ]] || { echo "no xmit records to match"; return 1; }
	want drack_receive "^dev=rack0 ifindex=[0-9]+ pool=0 host=1 src=0 len=98 off=$(fld "$REQ" off) dropped=0$" &&
		want drack_receive "^dev=rack0 ifindex=[0-9]+ pool=0 host=0 src=1 len=98 off=$(fld "$REP" off) dropped=0$"
}
ktap_check receive receive

# Owners take returns back within a peer liveness run (100 ms).
buf_return() {
	local o p
	trace_on || return 1
	ping_once h0 "$(ip4 1)" || return 1
	drack_wait_settled || { echo "Buffers not home"; drack_dump_stats; return 1; }
	for o in 0 1; do
		p=$((1 - o))
		wait_for 5 want drack_buf_return "^pool=0 owner=$o peer=$p count=[1-9][0-9]* bad=0$" ||
			{ want drack_buf_return "^pool=0 owner=$o peer=$p count=[1-9]"; return 1; }
	done
	if ev drack_buf_return | grep " bad=[1-9]"; then echo "Buffers refused"; return 1; fi
}
ktap_check buf_return buf_return

# perf counts the same tracepoints (no perf in the guest: skipped).
perf_count() {
	local out=$DRACK_LOGDIR/perf.csv x r
	perf stat -a -x, -o "$out" -e drack:drack_xmit -e drack:drack_receive -- \
		ip netns exec h0 timeout 10 ping -c 3 -i 0.2 -W 1 -q "$(ip4 1)" || return 1
	cat "$out"
	x=$(awk -F, '$3 == "drack:drack_xmit" { print $1 }' "$out")
	r=$(awk -F, '$3 == "drack:drack_receive" { print $1 }' "$out")
	((${x:-0} >= 6 && ${r:-0} >= 6)) || { echo "3 echoes both ways: want 6 of each"; return 1; }
}
if perf version >/dev/null 2>&1; then
	ktap_check perf perf_count
else
	ktap_skip perf "no perf in the guest"
fi

section_revoke() {
	local s=${SEC[1.64k]}
	trace_on || return 1
	"$DRACKCTL" section revoke id "$s" || return 1
	wait_for 5 eval '[[ $(section_state "$s") == free ]]' ||
		{ "$DRACKCTL" section show id "$s"; return 1; }
	want drack_section_revoke "^pool=0 section=$s host=1 class=64k$" &&
		want drack_section_free "^pool=0 section=$s host=1 class=64k reason=revoked$"
}
ktap_check section_revoke section_revoke

# h2 hangs; fenced, let go of by h0 and h1, then reclaimed.
fence_reclaim() {
	trace_on || return 1
	in_ns h2 ethtool --set-priv-flags rack0 stall on || return 1
	"$DRACKCTL" host fence 2 || return 1
	wait_for 5 "$DRACKCTL" host reclaim 2 || { "$DRACKCTL" host reclaim 2; return 1; }
	want drack_host_state "^pool=0 host=2 old=UP new=DEAD$" &&
		want drack_peer_state " host=0 peer=2 old=UP new=DEAD$" &&
		want drack_section_free "^pool=0 section=${SEC[2.2k]} host=2 class=2k reason=reclaimed$" &&
		want drack_host_state "^pool=0 host=2 old=DEAD new=FREE$"
}
ktap_check fence_reclaim fence_reclaim

# Resumed, h2 finds its slot free and joins again.
rejoin() {
	trace_on || return 1
	in_ns h2 ethtool --set-priv-flags rack0 stall off || return 1
	wait_for 5 eval '[[ $(host_state 2) == up ]]' || { echo "h2 is $(host_state 2)"; return 1; }
	want drack_host_state "^pool=0 host=2 old=FREE new=JOINING$" &&
		want drack_host_state "^pool=0 host=2 old=JOINING new=UP$"
}
ktap_check rejoin rejoin

# Every cause of an event again, with the events disabled: nothing.
disabled() {
	local s=${SEC[0.64k]} e free
	trace_on && trace_off || return 1
	ping_ok h0 "$(ip4 1)" && ping_ok h1 "$(ip4 0)" || return 1
	drack_wait_settled || { echo "Buffers not home"; return 1; }
	"$DRACKCTL" section revoke id "$s" || return 1
	wait_for 5 eval '[[ $(section_state "$s") == free ]]' ||
		{ "$DRACKCTL" section show id "$s"; return 1; }
	drack_host_add 3 || return 1
	read -r free _ <<<"$(free_sections)"
	"$DRACKCTL" section grant host 3 section "$free" class 2k || return 1
	wait_for 5 eval '[[ $(drack_stat h3 grants) == 1 ]]' || { echo "h3 got no grant"; return 1; }
	drack_del_host h3 || return 1
	! grep -m 5 ' drack_' "$T/trace" || { echo "recorded while disabled"; return 1; }
	for e in "$T"/events/drack/enable "$T"/events/drack/*/enable; do
		[[ $(<"$e") == 0 ]] || { echo "$e: $(<"$e")"; return 1; }
	done
}
ktap_check disabled disabled

# h1 leaves: its state, h0 watching it go, its 2k Section back to free.
leave() {
	trace_on || return 1
	drack_del_host h1 || return 1
	trace_off
	want drack_host_state "^pool=0 host=1 old=UP new=LEAVING$" &&
		want drack_host_state "^pool=0 host=1 old=LEAVING new=FREE$" &&
		want drack_peer_state " host=0 peer=1 old=UP new=LEAVING$" &&
		want drack_peer_state " host=0 peer=1 old=LEAVING new=FREE$" &&
		want drack_section_free "^pool=0 section=${SEC[1.2k]} host=1 class=2k reason=left$"
}
ktap_check leave leave

trace_off
[[ -z ${RECORD_CMD:-} ]] || echo "$RECORD_CMD" >"$T/options/record-cmd"
drack_finish
