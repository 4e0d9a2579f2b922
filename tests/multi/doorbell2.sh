#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# doorbell2: two VMs on one ivshmem-doorbell pool, drack-ivshmem-server
# passing the eventfds: references wake the other kernel by MSI-X.
#
# ping and iperf3 both ways; every VM counts doorbell interrupts; with
# interrupts, a ping's round trip must not wait for the 100 ms heartbeat.
# Frames are received by reference from BAR2's ZONE_DEVICE pages: a
# stream's SHA-256 matches end to end, rx_byref counts its frames, each
# 64 KB Buffer is one page frag (BAR2's upper half is 64 KB compound
# pages, pages_by_kind), and every Buffer is home once it is read.
#
# What breaks it: a doorbell written to the wrong peer id (the notify
# field of the host table), MSI-X not enabled or bus mastering off (the
# interrupt is lost and only the heartbeat moves traffic: RTT ~100 ms),
# the server handing out wrong eventfds, pool pages without struct pages
# (copies: byref_over_ivshmem), Buffers handed back before the stack let
# go of their pages (a corrupted stream).
#
# Env: DRACK_MULTI_KVER boots both VMs on that kernel (tests/multi/
# doorbell2_612.sh runs it all on 6.12, with .build-612's module).
. "$(dirname "$0")/lib.sh"

KO=$TOP/kmod/drack.ko
[[ ${DRACK_MULTI_KVER:-} != 6.12.* ]] || KO=$TOP/.build-612/kmod/drack.ko
ktap_plan 10
rack_up 2 doorbell ${DRACK_MULTI_KVER:+--kver "$DRACK_MULTI_KVER"}
diag "kernel $(x 0 uname -r)"

ktap_check ping_both_ways eval 'xq 1 "ping -c 3 -i 0.2 -W 3 $(ip4 0)" && xq 0 "ping -6 -c 3 -i 0.2 -W 3 $(ip6 1)"'

iperf_both() {
	local a b
	xq 0 "iperf3 -s -D"
	xq 1 "iperf3 -s -D"
	a=$(x 1 "iperf3 -c $(ip4 0) -t 5 -J" | python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))') || return 1
	b=$(x 0 "iperf3 -c $(ip4 1) -t 5 -J -R" | python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))') || return 1
	echo "VM 1 -> VM 0: $a Mbit/s; VM 1 -> VM 0 (reverse): $b Mbit/s"
}
ktap_check iperf3 iperf_both && diag "$(cat "$LOGDIR/check.out")"

irqs() { x "$1" "grep drack-ivshmem /proc/interrupts" | awk '{ s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; else break; print s }'; }
counted() {
	local a b
	a=$(irqs 0) b=$(irqs 1)
	echo "doorbell interrupts: VM 0 ${a:-none}, VM 1 ${b:-none}"
	((${a:-0} > 0 && ${b:-0} > 0))
}
ktap_check interrupts_counted counted && diag "$(cat "$LOGDIR/check.out")"

# Median RTT of 9 pings, spaced 0.3 s so the poll would have backed off.
rtt() {
	local r
	r=$(x 1 "ping -c 9 -i 0.3 -W 3 $(ip4 0)" | awk -F'time=' '/time=/ { split($2, a, " "); print a[1] }' | sort -n | sed -n 5p)
	echo "median RTT VM 1 -> VM 0: ${r:-?} ms (the heartbeat poll alone takes ~100 ms)"
	[[ -n $r ]] && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 50 else 1)' "$r"
}
ktap_check rtt_by_doorbell rtt && diag "$(cat "$LOGDIR/check.out")"

byref() {
	local before after fb fa
	before=$(vm_stat 0 rx_byref) fb=$(vm_stat 0 rx_byref_frags)
	stream_to 0 1 $((16 << 20)) || return 1
	after=$(vm_stat 0 rx_byref) fa=$(vm_stat 0 rx_byref_frags)
	echo "VM 0 rx_byref $before -> $after, rx_byref_frags $fb -> $fa, rx_copied $(vm_stat 0 rx_copied), rx_held $(vm_stat 0 rx_held)"
	# 16 MB in at most 1024 frames by reference: GSO frames, not MTU sized
	((after - before >= 128 && after - before <= 1024)) || return 1
	# 64 KB Buffers on BAR2's 64 KB compound pages: one frag, not sixteen
	(((fa - fb) * 10 <= (after - before) * 11)) ||
		{ echo "more than 1.1 page frags per frame received by reference"; return 1; }
	wait_for 10 home 1 || { echo "VM 1 Buffers not home: $(inflight 1)"; return 1; }
}
ktap_check byref_over_ivshmem byref && diag "$(cat "$LOGDIR/check.out")"

