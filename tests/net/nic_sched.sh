#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# nic_sched: drack-fmd's NIC scheduling (nic-schedule in its
# configuration, changed at run time by SIGHUP) in nic-lab.bash's lab:
# h0 owns NIC 0, h1 NIC 1, each host has rack0v0 and rack0v1.
#
#   static       every vNIC through its own NIC
#   round-robin  h1's vNICs swap NICs (h0's stay): vNIC k of host h on
#                NIC (k + h) mod 2, an iperf3 over the moved vNIC intact
#   queue-depth  h1 floods its own eth1 through a slow tbf: NIC 1's queue
#                (the qdisc backlog, published by its owner) grows; a
#                ping through h0's rack0v1 waits behind it. Switched to
#                queue-depth, the FM moves both hosts' rack0v1 to NIC 0,
#                one per nic-hold-ms, and the ping is fast again (under
#                100 ms, less than half of before). static: all home.
#
#   mptcp backup with NIC 1 deep the same way, "drackctl nic mptcp backup"
#                in h0 flags rack0v1's MPTCP endpoint backup (MP_PRIO on
#                an established connection's subflow) and clears the flag
#                once the queue is short again
#   demand       h0 and h1 both send through rack0v0 (NIC 0): the FM
#                measures what each vNIC sends (published in the pool,
#                shown by nic show -j as demand) and puts one on NIC 1
#   matching     the same case: NIC 0 and NIC 1 each granted to one sender
#   owner busy   h1 sends its own traffic through NIC 1 (eth1, not the
#                pool; its NIC publishes wire_tx_bytes) while h0 sends
#                UDP through rack0v1, more than NIC 1's tbf passes:
#                demand and matching move h0's rack0v1 to NIC 0
#
# A bad nic-schedule value in a reload is refused and changes nothing.
# Every decision is in the FM's log, in "drackctl -j nic show" (vnic_steer)
# of the host and an event in "drackctl monitor nic".
#
# What breaks it: steering ignored by the hosts (via_nic unchanged), the
# qdisc backlog not in the published queue depth (no move), steers not
# cleared when the policy goes back to static, the owner's own traffic
# not published or not counted by the FM (owner busy: no move). The
# policies' rules on their own: tests/unit/sched.c.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/nic-lab.bash"
ktap_plan 22
CONF=$DRACK_LOGDIR/fmd.conf
mkdir -p "$DRACK_LOGDIR"
conf() {
	printf 'poll-interval-ms = 200\nnic-hold-ms = 1000\nqueue-depth-high = 16\nnic-load-interval = 1\nnic-schedule = %s\n' "$1" >"$CONF"
}
conf static
# shellcheck disable=SC2034 # read by drack_start_fmd (lib.sh)
DRACK_FMD_ARGS="-c $CONF"
drack_setup 2 || ktap_finish

ktap_check lab nic_lab_up

via() { drack_stat "$1" via_nic "$2"; }
# vias: "h0v0 h0v1 h1v0 h1v1" NIC ids
vias() { echo "$(via h0 rack0v0) $(via h0 rack0v1) $(via h1 rack0v0) $(via h1 rack0v1)"; }
# steer NS NIC: the host's vnic_steer of NIC in nic show -j, or "-"
steer() {
	in_ns "$1" "$DRACKCTL" -j nic show pool 0 | jq -r --argjson n "$2" '.[] | select(.nic == $n) | .vnic_steer // "-"'
}

# reload POLICY: rewrite the configuration, SIGHUP, wait for the FM to say so
reload() {
	local n
	n=$(grep -c 'configuration reloaded' /tmp/fmd.log)
	conf "$1"
	kill -HUP "$DRACK_FMD_PID" || return 1
	wait_for 10 eval "(( \$(grep -c 'configuration reloaded' /tmp/fmd.log) > n ))" ||
		{ echo "no reload logged"; tail -n 5 /tmp/fmd.log; return 1; }
	grep 'configuration reloaded' /tmp/fmd.log | tail -n 1 | grep -q "nic-schedule $1"
}

