#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fence: the fabric manager's periodic reclaim and dead-host handling.
#
#   h0 rack0 198.18.0.1 --+
#   h1 rack0 198.18.0.2 --+-- pool 0 -- drack-fmd (reclaim-slack 0,
#   h2 rack0 198.18.0.3 --+              reclaim every 1 s, dead after 1.5 s)
#
# reclaim: a burst h1 -> h0 while h0 is stalled makes h1 take another
# Section; once h0 resumes and hands the Buffers back, drack-fmd revokes the excess and h1 gives it back: it
# ends with one Section per class, the kernel counted the revokes, and h1
# still talks.
# dead host: h0 pings h2 fast (h0's Buffers lent to h2) and h1 runs an
# iperf3 to h0, then h2 hangs (ethtool private flag "stall": no heartbeat,
# no tx, no rx). drack-fmd must declare it dead, fence it, and take its
# Sections back once h0 and h1 have let go of it; h0 gets back the Buffers
# h2 never returned; h1's iperf3 keeps going. When h2 resumes, it finds
# itself fenced, drops its old Buffers and rejoins under the same id.
# leave: with no FM, h2 hangs again while h0 pings it; h0's Buffers pile
# up in h2's ring. Deleting h2's rack0 must hand them back to h0.
#
# What breaks it: no grant beyond the first Sections (reclaim_burst), no revoke, or a revoked Section never given back
# (reclaim_*), a hung host never fenced or its Sections kept (fenced,
# sections_back), live hosts that keep its references or lose their own
# Buffers lent to it (released, buffers_home), traffic among the others
# disturbed (others_iperf), a fenced host that writes to the pool or
# never rejoins (rejoin), a host leaving without handing back the
# references queued to it (leave_hands_back), leaks at rmmod (teardown,
# dmesg_clean).
. "$(dirname "$0")/lib.sh"

ktap_plan 17

FMD_LOG=$DRACK_LOGDIR/fmd.log

start_fmd() {
	[[ -x $DRACK_FMD ]] || { echo "no $DRACK_FMD: run make tools"; return 1; }
	"$DRACK_FMD" -f -v -c /dev/null -o reclaim-slack=0 -o reclaim-interval-ms=1000 \
		-o dead-timeout-ms=1500 -o poll-interval-ms=200 >"$FMD_LOG" 2>&1 </dev/null &
	DRACK_FMD_PID=$!
	wait_for 5 grep -q 'managing pool 0:' "$FMD_LOG" || {
		echo "drack-fmd did not take pool 0:"; cat "$FMD_LOG"; return 1; }
}

setup_fence() { drack_load && start_fmd && drack_hosts 3 && iperf_server h0 5201; }
ktap_check setup setup_fence || { diag "$(tail -n 10 "$FMD_LOG" 2>/dev/null)"; ktap_finish; }

# host_field HOST KEY: one field of `drackctl -j host show`
host_field() {
	"$DRACKCTL" -j host show pool 0 | python3 -c '
import json, sys
h, k = int(sys.argv[1]), sys.argv[2]
for e in json.load(sys.stdin):
    if e["host"] == h:
        print(e.get(k, "")); break
else:
    print("absent")' "$1" "$2"
}

# owned HOST: Sections the Section table gives to that host
owned() {
	"$DRACKCTL" -j section show pool 0 | python3 -c '
import json, sys
print(sum(1 for s in json.load(sys.stdin) if s.get("owner") == int(sys.argv[1])))' "$1"
}

# ---- reclaim ----------------------------------------------------------------

# Force what reclaim checks, whatever the machine's speed: h0 stops
# consuming (private flag "deaf": its heartbeat goes on, so drack-fmd
# does not fence it however long the burst takes) and h1 sends it 48
# frames of 8 KB, each holding one 64 KB Buffer of h1 until h0 hands it
# back: 48 Buffers are more than one Section of 32, so h1 must be granted
# another. (A flood alone proved nothing: a fast ring never needed a
# third Section.)
BURST=48
grants0=$(drack_stat h1 grants)
burst_to_stalled_h0() {
	ip -n h1 link set rack0 mtu 9000 &&
		ip -n h1 neigh replace "$(ip4 0)" lladdr "$(host_mac 0)" dev rack0 nud permanent &&
		priv_flag h0 deaf on || return 1
	in_ns h1 ping -q -c "$BURST" -i 0.002 -W 1 -s 8000 "$(ip4 0)" >/dev/null 2>&1
	priv_flag h0 deaf off || return 1
	grants=$(drack_stat h1 grants)
	echo "h1: $(drack_stat h1 buf64k_sections) 64 KB Sections, grants $grants0 -> $grants, tx_no_buffer $(drack_stat h1 tx_no_buffer)"
	((grants > grants0))
}
ktap_check reclaim_burst burst_to_stalled_h0 && diag "$(cat "$DRACK_LOGDIR/check.out")"
ip -n h1 neigh del "$(ip4 0)" dev rack0 2>/dev/null
ip -n h1 link set rack0 mtu 1500
grants=$(drack_stat h1 grants)

