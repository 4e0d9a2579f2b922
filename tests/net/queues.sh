#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# queues: several queue pairs per host (ethtool -l/-L). Two hosts, h0 and
# h1, over one RAM pool formatted with 4 ref_queues per pair of hosts.
#
# Forced, not hoped for: XPS maps CPU 0 to one TX queue at a time and a
# sender pinned to CPU 0 (taskset) must use exactly that queue, so its
# frames must show up on that TX queue of the sender and on the RX queue
# polling that ring at the receiver (ring q is polled by RX queue
# q % channels). Channels changed while four TCP streams run both ways
# must lose no frame: every frame one host sent the other is received
# (per-peer counters equal once the link is quiet), whatever ring it was
# posted on and whichever queue polls it now.
#
# What breaks it: TX queue q not posting on ring q, or a ring nobody
# polls (xps_*, mixed_*), a ring left unpolled after the channels change
# (resize_under_traffic: counters differ), NAPIs not started or stopped
# with the channels (down_up, teardown, dmesg), refused counts changing
# something (refused), an XDP program told the wrong RX queue
# (xdp_queues: one xdp_rxq_info for every queue), a doorbell from a
# sender on CPU 0 polled on CPU 0 again, or sent away with the priv flag
# doorbell-other-cpu off or to an offline CPU (doorbell_other_cpu: 50
# datagrams from CPU 0 to an echo server, each sent once the last came
# back, so each finds the NAPI idle and rings it; the echo server on CPU 0
# too, so that only the doorbells can raise NET_RX on CPU 1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xdp-lib.bash"

ktap_plan 17

# A ref_queues the format cannot have: the module refuses to load, says
# why, and leaves nothing behind.
bad_param() {
	local out
	if out=$(drack_load ref_queues=3 2>&1); then
		echo "loaded with ref_queues=3"
		return 1
	fi
	drack_loaded && { echo "a drack module is loaded after the refusal"; return 1; }
	DRACK_LOADED=0
	dmesg | tail -n 20 | grep -q 'ref_queues=3: must be 1, 2, 4 or 8' ||
		{ echo "no reason in the kernel log: $out"; return 1; }
}
ktap_check bad_param bad_param
drack_setup 2 || ktap_finish

channels() { in_ns "$1" ethtool -l rack0 | awk '/^Combined:/ { v = $2 } END { print v }'; }
set_channels() { in_ns "$1" ethtool -L rack0 combined "$2"; }

# The sysfs queue directories follow the channels.
queue_dirs() {
	local ns=$1 n=$2 t r
	t=$(in_ns "$ns" ls /sys/class/net/rack0/queues | grep -c '^tx-')
	r=$(in_ns "$ns" ls /sys/class/net/rack0/queues | grep -c '^rx-')
	echo "$ns: $t tx, $r rx queues in sysfs (channels $n)"
	((t == n && r == n))
}

defaults() {
	local want=$(($(nproc) < 4 ? $(nproc) : 4)) ns
	for ns in h0 h1; do
		[[ $(channels "$ns") == "$want" ]] || { echo "$ns: combined $(channels "$ns"), want $want"; return 1; }
		queue_dirs "$ns" "$want" || return 1
	done
}
ktap_check defaults defaults

refused() {
	local before bad
	before=$(in_ns h0 ethtool -l rack0)
	for bad in "combined 0" "combined 5" "rx 1" "tx 1" "other 1"; do
		# shellcheck disable=SC2086
		if in_ns h0 ethtool -L rack0 $bad 2>/dev/null; then
			echo "ethtool -L rack0 $bad accepted"
			return 1
		fi
	done
	[[ $(in_ns h0 ethtool -l rack0) == "$before" ]] || { echo "a refused ethtool -L changed the channels"; return 1; }
}
ktap_check refused refused

# xps_only NS Q: CPU 0 sends on TX queue Q and on no other.
# (one shell for all the queues: each program started costs under TCG)
xps_only() {
	local ns=$1 q=$2 i n cmd=
	n=$(channels "$ns")
	for ((i = 0; i < n; i++)); do
		cmd+="echo $((i == q ? 1 : 0)) > /sys/class/net/rack0/queues/tx-$i/xps_cpus && "
	done
	in_ns "$ns" sh -c "${cmd}true"
}