static_home() {
	wait_for 10 eval '[[ $(vias) == "0 1 0 1" ]]' || { echo "vias $(vias), want 0 1 0 1"; return 1; }
	echo "vias (h0v0 h0v1 h1v0 h1v1): $(vias); steer of h1 NIC 0: $(steer h1 0)"
	[[ $(steer h1 0) == - && $(steer h1 1) == - ]]
}
ktap_check static_every_vnic_home static_home && diag "$(cat "$DRACK_LOGDIR/check.out")"

iperf_server x0 5201 >/dev/null

round_robin() {
	local pid res mon
	bg monitor "$DRACKCTL" -j monitor nic
	mon=$BG_PID
	# h1's iperf3 through rack0v0 ($X.20) goes on while rack0v0 moves
	iperf_run h1 "$X.100" 5201 "$DRACK_LOGDIR/rr.json" -t 5 -i 0.5 -B "$X.20" &
	pid=$!
	sleep 1.5
	reload round-robin || { wait "$pid"; return 1; }
	wait_for 10 eval '[[ $(vias) == "0 1 1 0" ]]' || { echo "vias $(vias), want 0 1 1 0"; wait "$pid"; return 1; }
	echo "vias (h0v0 h0v1 h1v0 h1v1): $(vias); h1 nic show: NIC 0 steer $(steer h1 0), NIC 1 steer $(steer h1 1)"
	[[ $(steer h1 0) == 1 && $(steer h1 1) == 0 && $(steer h0 0) == - ]] || { wait "$pid"; return 1; }
	wait "$pid"
	res=$(iperf_result "$DRACK_LOGDIR/rr.json" 1) || { echo "iperf3 across the move: $res"; return 1; }
	echo "iperf3 of h1 through rack0v0 across its move to NIC 1: $res"
	grep 'nic-schedule round-robin' /tmp/fmd.log | tail -n 2
	# The decisions as events: drackctl monitor nic
	kill_pid "$mon"
	grep nic_steer "$DRACK_LOGDIR/monitor.log"
	grep -q '"event":"nic_steer","pool":0,"nic":0,"host":1,"steer":1' "$DRACK_LOGDIR/monitor.log" &&
		grep -q '"event":"nic_steer","pool":0,"nic":1,"host":1,"steer":0' "$DRACK_LOGDIR/monitor.log"
}
ktap_check round_robin_moves_h1 round_robin && diag "$(cat "$DRACK_LOGDIR/check.out")"

bad_reload() {
	local n out
	n=$(grep -c 'configuration not reloaded' /tmp/fmd.log)
	printf 'nic-schedule = fastest\n' >"$CONF"
	kill -HUP "$DRACK_FMD_PID" || return 1
	wait_for 10 eval "(( \$(grep -c 'configuration not reloaded' /tmp/fmd.log) > n ))" ||
		{ echo "bad configuration not refused"; return 1; }
	grep 'configuration not reloaded' /tmp/fmd.log | tail -n 1
	sleep 1
	out=$(vias)
	[[ $out == "0 1 1 0" ]] || { echo "vias $out after a refused reload"; return 1; }
	kill -0 "$DRACK_FMD_PID"
}
ktap_check bad_schedule_refused bad_reload && diag "$(cat "$DRACK_LOGDIR/check.out")"

ktap_check static_again eval 'reload static && static_home'