# Both kernels map BAR2 in two kinds of pages: single below its middle,
# 64 KB compound above; each reports them (page-order), and drack-fmd put
# every granted Section on the kind that suits its class.
pages() {
	local vm out
	for vm in 0 1; do
		out=$(x "$vm" "drackctl -j section show pool 0" | jq -r '
			(map(select(.page_order == null)) | length) as $none |
			(length / 2 | ceil) as $mid |
			(map(select((.page_order // 0) > 0) | .section) | min) as $first |
			(map(select(.state == "granted" and ((.class == "64k") != ((.page_order // 0) > 0)))) | length) as $wrong |
			"sections \(length), no page-order \($none), first compound \($first) (middle \($mid)), granted on the wrong kind \($wrong)"') || return 1
		echo "VM $vm: $out"
		[[ $out =~ "no page-order 0, first compound "([0-9]+)" (middle "([0-9]+)"), granted on the wrong kind 0" ]] &&
			((BASH_REMATCH[1] == BASH_REMATCH[2])) || return 1
	done
}
ktap_check pages_by_kind pages && diag "$(cat "$LOGDIR/check.out")"

# A socket in VM 1 holds pool pages it received by reference and has not
# read; rack0 is deleted and drack.ko removed under it: the removal waits
# 5 s, keeps BAR2's mappings (dmesg says so) and the socket still reads
# its bytes intact from them. A new insmod takes the mappings over
# (both kinds), and rack0 works again, by reference.
held_rmmod() {
	local sent out
	x 1 "rm -f /tmp/go; (setsid nohup timeout 120 python3 $TOP/tests/net/stream.py recv 5302 --rcvbuf $((4 << 20)) --hold /tmp/go > /tmp/held.out 2>&1 &)"
	sleep 2
	sent=$(x 0 "timeout 60 python3 $TOP/tests/net/stream.py send $(ip4 1) 5302 $((96 << 10))") ||
		{ echo "VM 0: send failed: $sent"; return 1; }
	# all of it queued, FIN included, before the module goes
	wait_for 20 xq 1 "ss -tnH state close-wait '( sport = :5302 )' | grep -q ." ||
		{ echo "VM 1: the stream never arrived whole: $(x 1 'ss -tn')"; return 1; }
	out=$(x 1 "ip link del rack0; rmmod drack && dmesg | grep -E 'still held|mapping stays'") ||
		{ echo "rmmod with pages held: $out"; return 1; }
	echo "$out"
	grep -q "their mapping stays" <<<"$out" || return 1
	out=$(x 1 "touch /tmp/go; sleep 5; cat /tmp/held.out")
	echo "sent $sent, read after rmmod: $out"
	[[ -n $sent && $out == "$sent" ]]
}
ktap_check rmmod_while_held held_rmmod && diag "$(cat "$LOGDIR/check.out")"

insmod_again() {
	local out before
	out=$(x 1 "insmod $KO ram_pool_mb=0 && sleep 1 && drackctl link add rack0 pool 0 host 1 && ip link set rack0 up && ip addr add $(ip4 1)/24 dev rack0 && sleep 2 && ping -c 3 -i 0.2 -W 3 $(ip4 0) >/dev/null && echo up; dmesg | grep -c 'another kind'")
	# up, and no "BAR2 already has struct pages of another kind"
	[[ $out == $'up\n0' ]] || { echo "insmod again: $out"; return 1; }
	pages || return 1
	before=$(vm_stat 1 rx_byref)
	stream_to 1 0 $((4 << 20)) || return 1
	echo "VM 1 rx_byref $before -> $(vm_stat 1 rx_byref), rx_byref_frags $(vm_stat 1 rx_byref_frags)"
	(($(vm_stat 1 rx_byref) - before >= 32))
}
ktap_check insmod_takes_over insmod_again && diag "$(cat "$LOGDIR/check.out")"

rack_down