# xps_clear NS: no XPS map on any TX queue of NS (every one tried)
xps_clear() {
	local i n cmd=
	n=$(channels "$1")
	for ((i = 0; i < n; i++)); do
		cmd+="echo 0 > /sys/class/net/rack0/queues/tx-$i/xps_cpus || rc=1; "
	done
	in_ns "$1" sh -c "rc=0; ${cmd}exit \$rc"
}

# send_pinned NS DST COUNT [PORT]: COUNT UDP datagrams from a process on
# CPU 0, to PORT (9)
send_pinned() {
	in_ns "$1" taskset -c 0 python3 - "$2" "$3" "${4:-9}" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[2])):
    s.sendto(b"q" * 600, (sys.argv[1], int(sys.argv[3])))
PY
}

# steer SRC DST DST_IP: for every TX queue q of SRC, 300 datagrams pinned
# to it leave on q (and 30 at most on the others: ND, MLD) and arrive on
# RX queue q % channels of DST.
N=300
steer() {
	local src=$1 dst=$2 ip=$3 ns q i nsrc ndst tx rx
	nsrc=$(channels "$src") ndst=$(channels "$dst")
	for ((q = 0; q < nsrc; q++)); do
		xps_only "$src" "$q" || return 1
		snap s "$src" && snap s "$dst" || { echo "no ethtool -S"; return 1; }
		send_pinned "$src" "$ip" "$N" || return 1
		wait_for 5 eval "(( \$(delta s $dst rx_queue_$((q % ndst))_packets) >= $N ))"
		snap e "$src" && snap e "$dst" || { echo "no ethtool -S"; return 1; }
		for ((i = 0; i < nsrc; i++)); do
			tx=$(snap_delta s e "$src" "tx_queue_${i}_packets") || { echo "$src: no tx_queue_$i"; return 1; }
			if ((i == q && tx < N)) || ((i != q && tx > 30)); then
				echo "$src: XPS on TX queue $q: tx_queue_$i moved $tx"
				return 1
			fi
		done
		for ((i = 0; i < ndst; i++)); do
			rx=$(snap_delta s e "$dst" "rx_queue_${i}_packets") || { echo "$dst: no rx_queue_$i"; return 1; }
			if ((i == q % ndst && rx < N)) || ((i != q % ndst && rx > 30)); then
				echo "$dst ($ndst channels): ring $q from $src: rx_queue_$i moved $rx"
				return 1
			fi
		done
		echo "$src TX queue $q -> $dst RX queue $((q % ndst)): $N datagrams"
	done
	xps_clear "$src"
}

ktap_check xps_4_to_4 eval 'set_channels h0 4 && set_channels h1 4 && steer h0 h1 198.18.0.2'
# Fewer RX queues than the sender's rings: ring q is polled by q % channels.
ktap_check mixed_4_to_1 eval 'set_channels h1 1 && steer h0 h1 198.18.0.2'
ktap_check mixed_4_to_3 eval 'set_channels h1 3 && steer h0 h1 198.18.0.2'
ktap_check mixed_2_to_4 eval 'set_channels h0 2 && set_channels h1 4 && steer h0 h1 198.18.0.2 && steer h1 h0 198.18.0.1'