# steer_poke NIC HOST VALUE: write VALUE into the pool's steer of (NIC,
# HOST) behind the fabric manager's back, as a hostile host could.
steer_poke() {
	python3 - "$DRACK_POOL_DEV" "$@" <<'PY'
import mmap, os, struct, sys
dev, nic, host, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fd = os.open(dev, os.O_RDWR)
sb = mmap.mmap(fd, 4096)[:144]
pool_size, = struct.unpack_from("<Q", sb, 16)
m = mmap.mmap(fd, pool_size)
nic_area_off, nic_area_size = struct.unpack_from("<QQ", sb, 112)
E, = struct.unpack_from("<I", sb, 128)
rb = lambda e, es: (128 + e * es + 63) & ~63
blk = nic_area_off + nic * nic_area_size + host * (64 + rb(E, 32) + rb(E, 8) + rb(E, 32))
struct.pack_into("<H", m, blk + 22, val)	# drack_vq_ctl.steer
PY
}

# A host rewrites h0's steer of vNIC 1 to NIC 0: h0 follows it, and the
# fabric manager, rewriting its choices every 10 s, puts it back. The
# fabric manager is stopped while h0 follows: a rewrite landing just
# after the poke would otherwise put it back before h0 looked (seen
# once in CI).
hostile_steer() {
	local rc=0 v
	kill -STOP "$DRACK_FMD_PID" || return 1
	steer_poke 1 0 1 && wait_for 5 eval '[[ $(via h0 rack0v1) == 0 ]]' || rc=1
	v=$(vias)
	kill -CONT "$DRACK_FMD_PID" || return 1
	((rc == 0)) || { echo "h0 rack0v1 did not follow the poked steer: $v"; return 1; }
	echo "poked: vias (h0v0 h0v1 h1v0 h1v1) $v"
	wait_for 15 eval '[[ $(vias) == "0 1 0 1" ]]' || { echo "not repaired: $(vias)"; return 1; }
	echo "repaired by the fabric manager: $(vias)"
	# A garbage value (beyond the NIC table) counts as no steering.
	steer_poke 1 0 999 || return 1
	sleep 1
	[[ $(vias) == "0 1 0 1" ]] || { echo "steer 999 moved a vNIC: $(vias)"; return 1; }
	wait_for 15 eval '[[ $(steer h0 1) == - ]]'
}
ktap_check hostile_steer_repaired hostile_steer && diag "$(cat "$DRACK_LOGDIR/check.out")"

# queue depth of NIC as nic show says
qdepth() {
	in_ns h0 "$DRACKCTL" -j nic show pool 0 | jq -e --argjson n "$1" '.[] | select(.nic == $n) | .queue_depth'
}
rtt_v1() { in_ns h0 ping -c 3 -i 0.2 -W 5 -q -I "$X.11" "$X.100" | awk -F/ '/^rtt/ { print $5 }'; }

# own_traffic SECS RATE LIMIT FRAMES: h1 sends traffic of its own through
# NIC 1 (raw frames to x0 on eth1, not the pool), FRAMES full-size frames
# every 0.1 s for SECS, eth1 under a tbf of RATE holding LIMIT bytes. The
# sender's pid in OWN; own_traffic_stop ends it and removes the tbf.
own_traffic() {
	local x0mac
	x0mac=$(ip -n x0 -j link show br0 | jq -er '.[0].address')
	in_ns h1 tc qdisc replace dev eth1 root tbf rate "$2" burst 16k limit "$3" || return 1
	bg own ip netns exec h1 timeout "$1" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth1", 0))
f = bytes.fromhex(sys.argv[1].replace(":", "")) + bytes(6) + b"\x88\xb5" + bytes(1386)
while True:
    for _ in range(int(sys.argv[2])):
        try:
            s.send(f)
        except OSError:
            pass
    time.sleep(0.1)' "$x0mac" "$4"
	OWN=$BG_PID
}
own_traffic_stop() {
	kill_pid "$OWN"
	OWN=
	in_ns h1 tc qdisc del dev eth1 root
}

