#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# no_fm: a rack without its fabric manager, then with a stingy one.
#
#   h0 rack0 .1  <-- pool 0, no drack-fmd -->  h1 rack0 .2
#
# No Section is granted, so nothing can be sent: the link has no carrier
# (ip link: NO-CARRIER), says why once per interface in the kernel log
# and in its link attributes (drackctl link show, -j, ip -d link show),
# and keeps asking. Every free Section granted away (by hand): "no free
# Section". drack-fmd with quota 1 while h1 owns a 64 KB Section: h1's
# request for a 2 KB one is refused, "quota reached". A drack-fmd with
# the default quota grants it: carrier on, traffic flows.
#
# What breaks it: carrier without a Section (no_carrier), sending without
# Buffers (ping_blocked), the reason not exported or named wrong
# (reason_no_fm, reason_pool_full, reason_quota), no log line or one per
# retry (warned_once and the log checks of the others), requests not
# repeated so a late FM never hears of them (fmd_late_start), grants not
# used or carrier not back (fmd_late_start, granted), a frame from a
# Section being revoked held by reference instead of copied and counted
# (revoke_in_flight).
. "$(dirname "$0")/lib.sh"

IP_PLUGIN=$DRACK_IP_LIB_DIR

ktap_plan 15

setup_no_fm() { drack_load && drack_host_add 0 && drack_host_add 1; }
ktap_check setup setup_no_fm || ktap_finish

no_sections() {
	local ns c
	for ns in h0 h1; do
		for c in buf2k_sections buf64k_sections grants; do
			[[ $(drack_stat "$ns" "$c") == 0 ]] || { echo "$ns $c=$(drack_stat "$ns" "$c")"; return 1; }
		done
	done
}
ktap_check no_sections no_sections

# reason NS: the carrier reason drackctl -j link show reports
reason() {
	"$DRACKCTL" -n "$1" -j link show rack0 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0].get("carrier_reason", "missing"))'
}
is_reason() { [[ $(reason "$1") == "$2" ]]; }

# reason_shown NS TOKEN TEXT: JSON, drackctl text and ip -d agree
reason_shown() {
	local ns=$1 token=$2 text=$3 out
	wait_for 10 is_reason "$ns" "$token" || { echo "$ns: carrier_reason $(reason "$ns"), expected $token"; return 1; }
	out=$("$DRACKCTL" -n "$ns" link show rack0)
	[[ $out == *"carrier off ($text)"* ]] || { echo "$ns: drackctl link show: $out"; echo "expected: carrier off ($text)"; return 1; }
	out=$(IP_LIB_DIR=$IP_PLUGIN ip -n "$ns" -d link show rack0)
	[[ $out == *"carrier_reason $token "* ]] || { echo "$ns: ip -d link show: $out"; return 1; }
	out=$(ip -n "$ns" link show rack0)
	[[ $out == *NO-CARRIER* && $out != *LOWER_UP* ]] || { echo "$ns: ip link show: $out"; return 1; }
}

# Two seconds of unanswered requests: no fabric manager.
no_carrier() {
	local ns
	sleep 3
	for ns in h0 h1; do
		no_carrier_ns "$ns" || return 1
	done
}
no_carrier_ns() {
	local out
	out=$(ip -n "$1" link show rack0)
	[[ $out == *NO-CARRIER* && $out == *"state DOWN"* ]] || { echo "$1: $out"; return 1; }
}
ktap_check no_carrier no_carrier

ping_blocked() {
	if ping_once h0 "$(ip4 1)"; then
		echo "ping went through without any Section"
		return 1
	fi
}
ktap_check ping_blocked ping_blocked

ktap_check reason_no_fm eval 'reason_shown h0 no_fm "no fabric manager for pool 0" &&
	reason_shown h1 no_fm "no fabric manager for pool 0"'

# log_count TEXT: kernel log lines with TEXT since the test began
log_count() { drack_dmesg_since_begin | grep -cF "$1"; }
# log_once TEXT N: N lines (one per interface), still N 3 s later
log_once() {
	local text=$1 want=$2 n
	wait_for 10 eval '(( $(log_count "$text") >= want ))' || { echo "$(log_count "$text") lines of '$text', expected $want"; return 1; }
	sleep 3	# more retries happen meanwhile; the line must not repeat
	n=$(log_count "$text")
	((n == want)) || { echo "$n lines of '$text', expected $want"; drack_dmesg_since_begin | grep -F "$text"; return 1; }
}

NO_FM_LOG='rack0: no carrier: no Section granted by a fabric manager for pool 0 (is drack-fmd running?)'
ktap_check warned_once log_once "$NO_FM_LOG" 2

requests_repeat() {
	local n
	n=$(drack_stat h0 section_requests)
	((n >= 4)) || { echo "h0 section_requests=$n: requests are not repeated"; return 1; }
}
ktap_check requests_repeat requests_repeat

free_sections() { "$DRACKCTL" section show pool 0 owner free | awk '{ print $4 }'; }
owned_by() { "$DRACKCTL" section show pool 0 owner "$1" | awk '{ print $4 }'; }

# Every free Section to h1 as a 64 KB one (no FM: drackctl may grant).
pool_full() {
	local s
	for s in $(free_sections); do
		"$DRACKCTL" section grant host 1 section "$s" class 64k || return 1
	done
	[[ -z $(free_sections) ]] || { echo "still free: $(free_sections)"; return 1; }
	reason_shown h0 pool_full "no free Section in pool 0" &&
		reason_shown h1 pool_full "no free Section in pool 0" &&
		log_once 'rack0: no carrier: no free Section in pool 0' 2
}
ktap_check reason_pool_full pool_full