# An XDP program sees the RX queue each frame came in on: 300 datagrams
# to the test port on ring q of a 4-queue sender must all be counted by
# tests/xdp/xdp_queue under rx_queue_index q % 3 at a 3-queue receiver,
# and none under another index.
xdp_queues_once() {
	local m q i want got before=()
	set_channels h0 4 && set_channels h1 3 || return 1
	xdp_attach h1 rack0 xdp_queue || return 1
	m=$(xdp_map h1 rack0 xdp_queue) || { echo "no xdp_queue map"; return 1; }
	for ((q = 0; q < 4; q++)); do
		xps_only h0 "$q" || return 1
		for ((i = 0; i < 3; i++)); do before[i]=$(map_get "$m" "$i") || return 1; done
		send_pinned h0 198.18.0.2 "$N" 7777 || return 1
		want=$((q % 3))
		wait_for 5 eval "(( \$(map_get $m $want) - ${before[want]} >= $N ))"
		for ((i = 0; i < 3; i++)); do
			got=$(($(map_get "$m" "$i") - before[i]))
			if ((i == want ? got != N : got != 0)); then
				echo "ring $q: the program counted $got under rx_queue_index $i"
				return 1
			fi
		done
		echo "ring $q -> rx_queue_index $want: $N datagrams"
	done
}
# The program and XPS go, pass or fail: the checks after need neither.
xdp_queues() {
	local rc=0
	xdp_queues_once || rc=1
	xps_clear h0
	ip -n h1 link set dev rack0 xdp off || rc=1
	return $rc
}
ktap_check xdp_queues xdp_queues

# Every frame h0 sent h1 was received, and back: per-peer counters agree.
peers_agree_once() {
	local s0 s1 a b c d
	s0=$(stats_raw h0) s1=$(stats_raw h1)
	stat_in "$s0" peer1_tx_packets; a=$STAT
	stat_in "$s1" peer0_rx_packets; b=$STAT
	stat_in "$s1" peer0_tx_packets; c=$STAT
	stat_in "$s0" peer1_rx_packets; d=$STAT
	echo "h0->h1 $a sent, $b received; h1->h0 $c sent, $d received"
	[[ -n $a && $a == "$b" && -n $c && $c == "$d" ]]
}
peers_agree() {
	wait_for 10 peers_agree_once && { peers_agree_once; return 0; }
	peers_agree_once
	drack_dump_stats
	return 1
}

# Four streams each way for 12 s while both hosts change their channels
# every half second: rings change hands under traffic.
resize_under_traffic() {
	local end n=(1 4 2 3 4 1 3 2) i=0 res rc=0
	iperf_server h0 5301 >/dev/null || return 1
	iperf_server h1 5302 >/dev/null || return 1
	bg iperf-up ip netns exec h1 timeout 60 iperf3 -c 198.18.0.1 -p 5301 -J -t 12 -P 4
	local up=$BG_PID
	bg iperf-down ip netns exec h0 timeout 60 iperf3 -c 198.18.0.2 -p 5302 -J -t 12 -P 4
	local down=$BG_PID
	end=$((SECONDS + 11))
	while ((SECONDS < end)); do
		set_channels h0 "${n[i % 8]}" || { echo "h0: ethtool -L ${n[i % 8]} failed"; rc=1; }
		set_channels h1 "${n[(i + 3) % 8]}" || { echo "h1: ethtool -L failed"; rc=1; }
		i=$((i + 1))
		sleep 0.5
	done
	wait "$up" || rc=1
	wait "$down" || rc=1
	echo "$i channel changes on each host"
	for f in iperf-up iperf-down; do
		res=$(iperf_result "$DRACK_LOGDIR/$f.log" 1) || rc=1
		echo "$f: $res"
	done
	((rc == 0)) || return 1
	peers_agree
}
ktap_check resize_under_traffic resize_under_traffic && diag "$(tail -n 4 "$DRACK_LOGDIR/check.out" | tr "\n" ";")"

# Set while down, taken up: the NAPIs of the new count run.
down_up() {
	ip -n h1 link set rack0 down || return 1
	set_channels h1 3 || return 1
	ip -n h1 link set rack0 up || return 1
	queue_dirs h1 3 || return 1
	wait_for 10 has_carrier h1 || return 1
	wait_for 20 ping_once h1 198.18.0.1 || return 1
	steer h0 h1 198.18.0.2
}
ktap_check down_up down_up

# RPS on every RX queue: written, and traffic still flows.
rps() {
	local i n
	n=$(channels h1)
	for ((i = 0; i < n; i++)); do
		in_ns h1 sh -c "echo 1 > /sys/class/net/rack0/queues/rx-$i/rps_cpus" || return 1
	done
	iperf_run h0 198.18.0.2 5302 "$DRACK_LOGDIR/rps.json" -t 3 -P 2 || return 1
	iperf_result "$DRACK_LOGDIR/rps.json" 1 || return 1
	for ((i = 0; i < n; i++)); do
		in_ns h1 sh -c "echo 0 > /sys/class/net/rack0/queues/rx-$i/rps_cpus"
	done
	peers_agree
}
ktap_check rps rps

