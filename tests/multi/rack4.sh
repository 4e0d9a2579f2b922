#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rack4: four VMs (4 kernels) on one ivshmem pool, drack-fmd on VM 0.
#
#   VM0 198.18.0.1 --+
#   VM1 198.18.0.2 --+-- ivshmem pool (BAR2 of each VM, polling)
#   VM2 198.18.0.3 --+
#   VM3 198.18.0.4 --+
#
# all-to-all ping (IPv4 and IPv6: ARP and ND between kernels), iperf3
# all-to-all (12 flows at once), then VM 3's QEMU is killed while it
# sends to VM 0 and VM 1 sends to VM 2: the others keep talking, the FM
# fences host 3 and takes its Sections back once VM 0-2 let go of it,
# their Buffers come home; VM 3 boots again and rejoins; finally VM 2
# plays a rogue host writing garbage into VM 0's rings (tests/pool/
# corrupt): VM 0 drops and counts it and stays healthy.
#
# What breaks it: delivery or neighbour resolution across kernels, a
# shared pool formatted twice or adopted wrong, requests of remote hosts
# never served, a dead VM never fenced or its Sections kept, survivors
# holding Buffers lent to it, a rejoin refused, garbage accepted from the
# pool, kernel warnings in any VM (stop).
. "$(dirname "$0")/lib.sh"

ktap_plan 12
rack_up 4 ivshmem --dead-timeout 4000

all_ping() {
	local i j bad=0
	for i in 0 1 2 3; do
		for j in 0 1 2 3; do
			((i == j)) && continue
			xq "$i" "ping -c 2 -i 0.2 -W 3 $(ip4 "$j")" || { echo "VM $i cannot ping $(ip4 "$j")"; bad=1; }
		done
	done
	return $bad
}
ktap_check ping_all_to_all all_ping

neigh() {
	local bad=0 i
	xq 1 "ping -6 -c 2 -i 0.2 -W 3 $(ip6 3)" || { echo "VM 1 cannot ping6 $(ip6 3)"; bad=1; }
	x 1 "ip -6 neigh show dev rack0; ip -4 neigh show dev rack0" >"$LOGDIR/neigh" 2>&1
	for i in 0 2 3; do
		grep -q "$(ip4 "$i") .*lladdr $(host_mac "$i")" "$LOGDIR/neigh" || { echo "no ARP entry for VM $i"; bad=1; }
	done
	grep -q "$(ip6 3) .*lladdr $(host_mac 3)" "$LOGDIR/neigh" || { echo "no ND entry for VM 3"; bad=1; }
	((bad)) && cat "$LOGDIR/neigh"
	return $bad
}
ktap_check arp_nd_across_kernels neigh

# One iperf3 server per source on every VM: port 5201 + source VM.
for i in 0 1 2 3; do
	xq "$i" "for p in 5201 5202 5203 5204; do iperf3 -s -D -p \$p; done"
done
# iperf3 FROM TO SECS: Mbit/s received, or nothing
iperf() {
	x "$1" "iperf3 -c $(ip4 "$2") -p $((5201 + $1)) -t $3 -J" 2>/dev/null | python3 -c '
import json, sys
print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))' 2>/dev/null
}
# Every VM sends to every other one at once: 12 flows through one pool.
all_to_all() {
	local i j pids=() bad=0 line=
	for i in 0 1 2 3; do
		for j in 0 1 2 3; do
			((i == j)) && continue
			iperf "$i" "$j" 5 >"$LOGDIR/flow$i$j" &
			pids+=($!)
		done
	done
	wait "${pids[@]}"
	for i in 0 1 2 3; do
		for j in 0 1 2 3; do
			((i == j)) && continue
			[[ -s $LOGDIR/flow$i$j ]] || { echo "iperf3 VM $i -> VM $j failed"; bad=1; }
			line+="$i>$j $(cat "$LOGDIR/flow$i$j") "
		done
	done
	echo "Mbit/s: $line"
	return $bad
}
ktap_check iperf3_all_to_all all_to_all && diag "$(cat "$LOGDIR/check.out")"

