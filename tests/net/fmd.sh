#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fmd: the fabric manager's quota, and a fabric manager restart.
#
#   h0 rack0 198.18.0.1 --+
#   h1 rack0 198.18.0.2 --+-- pool 0 (32 x 2 MB Sections) -- drack-fmd -v -q 3
#   h2 rack0 198.18.0.3 --+
#
# quota: an iperf3 flood h1 -> h0 (4 streams) while h2 pings h0 every
# 0.2 s: drack-fmd -q 3 keeps h1 within 3 Sections and still serves h2,
# whose pings must get through; every host's Sections spread over both
# Regions of the pool (interleave). Then h1 is made to need more than 3
# Sections (h0 deaf, a burst of 120 frames each holding a 64 KB Buffer
# of h1): its request beyond the quota is refused and logged.
# fm_restart: during an 8 s iperf3 h1 -> h0, drack-fmd is killed with
# SIGKILL and a new one started 1 s later. Granted Sections stay with
# their hosts: traffic goes on, and the new drack-fmd starts from the
# kernel's Section table, granting no Section that is already owned.
#
# What breaks it: the quota not enforced or counted wrong (quota_held:
# a host owns more than 3 Sections), requests beyond the quota not
# refused or not logged (quota_reached), one host's requests starving another's or grants lost
# (h2_sections, h2_ping), Sections granted on the wrong kind of pages
# (pages_by_class), a queue stuck while the FM is away or traffic
# depending on a live FM (fm_restart_iperf), a new FM that does not read
# the existing grants (fm_restart_sees_grants: its free count differs from
# the table), a Section granted twice or a host's counters disagreeing
# with the Section table (grants_consistent), Buffers not coming home,
# rmmod failing, kernel warnings (buffers_home, teardown, dmesg_clean).
. "$(dirname "$0")/lib.sh"

ktap_plan 16

QUOTA=3
FMD_LOG=$DRACK_LOGDIR/fmd.log
FMD_LOG2=$DRACK_LOGDIR/fmd2.log

# start_fmd LOG: drack-fmd -v -q $QUOTA in the background (killed by
# drack_cleanup through DRACK_FMD_PID)
start_fmd() {
	[[ -x $DRACK_FMD ]] || { echo "no $DRACK_FMD: run make tools"; return 1; }
	"$DRACK_FMD" -v -q "$QUOTA" >"$1" 2>&1 </dev/null &
	DRACK_FMD_PID=$!
	sleep 0.3
	kill -0 "$DRACK_FMD_PID" 2>/dev/null || {
		echo "drack-fmd exited:"; cat "$1"; DRACK_FMD_PID=; return 1; }
	grep -q "quota $QUOTA Sections per host" "$1" ||
		{ echo "drack-fmd does not report quota $QUOTA:"; cat "$1"; return 1; }
}

setup_fmd() { drack_load && start_fmd "$FMD_LOG" && drack_hosts 3 && iperf_server h0 5201; }
ktap_check setup setup_fmd || { diag "$(tail -n 10 "$FMD_LOG" 2>/dev/null)"; ktap_finish; }

# section_table: "section state owner class" lines from drackctl -j
section_table() {
	"$DRACKCTL" -j section show pool 0 | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    print(s["section"], s["state"], s.get("owner", "-"), s.get("class", "-"))'
}

# owned HOST_ID: Sections the table gives to that host
owned() { section_table | awk -v h="$1" '$2 == "granted" && $3 == h' | wc -l; }

# ---- quota ------------------------------------------------------------------

PING_OUT=$DRACK_LOGDIR/ping_h2.log
IPERF1=$DRACK_LOGDIR/flood.json
bg ping_h2 ip netns exec h2 timeout 20 ping -c 40 -i 0.2 -W 2 "$(ip4 0)"
ping_pid=$BG_PID
rc=0
iperf_run h1 "$(ip4 0)" 5201 "$IPERF1" -t 6 -P 4 || rc=$?
res=$(iperf_result "$IPERF1") || { ((rc)) || rc=1; }
wait "$ping_pid"
if ((rc == 0)); then
	ktap_ok flood
	diag "flood h1 -> h0: $res"
else
	ktap_fail flood "iperf3 -t 6 -P 4 h1 -> h0: rc $rc: $res" "$(drack_dump_stats)"
fi

quota_held() {
	local i n s bad=0
	section_table
	for i in 0 1 2; do
		n=$(owned "$i")
		s=$(($(drack_stat "h$i" buf2k_sections) + $(drack_stat "h$i" buf64k_sections)))
		echo "h$i: $n Sections in the table, $s in its counters"
		((n <= QUOTA && s <= QUOTA)) || { echo "h$i owns more than $QUOTA Sections"; bad=1; }
	done
	return $bad
}
ktap_check quota_held quota_held