queue_depth() {
	local before after
	# NIC 1 busy with its owner's own traffic: 2 Mbit/s, room for a backlog
	own_traffic 60 2mbit 8000000 200 || return 1
	wait_for 10 eval '(( $(qdepth 1) >= 16 ))' || { echo "NIC 1 queue $(qdepth 1), not deep"; return 1; }
	before=$(rtt_v1)
	echo "static: NIC 1 queue $(qdepth 1), NIC 0 queue $(qdepth 0); ping through h0 rack0v1 avg ${before:-lost} ms"
	[[ $(vias) == "0 1 0 1" ]] || { echo "vias $(vias) under static"; return 1; }
	reload queue-depth || return 1
	wait_for 20 eval '[[ $(vias) == "0 0 0 0" ]]' || { echo "vias $(vias), want 0 0 0 0"; grep nic-schedule /tmp/fmd.log | tail -n 3; return 1; }
	after=$(rtt_v1)
	echo "vias (h0v0 h0v1 h1v0 h1v1): $(vias); ping through h0 rack0v1 avg ${after:-lost} ms; h0 NIC 1 steer $(steer h0 1)"
	grep 'nic-schedule queue-depth' /tmp/fmd.log | tail -n 2
	[[ $(steer h0 1) == 0 ]] &&
		awk -v a="$after" -v b="$before" 'BEGIN { exit !(a != "" && a < 100 && (b == "" || b > 2 * a)) }'
}
# mib NS NAME: the MPTcpExt counter NAME of NS
mib() {
	in_ns "$1" cat /proc/net/netstat | awk -v n="$2" '
		$1 == "MPTcpExt:" && !k { for (i = 2; i <= NF; i++) key[i] = $i; k = 1; next }
		$1 == "MPTcpExt:" { for (i = 2; i <= NF; i++) if (key[i] == n) print $i }'
}
# ep_backup NS ADDR: "backup" if the MPTCP endpoint ADDR has the flag
# (ip -j prints each flag as a key of its own), "-" if there is no such
# endpoint, else ""
ep_backup() {
	in_ns "$1" ip -j mptcp endpoint show | python3 -c '
import json, sys
e = [e for e in json.load(sys.stdin) if e.get("address") == sys.argv[1]]
print("-" if not e else "backup" if e[0].get("backup") else "")' "$2"
}

# An MPTCP connection from h0 over both vNICs; NIC 1 busy with its owner's
# traffic: "nic mptcp backup" flags rack0v1's endpoint (MP_PRIO on the
# established subflow), and clears it once NIC 1's queue is short again.
mptcp_backup() {
	local join0 prio0 prio1 out rc=0
	MP_PIDS=()
	in_ns h0 "$DRACKCTL" nic mptcp on || return 1
	join0=$(mib h0 MPJoinSynAckRx)
	bg mpsrv ip netns exec x0 timeout 60 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5300)); s.listen(1)
c, _ = s.accept()
while c.recv(65536):
    pass'
	MP_PIDS+=("$BG_PID")
	wait_for 10 eval "in_ns x0 ss -Hltn 'sport = :5300' | grep -q LISTEN" || { echo "no MPTCP listener"; return 1; }
	bg mpcli ip netns exec h0 timeout 60 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