# h1 keeps one 64 KB Section, h0 gets a 2 KB one (carrier), then
# drack-fmd with quota 1 refuses h1 its 2 KB Section.
FMD_Q1_PID=
quota() {
	local s keep
	keep=$(owned_by 1 | head -n 1)
	for s in $(owned_by 1); do
		[[ $s == "$keep" ]] || "$DRACKCTL" section revoke "$s" || return 1
	done
	wait_for 10 eval '[[ $(owned_by 1) == "$keep" ]]' || { echo "h1 still owns $(owned_by 1 | xargs)"; return 1; }
	"$DRACKCTL" section grant host 0 section "$(free_sections | head -n 1)" class 2k || return 1
	wait_for 10 has_carrier h0 || { echo "h0: no carrier with a 2 KB Section and h1 up"; return 1; }
	is_reason h0 none || { echo "h0: carrier_reason $(reason h0)"; return 1; }
	"$DRACK_FMD" -v -q 1 >"$DRACK_LOGDIR/fmd-q1.log" 2>&1 </dev/null &
	FMD_Q1_PID=$!
	DRACK_PIDS+=("$FMD_Q1_PID")
	reason_shown h1 quota "Section refused: quota reached in pool 0" &&
		log_once 'rack0: no carrier: the fabric manager of pool 0 refused a Section: quota reached' 1 &&
		has_carrier h0
}
ktap_check reason_quota quota

# A fabric manager with the default quota serves the outstanding
# requests: carrier on both, traffic flows.
late_fmd() {
	[[ -n $FMD_Q1_PID ]] && kill_pid "$FMD_Q1_PID"
	drack_start_fmd || return 1
	wait_for 20 has_carrier h1 || { echo "h1: no carrier, reason $(reason h1)"; return 1; }
	is_reason h1 none || { echo "h1: carrier_reason $(reason h1)"; return 1; }
	wait_for 20 ping_once h0 "$(ip4 1)"
}
ktap_check fmd_late_start late_fmd

granted() {
	local ns
	for ns in h0 h1; do
		(($(drack_stat "$ns" grants) >= 1)) || { echo "$ns: no grant"; return 1; }
		(($(drack_stat "$ns" buf2k_sections) >= 1)) || { echo "$ns: no 2k Section"; return 1; }
	done
	[[ $("$DRACKCTL" -n h1 link show rack0) != *"carrier off"* ]]
}
ktap_check granted granted

# Frames in flight from a Section being revoked are copied, and counted
# as such (rx_copied_revoke): holding one would keep the Section from
# going home. Forced: h1 consumes nothing (private flag "deaf") while h0
# sends it REVOKE_N pings of 8000 bytes in its 64 KB Buffers, and every
# Section h0 owns of that class is marked revoked (drackctl, with
# drack-fmd stopped) before h1 reads its ring again.
REVOKE_N=8 REVOKE_BEFORE=0
h0_h1_jumbo() { in_ns h0 ping -c 1 -W 1 -q -s 8000 "$(ip4 1)" >/dev/null; }
h0_64k() { "$DRACKCTL" section show pool 0 owner 0 class 64k | awk '{ print $4 }'; }
revoked_copies() { echo $(($(drack_stat h1 rx_copied_revoke) - REVOKE_BEFORE)); }
all_copied() { (($(revoked_copies) >= REVOKE_N)); }
h0_no_64k() { [[ -z $(h0_64k) ]]; }
revoke_in_flight() {
	local s secs got
	ip -n h0 link set rack0 mtu 9000 && ip -n h1 link set rack0 mtu 9000 || return 1
	# A 64 KB Section each, granted while drack-fmd still runs.
	wait_for 20 h0_h1_jumbo || { echo "h0: no 8000 byte ping to h1"; return 1; }
	kill_pid "$DRACK_FMD_PID"
	secs=$(h0_64k)
	[[ -n $secs ]] || { echo "h0 owns no 64 KB Section"; return 1; }
	REVOKE_BEFORE=$(drack_stat h1 rx_copied_revoke)
	priv_flag h1 deaf on || return 1
	in_ns h0 ping -q -c "$REVOKE_N" -i 0.01 -W 0.2 -s 8000 "$(ip4 1)" >/dev/null 2>&1
	for s in $secs; do "$DRACKCTL" section revoke "$s" || return 1; done
	priv_flag h1 deaf off || return 1
	wait_for 10 all_copied
	got=$(revoked_copies)
	echo "$got frames copied from revoked Sections (sent $REVOKE_N), rx_byref $(drack_stat h1 rx_byref)"
	((got >= REVOKE_N)) || return 1
	# Their Buffers came home at once: the Sections go back to the pool.
	wait_for 10 h0_no_64k || { echo "h0 still owns 64 KB Sections $(h0_64k | xargs)"; return 1; }
	drack_start_fmd || return 1
	wait_for 20 h0_h1_jumbo || { echo "no 8000 byte ping once drack-fmd is back"; return 1; }
}
ktap_check revoke_in_flight revoke_in_flight && diag "$(head -n 1 "$DRACK_LOGDIR/check.out")"

drack_finish
