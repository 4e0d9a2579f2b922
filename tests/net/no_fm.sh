#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# no_fm: a rack without its fabric manager.
#
#   h0 rack0 .1  <-- pool 0, no drack-fmd -->  h1 rack0 .2
#
# No Section is granted, so nothing can be sent: the queue waits (frames
# are not sent into the void), the kernel says so once per interface, and
# keeps asking. Once drack-fmd starts, Sections arrive and traffic flows.
#
# What breaks it: sending without Buffers (ping_blocked), no log line or
# one per retry (warned_once), requests not repeated so a late FM never
# hears of them (fmd_late_start), grants not used (granted).
. "$(dirname "$0")/lib.sh"

ktap_plan 10

setup_no_fm() {
	drack_load && drack_host_add 0 && drack_host_add 1 &&
		wait_for 10 has_carrier h0 && wait_for 10 has_carrier h1
}
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

ping_blocked() {
	if ping_once h0 "$(ip4 1)"; then
		echo "ping went through without any Section"
		return 1
	fi
}
ktap_check ping_blocked ping_blocked

warnings() { drack_dmesg_since_begin | grep -c 'no Sections granted in pool 0: is drack-fmd running'; }
warned_once() {
	local n
	wait_for 10 eval '(( $(warnings) >= 2 ))' || { echo "no warning for both hosts: $(warnings) lines"; return 1; }
	sleep 3	# more retries happen meanwhile; the warning must not repeat
	n=$(warnings)
	((n == 2)) || { echo "$n warning lines, expected one per interface (2)"; return 1; }
}
ktap_check warned_once warned_once

requests_repeat() {
	local n
	n=$(drack_stat h0 section_requests)
	((n >= 4)) || { echo "h0 section_requests=$n: requests are not repeated"; return 1; }
}
ktap_check requests_repeat requests_repeat

# A late fabric manager serves the outstanding requests.
ktap_check fmd_late_start eval 'drack_start_fmd && wait_for 20 ping_once h0 "$(ip4 1)"'

granted() {
	local ns
	for ns in h0 h1; do
		(($(drack_stat "$ns" grants) >= 1)) || { echo "$ns: no grant"; return 1; }
		(($(drack_stat "$ns" buf2k_sections) >= 1)) || { echo "$ns: no 2k Section"; return 1; }
	done
}
ktap_check granted granted

drack_finish