reclaimed() { (($(owned 1) <= 2)); }
if wait_for 20 reclaimed; then
	ktap_ok reclaim_given_back
	diag "h1 owns $(owned 1) Sections after the traffic, $(drack_stat h1 revokes) given back"
else
	ktap_fail reclaim_given_back "h1 still owns $(owned 1) Sections ($grants granted)" \
		"$(grep -E 'revok' "$FMD_LOG" | tail -n 5)" "$(drack_dump_stats)"
fi

# Every Section h1 was granted is either still its own or was given back.
revokes_counted() {
	local k f n
	k=$(drack_stat h1 revokes)
	n=$(owned 1)
	f=$(grep -c "host 1: revoked Section" "$FMD_LOG")
	echo "h1: $grants granted, $n owned, $k revoked; drack-fmd logged $f"
	((k >= 1 && k == grants - n && f == k))
}
ktap_check reclaim_counted revokes_counted
ktap_check reclaim_still_talks ping_ok h1 "$(ip4 0)"

# ---- dead host --------------------------------------------------------------

h2_sections=$(owned 2)
OTHERS=$DRACK_LOGDIR/others.json
bg ping_h2 ip netns exec h0 timeout 60 ping -q -i 0.02 -W 1 "$(ip4 2)"
iperf_run h1 "$(ip4 0)" 5201 "$OTHERS" -t 8 -P 2 &
iperf_pid=$!
sleep 1
in_ns h2 ethtool --set-priv-flags rack0 stall on
stalled_at=$SECONDS

fenced() { grep -q "host 2: no heartbeat" "$FMD_LOG"; }
if wait_for 10 fenced; then
	ktap_ok fenced
	diag "$(grep -m1 'host 2: no heartbeat' "$FMD_LOG" | sed 's/^.*drack-fmd[^:]*: //')"
else
	ktap_fail fenced "no fence within 10 s of the stall" "$(tail -n 10 "$FMD_LOG")"
fi

back() { [[ $(owned 2) == 0 && $(host_field 2 state) == absent ]]; }
if wait_for 10 back; then
	ktap_ok sections_back
	diag "h2 held $h2_sections Sections; slot free $((SECONDS - stalled_at)) s after the stall"
else
	ktap_fail sections_back "h2 still owns $(owned 2) Sections, state $(host_field 2 state)" \
		"$(grep 'host 2' "$FMD_LOG" | tail -n 5)"
fi

released() {
	local i n
	for i in 0 1; do
		n=$(drack_stat "h$i" peers_released)
		echo "h$i peers_released $n"
		((n == 1)) || return 1
	done
}
ktap_check released released

rc=0
wait "$iperf_pid" || rc=$?
res=$(iperf_result "$OTHERS") || { ((rc)) || rc=1; }
if ((rc == 0)); then
	ktap_ok others_iperf
	diag "h1 -> h0 across h2's death: $res"
else
	ktap_fail others_iperf "iperf3 h1 -> h0: rc $rc: $res" "$(drack_dump_stats)"
fi
drack_kill_bg

# h0 lent h2 Buffers for the pings: they must be home although h2 never
# returned them.
ktap_check buffers_home_survivors drack_check_buffers_home h0 h1

# ---- rejoin -----------------------------------------------------------------

in_ns h2 ethtool --set-priv-flags rack0 stall off
rejoined() { [[ $(host_field 2 state) == up ]] && ping_once h2 "$(ip4 0)" >/dev/null; }
if wait_for 15 rejoined; then
	ktap_ok rejoin
	diag "h2 rejoined: generation $(host_field 2 generation), fenced $(drack_stat h2 fenced) time(s)"
else
	ktap_fail rejoin "h2 state $(host_field 2 state)" "$(dmesg | grep -a rack0 | tail -n 5)"
fi
ktap_check rejoin_pings ping_ok h2 "$(ip4 1)"

# ---- a host leaves with references queued to it -----------------------------

# No FM from here on: nobody fences h2 while it hangs.
kill "$DRACK_FMD_PID" 2>/dev/null
wait "$DRACK_FMD_PID" 2>/dev/null
DRACK_FMD_PID=
in_ns h2 ethtool --set-priv-flags rack0 stall on
in_ns h0 ping -q -c 40 -i 0.02 -W 1 "$(ip4 2)" >/dev/null 2>&1
queued=$(drack_stat h0 buf2k_inflight)
if ((queued > 0)); then
	ktap_ok queued_to_hung_host
	diag "h0 has $queued Buffers queued to the hung h2"
else
	ktap_fail queued_to_hung_host "h0 buf2k_inflight $queued" "$(drack_dump_stats)"
fi
# Leaving must hand back what peers queued to it, hung or not.
drack_del_host h2
ktap_check leave_hands_back drack_check_buffers_home h0 h1

drack_finish