h2_sections() {
	local c n
	for c in 2k 64k; do
		n=$(drack_stat h2 "buf${c}_sections")
		echo "h2 buf${c}_sections $n"
		((n >= 1)) || { echo "h2 has no $c Section"; tail -n 20 "$FMD_LOG"; return 1; }
	done
}
ktap_check h2_sections h2_sections

# Interleave placement: a host's Sections spread over the pool's 2 Regions.
interleaved() {
	local out
	out=$("$DRACKCTL" -j section show pool 0 | python3 -c '
import json, sys
regions = {}
for s in json.load(sys.stdin):
    if s["state"] == "granted":
        regions.setdefault(s["owner"], []).append(s["region"])
bad = 0
for h, r in sorted(regions.items()):
    print("host %d: Sections in regions %s" % (h, sorted(r)))
    if len(r) >= 2 and len(set(r)) < 2:
        bad = 1
sys.exit(bad)') || { echo "$out"; return 1; }
	echo "$out" | tr '\n' ';'
}
ktap_check interleaved interleaved && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Pages by class: 64 KB Sections on 64 KB compound pages (a Buffer
# received by reference is one page), 2 KB ones on single pages, as the
# kernel reports them (page-order in the Section dump); a ram pool puts
# them in the upper and lower half of each Region. The pool has room for
# every grant on its own kind.
pages_by_class() {
	local out
	out=$("$DRACKCTL" -j section show pool 0 | jq -r '.[] | select(.state == "granted") |
		"\(.section) \(.class) \(if .page_order == null then "none" elif .page_order > 0 then "large" else "single" end)"') ||
		return 1
	echo "granted: section class pages (page-order):"
	echo "$out" | tr '\n' ';'
	echo
	[[ -n $out ]] && grep -q ' 64k large$' <<<"$out" &&
		! grep -Eq ' (64k single|2k large|[0-9a-z]+ none)$' <<<"$out"
}
ktap_check pages_by_class pages_by_class && diag "$(cat "$DRACK_LOGDIR/check.out")"

h2_ping() {
	local tx rx
	tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$PING_OUT")
	rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$PING_OUT")
	echo "h2 -> h0: ${tx:-?} sent, ${rx:-?} received"
	[[ -n $tx && -n $rx ]] || { cat "$PING_OUT"; return 1; }
	((tx >= 30 && rx * 10 >= tx * 9)) || { tail -n 5 "$PING_OUT"; return 1; }
}
ktap_check h2_ping h2_ping && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Force what quota_reached checks, whatever the machine's speed: h0 stops
# consuming (private flag "deaf": its heartbeat goes on, so drack-fmd
# does not fence it however long the burst takes), and h1 sends it 120
# frames of 8 KB, each holding one 64 KB Buffer of h1 until h0 hands it
# back. 120 Buffers are 4 Sections of 32: more than the quota of 3, so h1
# asks beyond it.
BURST=120
# Every refusal, at debug level (the info line is logged once a minute).
refusals() { grep -c "host 1: refused: quota reached" "$FMD_LOG"; }
burst_to_stalled_h0() {
	REFUSED_BEFORE=$(refusals)
	ip -n h1 link set rack0 mtu 9000 &&
		ip -n h1 neigh replace "$(ip4 0)" lladdr "$(host_mac 0)" dev rack0 nud permanent &&
		priv_flag h0 deaf on || return 1
	in_ns h1 ping -q -c "$BURST" -i 0.002 -s 8000 -W 1 "$(ip4 0)" >/dev/null 2>&1
	echo "h1: $(drack_stat h1 buf64k_inflight) 64 KB Buffers lent, $(drack_stat h1 buf64k_sections) 64 KB and $(drack_stat h1 buf2k_sections) 2 KB Sections, tx_no_buffer $(drack_stat h1 tx_no_buffer)"
}

quota_reached() {
	local n
	# A new request beyond the quota, made by the burst, is refused and
	# logged at once (the flood may have logged some before).
	if wait_for 5 eval '(( $(refusals) > REFUSED_BEFORE ))'; then
		echo "h1 owns $(owned 1) Sections; refusal logged"
		return 0
	fi
	n=$(owned 1)
	echo "h1 owns $n Sections (quota $QUOTA) and no refusal was logged"
	echo "h1: section_requests $(drack_stat h1 section_requests) grants $(drack_stat h1 grants)" \
		"tx_no_buffer $(drack_stat h1 tx_no_buffer) buf64k_inflight $(drack_stat h1 buf64k_inflight)"
	tail -n 20 "$FMD_LOG"
	return 1
}

h0_back() {
	priv_flag h0 deaf off || return 1
	ip -n h1 neigh del "$(ip4 0)" dev rack0 2>/dev/null
	ip -n h1 link set rack0 mtu 1500 || return 1
	wait_for 15 ping_once h1 "$(ip4 0)" || { echo "h0 did not come back"; return 1; }
}

ktap_check burst_to_stalled_h0 burst_to_stalled_h0 && diag "$(head -n 1 "$DRACK_LOGDIR/check.out")"
ktap_check quota_reached quota_reached && diag "$(head -n 1 "$DRACK_LOGDIR/check.out")"
ktap_check h0_back h0_back

# ---- fm_restart -------------------------------------------------------------

IPERF2=$DRACK_LOGDIR/restart.json
TABLE_BEFORE=$DRACK_LOGDIR/table_before_restart
iperf_run h1 "$(ip4 0)" 5201 "$IPERF2" -t 8 -P 4 &
iperf_pid=$!
sleep 2
kill -9 "$DRACK_FMD_PID" 2>/dev/null
wait "$DRACK_FMD_PID" 2>/dev/null
DRACK_FMD_PID=
sleep 0.5
section_table >"$TABLE_BEFORE"	# no FM running: nothing is granted meanwhile
sleep 0.5
start_fmd "$FMD_LOG2" >"$DRACK_LOGDIR/restart.out" 2>&1
rc=0
wait "$iperf_pid" || rc=$?
res=$(iperf_result "$IPERF2") || { ((rc)) || rc=1; }
if ((rc == 0)); then
	ktap_ok fm_restart_iperf
	diag "iperf3 across the restart: $res"
else
	ktap_fail fm_restart_iperf "iperf3 -t 8 h1 -> h0: rc $rc: $res" "$(drack_dump_stats)"
fi

# The new FM's view of pool 0 when it started, against the table then.
sees_grants() {
	local line free want
	[[ -n $DRACK_FMD_PID ]] || { echo "new drack-fmd did not start:"; cat "$DRACK_LOGDIR/restart.out"; return 1; }
	kill -0 "$DRACK_FMD_PID" || { echo "new drack-fmd exited:"; cat "$FMD_LOG2"; return 1; }
	wait_for 5 grep -q 'managing pool 0:' "$FMD_LOG2" || { echo "new drack-fmd never saw pool 0:"; cat "$FMD_LOG2"; return 1; }
	line=$(grep -m1 'managing pool 0:' "$FMD_LOG2")
	echo "$line"
	free=$(sed -n 's/.*metadata, \([0-9]*\) free).*/\1/p' <<<"$line")
	want=$(awk '$2 == "free"' "$TABLE_BEFORE" | wc -l)
	((free == want)) || { echo "new drack-fmd sees $free free Sections, the table had $want"; cat "$TABLE_BEFORE"; return 1; }
	if grep 'failed' "$FMD_LOG2"; then
		echo "new drack-fmd had failures"
		return 1
	fi
}
ktap_check fm_restart_sees_grants sees_grants

# Every Section one owner; per host and class, the table agrees with the
# host's counters; nobody over the quota.
grants_consistent() {
	local t i c n s sum=0 granted bad=0
	t=$(section_table)
	echo "$t" | awk '{ print $2 }' | sort | uniq -c | tr '\n' ' '; echo
	n=$(awk '{ print $1 }' <<<"$t" | sort | uniq -d | wc -l)
	((n == 0)) || { echo "Sections listed twice:"; awk '{ print $1 }' <<<"$t" | sort | uniq -d; bad=1; }
	n=$(wc -l <<<"$t")
	((n == 32)) || { echo "$n Sections in the table, expected 32"; bad=1; }
	granted=$(awk '$2 == "granted"' <<<"$t" | wc -l)
	for i in 0 1 2; do
		for c in 2k 64k; do
			n=$(awk -v h="$i" -v c="$c" '$2 == "granted" && $3 == h && $4 == c' <<<"$t" | wc -l)
			s=$(drack_stat "h$i" "buf${c}_sections")
			sum=$((sum + s))
			echo "h$i $c: table $n, buf${c}_sections $s"
			((n == s)) || { echo "h$i $c: the table and the counters disagree"; bad=1; }
		done
		(($(owned "$i") <= QUOTA)) || { echo "h$i over the quota"; bad=1; }
	done
	((sum == granted)) || { echo "hosts hold $sum Sections, the table has $granted granted"; bad=1; }
	((bad)) && { echo "$t"; tail -n 20 "$FMD_LOG2"; }
	return $bad
}
# Let the new FM serve what was pending, then compare.
sleep 1.5
ktap_check grants_consistent grants_consistent && diag "$(head -n 1 "$DRACK_LOGDIR/check.out")"
diag "new drack-fmd: $(grep -c 'granted Section' "$FMD_LOG2") grants, $(grep -c 'refused' "$FMD_LOG2") refusals"

drack_finish