# net_rx_on CPU: NET_RX softirqs run so far on CPU
net_rx_on() { awk -v c=$(($1 + 2)) '$1 == "NET_RX:" { print $c }' /proc/softirqs; }

# rounds_from_cpu0 ON|OFF N: with h1's flag doorbell-other-cpu ON, h0 on
# CPU 0 sends N datagrams to an echo server in h1, each after the last
# came back, so each finds h1's NAPI done with the last and rings it;
# prints h1's rx_kicks_other_cpu and CPU 1's NET_RX runs meanwhile
rounds_from_cpu0() {
	local rx1
	priv_flag h1 doorbell-other-cpu "$1" || return 1
	snap k h1 || return 1
	rx1=$(net_rx_on 1)
	in_ns h0 taskset -c 0 python3 - 198.18.0.2 "$2" <<'PY' || return 1
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
for _ in range(int(sys.argv[2])):
    s.sendto(b"k" * 200, (sys.argv[1], 7007))
    s.recvfrom(2048)
    time.sleep(0.01)
PY
	echo "$(delta k h1 rx_kicks_other_cpu) $(($(net_rx_on 1) - rx1))"
}

# Off (the default): every doorbell is polled where it was rung. On: CPU 0
# sends the doorbells to CPU 1, whose NET_RX polls. One RX queue at h1, so
# its home is CPU 0, the sender's, and the next CPU, 1, polls it.
doorbell_rounds() {
	local kicks rx1 out
	in_ns h1 ethtool --show-priv-flags rack0 | grep -q '^doorbell-other-cpu *: off$' ||
		{ echo "doorbell-other-cpu is not off by default"; return 1; }
	set_channels h1 1 || return 1
	bg echo ip netns exec h1 taskset -c 0 python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7007))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)'
	out=$(rounds_from_cpu0 on 50) || { echo "on: $out"; return 1; }
	read -r kicks rx1 <<<"$out"
	echo "on: rx_kicks_other_cpu +$kicks, CPU 1 NET_RX +$rx1"
	((kicks >= 40 && rx1 >= kicks * 3 / 4)) || return 1
	out=$(rounds_from_cpu0 off 50) || { echo "off: $out"; return 1; }
	read -r kicks rx1 <<<"$out"
	echo "off: rx_kicks_other_cpu +$kicks"
	((kicks == 0)) || return 1
	[[ -w /sys/devices/system/cpu/cpu1/online ]] || return 0
	# CPU 1 offline: the doorbells stay on CPU 0; back online, they go again.
	echo 0 >/sys/devices/system/cpu/cpu1/online || return 1
	out=$(rounds_from_cpu0 on 20)
	echo 1 >/sys/devices/system/cpu/cpu1/online || return 1
	read -r kicks rx1 <<<"$out"
	echo "CPU 1 offline: rx_kicks_other_cpu +${kicks:-?}"
	((${kicks:-1} == 0)) || return 1
	out=$(rounds_from_cpu0 on 20) || { echo "online again: $out"; return 1; }
	read -r kicks rx1 <<<"$out"
	echo "CPU 1 online again: rx_kicks_other_cpu +$kicks"
	((kicks >= 15))
}
# The flag, the count and the echo server restored, whatever happened.
doorbell_other_cpu() {
	local n rc=0
	n=$(channels h1)
	doorbell_rounds || rc=1
	drack_kill_bg
	priv_flag h1 doorbell-other-cpu off || rc=1
	set_channels h1 "$n" || rc=1
	return $rc
}
if (($(nproc) < 2)); then
	ktap_skip doorbell_other_cpu "one CPU"
else
	ktap_check doorbell_other_cpu doorbell_other_cpu &&
		diag "$(tail -n 4 "$DRACK_LOGDIR/check.out" | tr "\n" ";")"
fi
ktap_check doorbell_still_flows eval 'ping_once h0 198.18.0.2 && peers_agree'

drack_finish