s.connect((sys.argv[1], 5300))
while True:
    s.send(bytes(1000)); time.sleep(0.05)' "$X.100"
	MP_PIDS+=("$BG_PID")
	# the PM adds the second subflow (from the other vNIC's endpoint)
	wait_for 10 eval '(( $(mib h0 MPJoinSynAckRx) > join0 ))' ||
		{ echo "no second subflow (MPJoinSynAckRx $(mib h0 MPJoinSynAckRx), was $join0)"; return 1; }
	own_traffic 30 2mbit 8000000 200 || return 1
	wait_for 10 eval '(( $(qdepth 1) >= 16 ))' || { echo "NIC 1 queue $(qdepth 1), not deep"; return 1; }
	prio0=$(mib h0 MPPrioTx)
	out=$(in_ns h0 "$DRACKCTL" nic mptcp backup high 8) || rc=1
	echo "NIC 1 queue $(qdepth 1), NIC 0 queue $(qdepth 0): $out"
	[[ $(ep_backup h0 "$X.11") == backup && $(ep_backup h0 "$X.10") == "" ]] ||
		{ echo "endpoints: $X.10 [$(ep_backup h0 "$X.10")] $X.11 [$(ep_backup h0 "$X.11")]"; rc=1; }
	prio1=$(mib h0 MPPrioTx)
	echo "MP_PRIO sent on the established connection: $((prio1 - prio0))"
	((prio1 > prio0)) || rc=1
	own_traffic_stop
	wait_for 10 eval '(( $(qdepth 1) < 4 ))' || { echo "NIC 1 queue $(qdepth 1) after the flood"; rc=1; }
	out=$(in_ns h0 "$DRACKCTL" -j nic mptcp backup) || rc=1
	echo "after: $out"
	[[ $(ep_backup h0 "$X.11") == "" ]] || { echo "rack0v1's endpoint: [$(ep_backup h0 "$X.11")], want no backup"; rc=1; }
	return $rc
}
# whatever mptcp_backup left: its programs, the endpoints, the tbf
mptcp_backup_end() {
	local p
	for p in "${MP_PIDS[@]}"; do kill_pid "$p"; done
	[[ -n ${OWN:-} ]] && own_traffic_stop 2>/dev/null
	in_ns h0 "$DRACKCTL" nic mptcp off
}
ktap_check mptcp_backup_off_deep_nic mptcp_backup && diag "$(cat "$DRACK_LOGDIR/check.out")"
mptcp_backup_end >/dev/null 2>&1

ktap_check queue_depth_moves_off_busy_nic queue_depth && diag "$(cat "$DRACK_LOGDIR/check.out")"

home_again() {
	own_traffic_stop
	reload static && static_home
}
ktap_check static_after_queue_depth home_again

# demand NS NIC HOST: tx_bytes of HOST's vNIC of NIC in nic show -j (root)
demand() {
	in_ns "$1" "$DRACKCTL" -j nic show pool 0 | jq --argjson n "$2" --argjson h "$3" \
		'.[] | select(.nic == $n) | [(.demand // [])[] | select(.host == $h) | .tx_bytes] | add // 0'
}

# All vNICs' published demand, in bytes (the FM's view of what they sent)
demand_all() {
	in_ns h0 "$DRACKCTL" -j nic show pool 0 | jq '[.[] | (.demand // [])[] | .tx_bytes] | add // 0'
}

# reload_quiet POLICY: reload once the previous check's traffic is out of
# the FM's view. Its demand rates are smoothed, halved every 200 ms pass
# without traffic: 4 s in which all vNICs together published under 24 KB
# take even a 2 Gbit/s rate below the 100 kbit/s that counts as sending.
# Otherwise a demand policy loaded just after a stream places that
# stream's vNIC at once, and idle vNICs stay where they were put.
demand_still() {
	local a b
	a=$(demand_all) && sleep 4 && b=$(demand_all) || return 1
	((b - a < 24000))
}
reload_quiet() {
	wait_for 30 demand_still || { echo "vNICs still sending: demand $(demand_all)"; return 1; }
	reload "$1"
}

iperf_server x0 5202 >/dev/null

