#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# netconsole: kernel messages over rack0, as over any NIC (netpoll).
#
#   h1 rack0 198.18.0.2  netconsole target  --> h0 rack0 198.18.0.1 UDP 6666
#
# netpoll transmits with interrupts off, and from hard irq for what is
# printed in interrupt context; it polls every NAPI of the device with
# budget 0. So xmit may take no lock that only blocks softirqs and may
# not run softirqs, and a poll with budget 0 must do nothing. The hard irq
# case is forced with sysrq-l: the other CPU prints its NMI backtrace
# from NMI, and printk flushes that to the consoles from an irq_work, in
# hard irq on that CPU.
#
# What breaks it: netpoll refused on rack0 (target), a message lost or
# garbled (message, burst, under_traffic, broadcast), rack0's delete
# waiting on netpoll or the target left enabled (link_deleted), spin_lock_bh or
# local_bh_enable on the transmit path (a WARNING from
# __local_bh_enable_ip in hardirq; lockdep on the debug kernel), NAPI
# doing work for netpoll's budget-0 poll (a WARNING "exceeded budget").
. "$(dirname "$0")/lib.sh"

ktap_plan 11
drack_setup 2 || ktap_finish

NC=/sys/kernel/config/netconsole
T=$NC/drack$$
OUT=$DRACK_LOGDIR/netconsole.out

PRINTK=$(</proc/sys/kernel/printk)
nc_setup() {
	modprobe netconsole || return 1
	# Every level to the consoles: the NMI backtrace is a warning.
	echo "8 4 1 7" >/proc/sys/kernel/printk
	[[ -d /sys/kernel/config/netconsole ]] ||
		mount -t configfs configfs /sys/kernel/config 2>/dev/null
	[[ -d $NC ]] || { echo "no $NC (CONFIG_NETCONSOLE_DYNAMIC)"; return 1; }
	bg listener in_ns h0 python3 -u -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
s.bind(("0.0.0.0", 6666))
with open(sys.argv[1], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(65536))' "$OUT"
	# Python starts slowly under KASAN and TCG: give it time.
	wait_for 60 eval "in_ns h0 ss -Hlun 'sport = :6666' | grep -q 6666" || { echo "no listener"; return 1; }
	mkdir "$T" || return 1
	echo rack0 >"$T/dev_name" &&
		echo 198.18.0.2 >"$T/local_ip" &&
		echo 198.18.0.1 >"$T/remote_ip" &&
		in_ns h0 cat /sys/class/net/rack0/address >"$T/remote_mac" || return 1
	# netpoll finds dev_name in the writer's namespace, h1 (not ip netns
	# exec: it mounts another /sys, without configfs).
	nsenter --net=/run/netns/h1 sh -c "echo 1 > $T/enabled" || { dmesg | tail -n 5; return 1; }
	[[ $(<"$T/enabled") == 1 ]] || { echo "target not enabled"; return 1; }
}
ktap_check target nc_setup

# got TEXT: every line with TEXT reached h0, however many were asked
got() {
	local n
	n=$(grep -a -c -- "$1" "$OUT" 2>/dev/null)
	echo "${n:-0}"
}
# expect TOKEN N: N distinct lines "TOKEN i" (i < N) arrive within 60 s
expect() {
	local tok=$1 n=$2
	wait_for 60 eval "[[ \$(grep -a -o -- '$tok [0-9]*' '$OUT' | sort -u | wc -l) -ge $n ]]" || {
		echo "$(grep -a -o -- "$tok [0-9]*" "$OUT" | sort -u | wc -l) of $n lines \"$tok i\" reached h0"
		drack_stats h1 | grep -E 'tx_(dropped|ring_full|no_buffer|peer_capped)' | head
		return 1
	}
}

say() { echo "$1" >/dev/kmsg; }

message() {
	local tok=one-$RANDOM
	say "drack-netconsole $tok 0"
	expect "$tok" 1
}
ktap_check message message

# 200 lines back to back, each sent from inside the write with
# interrupts off; none may be lost, whether or not the ring fills first.
burst() {
	local tok=burst-$RANDOM i
	for ((i = 0; i < 200; i++)); do say "drack-netconsole $tok $i"; done
	expect "$tok" 200
}
ktap_check burst burst

# The same while TCP fills the queues both ways: netpoll's budget-0
# polls meet NAPIs at work, its transmits meet the stack's.
under_traffic() {
	local tok=traffic-$RANDOM i rc=0
	iperf_server h0 5201 >/dev/null || return 1
	in_ns h1 iperf3 -c 198.18.0.1 -p 5201 -t 4 --bidir >"$DRACK_LOGDIR/iperf.log" 2>&1 &
	local ip=$!
	sleep 1
	for ((i = 0; i < 100; i++)); do say "drack-netconsole $tok $i"; sleep 0.01; done
	wait "$ip" || { echo "iperf3 failed:"; tail -n 3 "$DRACK_LOGDIR/iperf.log"; rc=1; }
	expect "$tok" 100 || rc=1
	return $rc
}
ktap_check under_traffic under_traffic

# Hard irq: the NMI backtrace of the CPU not writing goes out from an
# irq_work on that CPU. The window is checked here, as sysrq's own
# output holds call traces the final dmesg check would refuse.
hardirq() {
	local before bad log
	drack_dmesg_check || return 1
	kmsg "sysrq-l"
	before=$(got "NMI backtrace for cpu 1")
	taskset -c 0 sh -c 'echo l > /proc/sysrq-trigger'
	wait_for 60 eval "[[ \$(got 'NMI backtrace for cpu 1') -gt $before ]]" ||
		{ echo "cpu 1's NMI backtrace never reached h0"; return 1; }
	sleep 1
	log=$(dmesg | awk 'index($0, "drack-test: sysrq-l") { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }')
	bad=$(grep -aE 'WARNING:|BUG:|exceeded budget|inconsistent lock|possible circular|KASAN|UBSAN' <<<"$log" | head -n 5)
	kmsg "begin $DRACK_TEST"	# dmesg_clean judges what follows
	[[ -z $bad ]] || { echo "kernel log since sysrq-l:"; echo "$bad"; return 1; }
}
ktap_check hardirq hardirq

# The default remote MAC is broadcast: one copy to every peer.
broadcast() {
	local tok=bcast-$RANDOM
	echo 0 >"$T/enabled" && echo ff:ff:ff:ff:ff:ff >"$T/remote_mac" &&
		nsenter --net=/run/netns/h1 sh -c "echo 1 > $T/enabled" || return 1
	say "drack-netconsole $tok 0"
	expect "$tok" 1
}
ktap_check broadcast broadcast

# h1's rack0 deleted under the enabled target: netconsole lets go of it
# (NETDEV_UNREGISTER) and the delete does not wait on netpoll.
link_deleted() {
	timeout 60 ip -n h1 link del rack0 || { echo "ip link del rack0 failed or hung"; return 1; }
	DRACK_HOSTS=(h0)
	wait_for 5 eval "[[ \$(<'$T/enabled') == 0 ]]" || { echo "target still enabled after rack0 went"; return 1; }
	say "drack-netconsole nowhere to go"
	echo "$PRINTK" >/proc/sys/kernel/printk
	rmdir "$T"
}
ktap_check link_deleted link_deleted
drack_finish