# ---- VM 3 dies in the middle of a transfer ---------------------------------

iperf 3 0 20 >"$LOGDIR/dying" &
dying=$!
iperf 1 2 15 >"$LOGDIR/survivor" &
survivor=$!
sleep 4
"${RACK[@]}" kill 3 >"$LOGDIR/kill.log" 2>&1
wait "$survivor"
wait "$dying"
if [[ -s $LOGDIR/survivor ]]; then
	ktap_ok others_keep_talking
	diag "VM 1 -> VM 2 while VM 3 died: $(cat "$LOGDIR/survivor") Mbit/s"
else
	ktap_fail others_keep_talking "iperf3 VM 1 -> VM 2 failed"
fi

sections_of() { # HOST: Sections the table gives it
	x 0 "drackctl -j section show pool 0" | python3 -c '
import json, sys
print(sum(1 for s in json.load(sys.stdin) if s.get("owner") == int(sys.argv[1])))' "$1"
}
reclaimed() {
	local n
	n=$(sections_of 3)
	x 0 "drackctl host show pool 0" | grep -q "host 3 " && return 1
	[[ $n == 0 ]]
}
if wait_for 40 reclaimed; then
	ktap_ok dead_vm_fenced_and_reclaimed
	diag "$("${RACK[@]}" log 0 fmd 2>/dev/null | grep -E 'host 3: (no heartbeat|reclaimed)' | sed 's/^.*drack-fmd[^:]*: //')"
else
	ktap_fail dead_vm_fenced_and_reclaimed "host 3 still holds $(sections_of 3) Sections" \
		"$(x 0 'drackctl host show pool 0')" "$("${RACK[@]}" log 0 fmd 2>/dev/null | tail -n 8)"
fi

survivors_home() { home 0 1 2; }
if wait_for 20 survivors_home; then
	ktap_ok survivors_buffers_home
else
	ktap_fail survivors_buffers_home "inflight: VM0 $(inflight 0) VM1 $(inflight 1) VM2 $(inflight 2)"
fi

# ---- VM 3 comes back -------------------------------------------------------

"${RACK[@]}" boot 3 >"$LOGDIR/boot.log" 2>&1
back() { xq 3 "ping -c 1 -W 2 $(ip4 0)"; }
if wait_for 180 back; then
	ktap_ok rejoin
	diag "$(x 0 'drackctl host show pool 0' | grep 'host 3 ')"
else
	ktap_fail rejoin "$(tail -n 10 "$LOGDIR/boot.log")" "$(x 0 'drackctl host show pool 0')"
fi
ktap_check rejoin_talks xq 3 "ping -c 2 -i 0.2 -W 3 $(ip4 1) && ping -6 -c 2 -i 0.2 -W 3 $(ip6 2)"

# ---- a rogue host writes garbage into VM 0's rings -------------------------

bad_counters() { x 0 "ethtool -S rack0" | awk '$1 ~ /^(rx_bad_desc|rx_bad_ring|ret_bad):$/ { s += $2 } END { print s + 0 }'; }
before=$(bad_counters)
rogue() {
	x 2 "DRACK_VICTIM=0 DRACK_OTHER=1 DRACK_SETTLE_MS=5000 DRACK_CORRUPT_OUT=/tmp/corrupt.out timeout 150 $TOP/tests/pool/corrupt; cat /tmp/corrupt.out"
}
XT=200 ktap_check rogue_program rogue
after=$(bad_counters)
healthy() { (( after > before )) && xq 0 "ping -c 2 -i 0.2 -W 3 $(ip4 1)" && xq 1 "ping -c 2 -i 0.2 -W 3 $(ip4 0)"; }
if healthy; then
	ktap_ok garbage_dropped_and_counted
	diag "VM 0 bad references, rings and returns: +$((after - before))"
else
	ktap_fail garbage_dropped_and_counted "VM 0 bad counters $before -> $after" "$(x 0 'ethtool -S rack0 | grep -E bad')"
fi

rack_down