# two_senders POLICY: h0 and h1 both send through their rack0v0, both on
# NIC 0 under static; the policy must give them a NIC each while they do.
two_senders() {
	local p0 p1 rc=0 d0
	reload_quiet "$1" || return 1
	wait_for 10 eval '[[ $(vias) == "0 1 0 1" ]]' || { echo "vias $(vias) to begin with"; return 1; }
	d0=$(demand h0 0 0)
	# 15 s: the debug kernel's FM took over 9 s to see both demands
	iperf_run h0 "$X.100" 5201 "$DRACK_LOGDIR/$1-0.json" -t 15 -B "$X.10" &
	p0=$!
	iperf_run h1 "$X.100" 5202 "$DRACK_LOGDIR/$1-1.json" -t 15 -B "$X.20" &
	p1=$!
	wait_for 14 eval '[[ $(via h0 rack0v0) != $(via h1 rack0v0) ]]' || rc=1
	echo "$1: vias (h0v0 h0v1 h1v0 h1v1) $(vias); demand of h0's vNIC 0: +$(($(demand h0 0 0) - d0)) bytes"
	wait "$p0" "$p1"
	echo "h0: $(iperf_result "$DRACK_LOGDIR/$1-0.json" 0); h1: $(iperf_result "$DRACK_LOGDIR/$1-1.json" 0)"
	grep "nic-schedule $1" /tmp/fmd.log | tail -n 2
	(($(demand h0 0 0) - d0 > 1000000)) || { echo "no demand published"; return 1; }
	return $rc
}
ktap_check demand_spreads_two_senders two_senders demand && diag "$(cat "$DRACK_LOGDIR/check.out")"
ktap_check static_after_demand eval 'reload static && static_home'
ktap_check matching_spreads_two_senders two_senders matching && diag "$(cat "$DRACK_LOGDIR/check.out")"
ktap_check static_after_matching eval 'reload static && static_home'

# nicbytes NIC: "wire_tx_bytes tx_bytes" of NIC in nic show -j
nicbytes() {
	in_ns h0 "$DRACKCTL" -j nic show pool 0 |
		jq -er --argjson n "$1" '.[] | select(.nic == $n) | "\(.wire_tx_bytes) \(.tx_bytes)"'
}

# owner_busy POLICY: h1 sends 2.2 Mbit/s of its own through NIC 1 (eth1,
# 4 Mbit/s tbf, not through the pool) while h0 sends 3 Mbit/s of UDP
# through its rack0v1 (NIC 1): more than the tbf passes, so its queue is
# full (the FM counts a 10 Gbit/s veth's owner traffic only on a deep
# queue) and h0's demand does not depend on what gets through. The
# policy must see the owner's traffic and move h0's rack0v1 to NIC 0.
owner_busy() {
	local p rc=0 w0 t0 w1 t1
	reload_quiet "$1" || return 1
	wait_for 10 eval '[[ $(vias) == "0 1 0 1" ]]' || { echo "vias $(vias) to begin with"; return 1; }
	read -r w0 t0 <<<"$(nicbytes 1)"	# no /dev/fd in the guest: no <(...)
	own_traffic 15 4mbit 60000 20 || return 1
	iperf_run h0 "$X.100" 5201 "$DRACK_LOGDIR/$1-busy.json" -t 10 -u -b 3M -B "$X.11" &
	p=$!
	wait_for 9 eval '[[ $(via h0 rack0v1) == 0 ]]' || rc=1
	echo "$1: vias (h0v0 h0v1 h1v0 h1v1) $(vias)"
	wait "$p"
	own_traffic_stop
	read -r w1 t1 <<<"$(nicbytes 1)"
	[[ "$w0 $t0 $w1 $t1" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] ||
		{ echo "nic show: NIC 1's byte counters [$w0 $t0] [$w1 $t1]"; return 1; }
	echo "h0 through rack0v1: $(iperf_result "$DRACK_LOGDIR/$1-busy.json" 0); NIC 1 sent $((w1 - w0)) bytes, $((t1 - t0)) of them from vNICs"
	grep "nic-schedule $1" /tmp/fmd.log | tail -n 2
	(((w1 - w0) - (t1 - t0) > 1000000)) || { echo "the owner's own traffic is not in wire_tx_bytes"; return 1; }
	return $rc
}
ktap_check demand_leaves_busy_owner owner_busy demand && diag "$(cat "$DRACK_LOGDIR/check.out")"
ktap_check static_after_demand_busy eval 'reload static && static_home'
ktap_check matching_leaves_busy_owner owner_busy matching && diag "$(cat "$DRACK_LOGDIR/check.out")"
ktap_check static_after_matching_busy eval 'reload static && static_home'

ktap_check unexport nic_lab_down

drack_finish
