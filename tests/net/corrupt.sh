#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# corrupt: a rogue peer writes garbage into the pool; the victim survives.
#
#   h0 (victim, host 0) <-- pool 0 --> h1 (host 1, owns Sections)
#                 ^
#   tests/pool/corrupt (root, mmaps /dev/drack_pool0) plays host F, a free
#   host id: one good ref (control), one bad ref per kind, a garbage
#   producer index, bogus Buffer returns -- all into h0's rings.
#
# What breaks it: a receiver that accepts a bad ref (rx_bad_desc short of
# the number posted; with validation off the program's bad_refs test also
# sees Buffers "returned" for them), that ignores rings of hosts without
# a netdev (good_refs_delivered, and the program times out waiting for
# cons), that never resyncs a garbage ring (bad_ring_counted), accepts
# bogus returns (bad_returns_counted), or crashes/warns (dmesg_clean).
. "$(dirname "$0")/lib.sh"

PROG=$DRACK_POOL_BIN/corrupt
OUT=$DRACK_LOGDIR/corrupt.out

ktap_plan 13
drack_setup 2 || ktap_finish

# Both hosts own Sections before the attack.
ping_ok h0 198.18.0.2 >/dev/null
ping_ok h1 198.18.0.1 >/dev/null
drack_wait_settled 5
snap before h0
snap before h1

rm -f "$OUT"
rc=0
out=$(DRACK_VICTIM=0 DRACK_OTHER=1 DRACK_CORRUPT_OUT=$OUT timeout 120 "$PROG" 2>&1) || rc=$?
if ((rc == 0)); then
	ktap_ok pool_program
else
	ktap_fail pool_program "tests/pool/corrupt rc $rc"
fi
diag "$out"
sleep 0.5

sum() { awk -F= -v k="$1" '$1 == k { s += $2 } END { print s + 0 }' "$OUT" 2>/dev/null || echo 0; }
BAD_REFS=$(sum bad_refs) BAD_RETS=$(sum bad_rets) BAD_RINGS=$(sum bad_rings) GOOD=$(sum good_refs)
F=$(awk -F= '$1 == "rogue" { r = $2 } END { print r }' "$OUT" 2>/dev/null)
diag "rogue host $F posted: bad_refs=$BAD_REFS bad_rings=$BAD_RINGS bad_rets=$BAD_RETS good_refs=$GOOD"

# counter_is NAME NS COUNTER OP WANT
counter_is() {
	local d
	d=$(delta before "$2" "$3") || { ktap_fail "$1" "no counter $3 on $2"; return; }
	if (("$d" $4 $5)); then
		ktap_ok "$1"
		diag "$2 $3 +$d"
	else
		ktap_fail "$1" "$2 $3 grew by $d, expected $4 $5" "$(drack_dump_stats)"
	fi
}

if [[ -n $F && $BAD_REFS -gt 0 ]]; then
	counter_is bad_desc_counted h0 rx_bad_desc == "$BAD_REFS"
	counter_is bad_desc_per_peer h0 "peer${F}_rx_bad" '>=' "$BAD_REFS"
else
	ktap_fail bad_desc_counted "the program posted no bad refs"
	ktap_fail bad_desc_per_peer "the program posted no bad refs"
fi
if ((BAD_RINGS > 0)); then
	counter_is bad_ring_counted h0 rx_bad_ring '>=' 1
else
	ktap_fail bad_ring_counted "the program posted no garbage index"
fi
if ((BAD_RETS > 0)); then
	counter_is bad_returns_counted h0 ret_bad == "$BAD_RETS"
else
	ktap_fail bad_returns_counted "the program posted no bogus return"
fi
if [[ -n $F ]] && ((GOOD > 0)); then
	counter_is good_refs_delivered h0 "peer${F}_rx_packets" == "$GOOD"
else
	ktap_fail good_refs_delivered "the program delivered no good ref"
fi

other_clean() {
	local c d bad=0
	for c in rx_bad_desc rx_bad_ring ret_bad; do
		d=$(delta before h1 "$c") || { echo "no $c"; return 1; }
		((d == 0)) || { echo "h1 $c +$d: the attack on h0 touched h1"; bad=1; }
	done
	return $bad
}
ktap_check other_host_clean other_clean

ktap_check ping_after eval 'ping_ok h0 198.18.0.2 && ping_ok h1 2001:db8:d7::1'
iperf_server h0 5201 >/dev/null
iperf_check tcp_after h1 198.18.0.1 5201 1 100 -t 3

drack_finish
