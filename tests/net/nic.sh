#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# nic: the NIC pool on one pool in one kernel.
#
#   h0 rack0 ---- pool ---- h1 rack0
#   h0 eth1 (NIC 0)        h1 eth1 (NIC 1)
#        \                   /
#         x0: bridge br0, 10.9.0.100/24 (the world outside the rack)
#
# h0 and h1 export their eth1; drack-fmd assigns both NICs to both hosts,
# so each host gets rack0v0 and rack0v1 and reaches x0 through either NIC,
# whoever owns it. Then: iperf3 through the neighbour's NIC, MPTCP over
# both vNICs uses both NICs, a NIC whose link goes down has its vNICs
# moved to the other NIC while an iperf3 keeps running (and back), garbage
# in a TX virt_queue is dropped and counted, the identity rules hold (the
# FM's MAC on every vNIC, no other MAC taken; spoofed, link-local and
# oversize frames dropped and counted per vNIC; multicast only for joined
# groups; IPv6 ND), unexport deletes the vNICs and every Buffer comes home.
#
# What breaks it: vNICs never created (assignment not followed), frames of
# a vNIC not accepted by the owner (MAC map), RX Buffers not posted or
# completions mismatched (no ping), no failover (iperf3 dies), TX entries
# trusted (a crash or a bogus frame on the wire), a host's MAC choice or
# frames served, multicast to every vNIC, Buffers lent to an owner never
# taken back.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/nic-lab.bash"
ktap_plan 24
drack_setup 2 || ktap_finish

ktap_check lab nic_lab

export_nics() {
	local i out
	for i in 0 1; do
		out=$(in_ns "h$i" "$DRACKCTL" nic export dev eth1 2>&1) ||
			{ echo "h$i: drackctl nic export dev eth1: $out"; return 1; }
		echo "h$i: $out"
	done
	# Exporting twice is refused with a reason.
	if out=$(in_ns h0 "$DRACKCTL" nic export dev eth1 2>&1); then
		echo "second export succeeded: $out"; return 1
	fi
	echo "second export: $out"
	grep -q "exported already" <<<"$out"
}
ktap_check export export_nics

vnics() {
	nic_wait_vnics || return 1
	vnic_addr h0 rack0v0 "$X.10" 100 && vnic_addr h0 rack0v1 "$X.11" 101 &&
		vnic_addr h1 rack0v0 "$X.20" 100 && vnic_addr h1 rack0v1 "$X.21" 101
}
ktap_check vnics_assigned vnics

# nic_bytes NIC: wire bytes the NIC's owner published (tx + rx)
nic_bytes() {
	in_ns h0 "$DRACKCTL" -j nic show pool 0 |
		jq -e --argjson n "$1" '.[] | select(.nic == $n) | .tx_bytes + .rx_bytes'
}

ping_all() {
	local i v bad=0
	for i in 0 1; do
		for v in 0 1; do
			wait_for 10 ping_once "h$i" "$X.100" -I "$X.$((10 * (i + 1) + v))" >/dev/null ||
				{ echo "h$i via rack0v$v: no answer"; bad=1; continue; }
			ping_ok "h$i" "$X.100" -I "$X.$((10 * (i + 1) + v))" || bad=1
		done
	done
	return $bad
}
ktap_check ping_every_host_every_nic ping_all

iperf_server x0 5201 >/dev/null
iperf_server x0 5202 >/dev/null

# h0 sends through h1's NIC only: NIC 1 carries it, NIC 0 does not.
neighbour() {
	local b0 b1 d0 d1 res
	sleep 0.3	# the published counters move with the heartbeat
	b0=$(nic_bytes 0) b1=$(nic_bytes 1)
	iperf_run h0 "$X.100" 5201 "$DRACK_LOGDIR/neigh.json" -t 3 -B "$X.11" || true
	res=$(iperf_result "$DRACK_LOGDIR/neigh.json" 1) || { echo "$res"; return 1; }
	sleep 0.3
	d0=$(($(nic_bytes 0) - b0)) d1=$(($(nic_bytes 1) - b1))
	echo "iperf3 h0 via NIC 1: $res; NIC 0 moved $d0 bytes, NIC 1 $d1"
	((d1 > 1000000 && d0 < d1 / 20))
}
ktap_check iperf3_through_neighbour_nic neighbour

mptcp() {
	local b0 b1 d0 d1 res out
	command -v mptcpize >/dev/null || { echo "no mptcpize"; return 1; }
	in_ns h0 sysctl -qw net.mptcp.enabled=1 && in_ns x0 sysctl -qw net.mptcp.enabled=1
	out=$(in_ns h0 "$DRACKCTL" nic mptcp on 2>&1) || { echo "nic mptcp on: $out"; return 1; }
	in_ns h0 ip mptcp endpoint show
	bg mptcp-server ip netns exec x0 timeout 120 mptcpize run iperf3 -s -p 5203
	wait_for 10 eval "in_ns x0 ss -Hltn 'sport = :5203' | grep -q LISTEN" || return 1
	sleep 0.3
	# Forced, not hoped for: NIC 0 is capped at 20 Mbit/s, so MPTCP's
	# scheduler must send through NIC 1 too (uncapped, it may keep to one).
	in_ns h0 tc qdisc replace dev eth1 root tbf rate 20mbit burst 32k latency 50ms || return 1
	b0=$(nic_bytes 0) b1=$(nic_bytes 1)
	in_ns h0 timeout 60 mptcpize run iperf3 -c "$X.100" -p 5203 -J -t 4 -B "$X.10" \
		>"$DRACK_LOGDIR/mptcp.json" 2>"$DRACK_LOGDIR/mptcp.json.err" || true
	in_ns h0 tc qdisc del dev eth1 root
	res=$(iperf_result "$DRACK_LOGDIR/mptcp.json" 1) || { echo "$res"; return 1; }
	sleep 0.3
	d0=$(($(nic_bytes 0) - b0)) d1=$(($(nic_bytes 1) - b1))
	echo "MPTCP iperf3 from h0: $res; NIC 0 moved $d0 bytes, NIC 1 $d1"
	in_ns h0 "$DRACKCTL" nic mptcp off >/dev/null
	((d0 > 500000 && d1 > 500000))
}
ktap_check mptcp_uses_every_nic mptcp

# h0's iperf3 through h1's NIC while that NIC's link goes down for 2 s.
failover() {
	local pid rc res via
	iperf_run h0 "$X.100" 5202 "$DRACK_LOGDIR/failover.json" -t 6 -i 0.5 -B "$X.11" &
	pid=$!
	sleep 1.5
	ip -n h1 link set eth1 down
	wait_for 5 eval "[[ \$(drack_stat h0 via_nic rack0v1) == 0 ]]" ||
		{ echo "rack0v1 of h0 did not move to NIC 0"; in_ns h0 ethtool -S rack0v1; }
	via=$(drack_stat h0 via_nic rack0v1)
	sleep 2
	ip -n h1 link set eth1 up
	rc=0; wait "$pid" || rc=$?
	res=$(iperf_result "$DRACK_LOGDIR/failover.json" 1) || { echo "rc $rc: $res"; return 1; }
	echo "iperf3 across the failover: $res (via NIC $via while down)"
	python3 - "$DRACK_LOGDIR/failover.json" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
iv = [i["sum"]["bits_per_second"] / 1e6 for i in d["intervals"]]
print("intervals (Mbit/s):", " ".join("%.0f" % v for v in iv))
# Traffic in the second half, while NIC 1 was down and after.
sys.exit(0 if sum(1 for v in iv[4:] if v > 0) >= len(iv[4:]) - 2 else 1)
EOF
	[[ $via == 0 ]] || return 1
	wait_for 5 eval "[[ \$(drack_stat h0 via_nic rack0v1) == 1 ]]" ||
		{ echo "rack0v1 did not move back to NIC 1"; return 1; }
	echo "failovers of h0 rack0v1: $(drack_stat h0 failovers rack0v1)"
}
ktap_check failover_keeps_iperf3 failover

ktap_check ping_after_failover ping_all

# h1's rack0 moves to another netns and back: its vNICs follow it each
# time and still reach x0; the NIC pool stays on (it used to be torn down
# by the move's unregister event).
vnics_in() {	# NS OTHER: both vNICs in NS (created down), none left in OTHER
	ip -n "$1" link show rack0v0 >/dev/null 2>&1 && ip -n "$1" link show rack0v1 >/dev/null 2>&1 &&
		! ip -n "$2" link show rack0v0 >/dev/null 2>&1 && ! ip -n "$2" link show rack0v1 >/dev/null 2>&1
}
vnic_readdr() {	# as vnic_addr; the rule may be left from before the move
	ip -n "$1" addr add "$3/24" dev "$2" && ip -n "$1" link set "$2" up &&
		ip -n "$1" route replace "$X.0/24" dev "$2" src "$3" table "$4" || return 1
	ip -n "$1" rule show from "$3" | grep -q "lookup $4" || ip -n "$1" rule add from "$3" table "$4"
}
netns_move() {
	local ns from
	drack_netns_add h1m || return 1
	for ns in h1m h1; do
		from=$([[ $ns == h1m ]] && echo h1 || echo h1m)
		ip -n "$from" link set rack0 netns "$ns" || return 1
		ip -n "$ns" addr add "$(ip4 1)/24" dev rack0 && ip -n "$ns" link set rack0 up || return 1
		wait_for 10 vnics_in "$ns" "$from" || { echo "$ns: vNICs did not follow rack0"; ip -n "$ns" -br link; return 1; }
		vnic_readdr "$ns" rack0v0 "$X.20" 100 && vnic_readdr "$ns" rack0v1 "$X.21" 101 || return 1
		wait_for 10 ping_once "$ns" "$X.100" -I "$X.21" >/dev/null ||
			{ echo "$ns: no answer via rack0v1"; return 1; }
		echo "$ns: rack0v0 and rack0v1 up, x0 answers"
	done
	ip -n h1 addr add "$(ip6 1)/64" dev rack0 nodad
}
ktap_check netns_move netns_move && diag "$(cat "$DRACK_LOGDIR/check.out")"

# vq_ring WHICH NIC HOST OP ARGS: the TX ring (what a rogue host could post
# to the owner) or the RX done ring (what a rogue owner could complete) of
# (NIC, HOST), straight in the pool's memory. OP:
#   inject N       write N garbage entries and publish them; the last
#                  word printed is the index of the first
#   fate START N   of the N entries from START: "read" (the consumer's
#                  index passed them), "back" (the producer's index went
#                  back before them: their writer took them back), "wait"
#   rewind         move the producer index back to the consumer's and
#                  clear the TX-wait flag: what a hostile host could do
#                  to a queue that waits for the owner
vq_ring() {
	python3 - "$DRACK_POOL_DEV" "$@" <<'EOF'
import mmap, os, struct, sys
dev, which, nic, host, op = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
args = [int(a) for a in sys.argv[6:]]
fd = os.open(dev, os.O_RDWR)
sb = mmap.mmap(fd, 4096)[:144]
version, = struct.unpack_from("<I", sb, 8)
pool_size, = struct.unpack_from("<Q", sb, 16)
m = mmap.mmap(fd, pool_size)
max_nics, = struct.unpack_from("<I", sb, 100)
nic_area_off, nic_area_size = struct.unpack_from("<QQ", sb, 112)
E, = struct.unpack_from("<I", sb, 128)
assert version in (2, 3) and max_nics > nic, (version, max_nics)
rb = lambda e, es: (128 + e * es + 63) & ~63
blk = nic_area_off + nic * nic_area_size + host * (64 + rb(E, 32) + rb(E, 8) + rb(E, 32))
ring = blk + 64 if which == "tx" else blk + 64 + rb(E, 32) + rb(E, 8)
prod, = struct.unpack_from("<I", m, ring)
cons, = struct.unpack_from("<I", m, ring + 64)
ahead = lambda i, start: (i - start + (1 << 31)) % (1 << 32) - (1 << 31)
if op == "rewind":
    struct.pack_into("<I", m, ring, cons)
    struct.pack_into("<I", m, blk + 4, 0)
    print("%s ring of NIC %d host %d: producer index %d -> %d, flags cleared" % (which, nic, host, prod, cons))
    sys.exit(0)
if op == "fate":
    start, n = args
    print("read" if ahead(cons, start) >= n else "back" if ahead(prod, start) < n else "wait")
    sys.exit(0)
n, = args
bad = [(0, 100, host), (pool_size + 4096, 100, host), (2 << 21, 1 << 20, host),
       (3 << 21, 60, 63), (1 << 40, 0, host), ((5 << 21) + 7, 64, host)]
for i in range(n):
    off, ln, src = bad[i % len(bad)]
    struct.pack_into("<QIHH", m, ring + 128 + ((prod + i) % E) * 32, off, ln, src, 0)
struct.pack_into("<I", m, ring, (prod + n) & 0xffffffff)
print("%s ring of NIC %d host %d: %d garbage entries from index %d" % (which, nic, host, n, prod))
EOF
}

nic_drops() {
	in_ns h0 "$DRACKCTL" -j nic show pool 0 | jq --argjson n "$1" '[.[] | select(.nic == $n) | .drops] | add // 0'
}

# mac_of NS DEV: the device's MAC
mac_of() { ip -n "$1" -j link show "$2" | jq -er '.[0].address'; }

# rx_trickle: x0 broadcasts a frame every 5 ms (for at most 60 s) from
# the background; NIC 1's owner gives each to every vNIC on it, h0's
# rack0v1 among them. BG_PID is its pid.
rx_trickle() {
	bg rx_trickle ip netns exec x0 python3 -c '
import socket, sys, time
src, dst = sys.argv[1:3]
mac = lambda m: bytes.fromhex(m.replace(":", ""))
frame = mac(dst) + mac(src) + bytes.fromhex("88b5") + bytes(46)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("br0", 0))
end = time.monotonic() + 60
while time.monotonic() < end:
    s.send(frame)
    time.sleep(0.005)' "$(mac_of x0 br0)" ff:ff:ff:ff:ff:ff
}

# garbage_try WHICH N: inject N bad entries into WHICH ring of (NIC 1, h0);
# its reader (the owner for TX, h0 for completions) must take them and
# drop them all, counted. Returns 2 if their writer published first and
# so took them back (the ring's indexes show it): the caller injects
# again.
garbage_try() {
	local which=$1 n=$2 b p t='' out start fate
	if [[ $which == tx ]]; then
		b=$(nic_drops 1) && p=$(drack_stat h0 port_rx_packets rack0v1) || return 1
		# h0 polls its port of NIC 1 all along: a frame for it every
		# 5 ms. Polling must not take the injected entries back.
		rx_trickle; t=$BG_PID
		wait_for 20 eval '(( $(drack_stat h0 port_rx_packets rack0v1) - p >= 10 ))' ||
			{ echo "x0's frames do not reach h0 rack0v1"; kill_pid "$t"; return 1; }
		p=$(drack_stat h0 port_rx_packets rack0v1)
	else
		b=$(drack_stat h0 port_rx_bad rack0v1) || return 1
	fi
	out=$(vq_ring "$which" 1 0 inject "$n") || { [[ -z $t ]] || kill_pid "$t"; return 1; }
	echo "$out"
	start=${out##* }
	# The reader looks at its heartbeat.
	wait_for 10 eval '[[ $(vq_ring "$which" 1 0 fate "$start" "$n") != wait ]]'
	fate=$(vq_ring "$which" 1 0 fate "$start" "$n")
	if [[ -n $t ]]; then
		echo "h0 rack0v1 received $(($(drack_stat h0 port_rx_packets rack0v1) - p)) frames from x0 meanwhile"
		kill_pid "$t"
	fi
	case $fate in
	read) ;;
	back) return 2 ;;
	*) echo "$which ring: its reader never took the entries"; return 1 ;;
	esac
	# Counted: the owner publishes its drops at its next heartbeat.
	if [[ $which == tx ]]; then
		wait_for 5 eval '(( $(nic_drops 1) - b >= n ))'
	else
		wait_for 5 eval '(( $(drack_stat h0 port_rx_bad rack0v1) - b >= n ))'
	fi
}

garbage() {
	local d0 b0 d1 b1 which try rc
	b0=$(nic_drops 1) && b1=$(drack_stat h0 port_rx_bad rack0v1) || return 1
	# h0 sends nothing until the owner has consumed the garbage: its next
	# frame (an IPv6 report, an ARP reply) would publish its own index
	# over the one injected, and the owner's answer would publish its
	# own over injected completions. Forced: rack0v1's egress drops all
	# meanwhile. A frame for h0 from elsewhere may still make the owner
	# take completions back: the ring shows it, and they are injected
	# again.
	in_ns h0 tc qdisc add dev rack0v1 clsact &&
		in_ns h0 tc filter add dev rack0v1 egress matchall action drop || return 1
	for which in "tx 12" "done 6"; do
		for try in 1 2 3 4; do
			garbage_try $which && break
			rc=$?
			((rc == 2 && try < 4)) || { in_ns h0 tc qdisc del dev rack0v1 clsact; return 1; }
			echo "${which% *} ring taken back by its writer before its reader looked: again"
		done
	done
	in_ns h0 tc qdisc del dev rack0v1 clsact || return 1
	d0=$(($(nic_drops 1) - b0)) d1=$(($(drack_stat h0 port_rx_bad rack0v1) - b1))
	echo "owner of NIC 1 dropped $d0 bad TX entries, h0 refused $d1 bad completions"
	((d0 >= 12 && d1 >= 6)) || return 1
	wait_for 10 ping_once h0 "$X.100" -I "$X.11" >/dev/null && ping_all
}
ktap_check garbage_in_virt_queues_dropped garbage && diag "$(cat "$DRACK_LOGDIR/check.out")"

# A vNIC's queue stopped on a full TX ring starts again even when the
# ring's producer index is moved back to the owner's consumer index and
# the TX-wait flag cleared, as a hostile host could: the owner then sees
# nothing to read and rings nobody, so h0 must find out at its
# heartbeat. Forced: NIC 1's owner, h1, reads no TX ring while h0 floods
# rack0v1 (private flag "deaf").
# qdisc_qlen NS DEV: frames DEV's root qdisc holds
qdisc_qlen() {
	tc -n "$1" -s -j qdisc show dev "$2" root | jq -e '.[0].qlen'
}

# flood NS DEV DST N: N 60-byte frames to DST from a non-blocking packet
# socket on DEV (frames the qdisc holds count against the socket: a
# blocking one would wait for a stopped queue)
flood() {
	in_ns "$1" timeout 20 python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
s.setblocking(False)
src = open("/sys/class/net/%s/address" % sys.argv[1]).read().strip()
frame = bytes.fromhex((sys.argv[2] + src).replace(":", "") + "88b5") + bytes(46)
for i in range(int(sys.argv[3])):
    try:
        s.send(frame)
    except OSError:
        pass' "$2" "$3" "$4"
}

stopped_queue() {
	local full bad q rc=0
	[[ $(drack_stat h0 via_nic rack0v1) == 1 ]] ||
		{ echo "h0 rack0v1 goes via NIC $(drack_stat h0 via_nic rack0v1), not 1"; return 1; }
	full=$(drack_stat h0 port_tx_full rack0v1) && bad=$(drack_stat h0 port_tx_bad_ring rack0v1) || return 1
	priv_flag h1 deaf on || return 1
	flood h0 rack0v1 ff:ff:ff:ff:ff:ff 1000
	wait_for 5 eval '(( $(drack_stat h0 port_tx_full rack0v1) > full ))' ||
		{ echo "h0 rack0v1: TX ring never full (port_tx_full $full)"; rc=1; }
	q=$(qdisc_qlen h0 rack0v1)
	((rc || q > 0)) || { echo "h0 rack0v1: queue not stopped, its qdisc holds nothing"; rc=1; }
	((rc)) || vq_ring tx 1 0 rewind || rc=1
	priv_flag h1 deaf off || priv_flag h1 deaf off || return 1
	((rc == 0)) || return 1
	echo "h0 rack0v1: port_tx_full $full -> $(drack_stat h0 port_tx_full rack0v1), $q frames queued"
	# Its heartbeat (100 ms) finds the ring moved back and wakes the
	# queue, which empties the qdisc; nothing else need happen meanwhile.
	if ! wait_for 3 eval '(( $(qdisc_qlen h0 rack0v1) == 0 ))'; then
		echo "h0 rack0v1: its queue stays stopped, $(qdisc_qlen h0 rack0v1) frames queued"
		ip -n h0 link set rack0v1 down && ip -n h0 link set rack0v1 up
		return 1
	fi
	echo "port_tx_bad_ring $bad -> $(drack_stat h0 port_tx_bad_ring rack0v1)"
	(($(drack_stat h0 port_tx_bad_ring rack0v1) > bad)) || return 1
	wait_for 10 ping_once h0 "$X.100" -I "$X.11" >/dev/null ||
		{ echo "h0 rack0v1: no ping to $X.100 after"; return 1; }
}
ktap_check stopped_queue_restarts stopped_queue && diag "$(cat "$DRACK_LOGDIR/check.out")"

# NIC-pool identity (Documentation/nic-pool.rst, "Identity").

# vnic_show NS NIC KEY [SUBKEY]: a field of NS's vNIC row of NIC in nic show -j
vnic_show() {
	in_ns "$1" "$DRACKCTL" -j nic show pool 0 | jq -er --argjson n "$2" --arg k "$3" --arg s "${4:-}" \
		'.[] | select(.nic == $n) | .[$k] | if $s == "" then . else .[$s] end'
}
vdrop() { vnic_show "$1" "$2" vnic_drops "$3"; }

# raw_send NS DEV SRC DST ETHERTYPE N LEN [MARK]: N frames of LEN bytes
raw_send() {
	in_ns "$1" python3 - "${@:2}" <<'PY'
import socket, sys
dev, src, dst, proto, n, ln = sys.argv[1:7]
mark = sys.argv[7] if len(sys.argv) > 7 else ""
mac = lambda m: bytes.fromhex(m.replace(":", ""))
f = mac(dst) + mac(src) + bytes.fromhex(proto) + mark.encode()
f += bytes(max(0, int(ln) - len(f)))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
for _ in range(int(n)):
    s.send(f)
PY
}

# Every vNIC has the MAC the fabric manager assigned, 02:44:4e:pool:host:NIC,
# shown by nic show; another MAC is refused, with the reason.
mac_assigned() {
	local i v want got shown out
	for i in 0 1; do
		for v in 0 1; do
			want=$(printf '02:44:4e:00:%02x:%02x' "$i" "$v")
			got=$(mac_of "h$i" "rack0v$v") shown=$(vnic_show "h$i" "$v" vnic_mac) || return 1
			echo "h$i rack0v$v: $got, nic show: $shown"
			[[ $got == "$want" && $shown == "$want" ]] || { echo "expected $want"; return 1; }
		done
	done
	for v in "$(mac_of h1 rack0v1)" "$(mac_of h1 eth1)" 02:44:4e:00:00:77; do
		if out=$(ip -n h0 link set rack0v1 address "$v" 2>&1); then
			echo "h0 rack0v1 took $v"; ip -n h0 link set rack0v1 address 02:44:4e:00:00:01; return 1
		fi
		grep -q "fabric manager" <<<"$out" || { echo "no reason given: $out"; return 1; }
	done
	echo "address changes refused: $out"
	[[ $(mac_of h0 rack0v1) == 02:44:4e:00:00:01 ]]
}
ktap_check nic_mac_assigned mac_assigned && diag "$(cat "$DRACK_LOGDIR/check.out")"

# What h0's rack0v1 sends through NIC 1: link-level control frames (LLDP,
# pause) and frames with another source MAC (h1's vNIC) are dropped by
# NIC 1's owner, each counted on that vNIC; x0 still answers it.
ping_v1() { in_ns h0 timeout 5 ping -c 1 -W 1 -q -I "$X.11" "$X.100" >/dev/null 2>&1; }

identity() {
	local mine x0mac b0 s0
	mine=$(mac_of h0 rack0v1) x0mac=$(mac_of x0 br0)
	b0=$(vdrop h0 1 link_local) s0=$(vdrop h0 1 spoofed) || return 1
	raw_send h0 rack0v1 "$mine" 01:80:c2:00:00:0e 88cc 5 60 || return 1
	raw_send h0 rack0v1 "$mine" 01:80:c2:00:00:01 8808 5 60 || return 1
	wait_for 10 eval '(( $(vdrop h0 1 link_local) - b0 >= 10 ))' ||
		{ echo "h0 rack0v1: $(($(vdrop h0 1 link_local) - b0)) of 10 link-local frames counted"; return 1; }
	echo "NIC 1's owner dropped $(($(vdrop h0 1 link_local) - b0)) link-local frames of h0 rack0v1 (LLDP, pause)"
	raw_send h0 rack0v1 "$(mac_of h1 rack0v1)" "$x0mac" 0800 5 60 || return 1
	wait_for 10 eval '(( $(vdrop h0 1 spoofed) - s0 >= 5 ))' ||
		{ echo "h0 rack0v1: $(($(vdrop h0 1 spoofed) - s0)) of 5 spoofed frames counted"; return 1; }
	echo "frames of h0 rack0v1 with h1's vNIC MAC as source: $(($(vdrop h0 1 spoofed) - s0)) dropped"
	wait_for 10 ping_v1 || { echo "rack0v1 no longer reaches x0"; return 1; }
}
ktap_check nic_identity identity && diag "$(cat "$DRACK_LOGDIR/check.out")"

# NIC 1's MTU goes down to 1200: a 1400-byte frame of h0's rack0v1 is
# dropped by the owner and counted as oversize; a 1200-byte one passes.
oversize() {
	local o0 mine x0mac rc=0
	mine=$(mac_of h0 rack0v1) x0mac=$(mac_of x0 br0)
	ip -n h1 link set eth1 mtu 1200 && ip -n x0 link set p1 mtu 1200 || return 1
	o0=$(vdrop h0 1 oversize) || rc=1
	raw_send h0 rack0v1 "$mine" "$x0mac" 0800 4 1400 || rc=1
	raw_send h0 rack0v1 "$mine" "$x0mac" 0800 4 1214 || rc=1
	wait_for 10 eval '(( $(vdrop h0 1 oversize) - o0 >= 4 ))' || rc=1
	sleep 0.3
	echo "NIC 1 at MTU 1200: $(($(vdrop h0 1 oversize) - o0)) of 4 frames of 1400 bytes (and none of 4 of 1214) dropped as oversize"
	(( $(vdrop h0 1 oversize) - o0 == 4 )) || rc=1
	ip -n x0 link set p1 mtu 1500; ip -n h1 link set eth1 mtu 1500
	wait_for 10 ping_v1 || { echo "rack0v1 no longer reaches x0"; return 1; }
	return $rc
}
ktap_check nic_oversize_dropped oversize && diag "$(cat "$DRACK_LOGDIR/check.out")"

# From x0, rounds of three frames each: unicast to h1's rack0v1, a
# multicast group h0's rack0v1 did not join (one whose filter bit no joined
# group sets, so the owner must drop it), one it joined, broadcast. rack0v1
# of h0 (a packet socket on it) gets the last two only; the owner counts the
# group not joined. Rounds repeat until the listener has both wanted frames,
# so a slow owner map refresh or a loaded machine cannot fail it.
free_group() {
	ip -n h0 maddr show dev rack0v1 | python3 -c '
import sys, zlib
h = lambda m: (zlib.crc32(bytes.fromhex(m.replace(":", ""))) ^ 0xffffffff) >> 25
used = {h(w[1]) for w in map(str.split, sys.stdin) if len(w) > 1 and w[0] == "link"}
print(next(g for g in ("01:00:5e:7f:00:%02x" % i for i in range(256)) if h(g) not in used))'
}

rx_filter() {
	local x0mac out f0 p0 pid notj round
	x0mac=$(mac_of x0 br0)
	ip -n x0 link set br0 type bridge mcast_snooping 0
	ip -n h0 maddr add 01:00:5e:01:02:03 dev rack0v1 || return 1
	notj=$(free_group) || return 1
	f0=$(vdrop h0 1 filtered) p0=$(drack_stat h0 port_rx_filtered rack0v1) || return 1
	out=$DRACK_LOGDIR/rx_filter.out
	in_ns h0 timeout 60 python3 - rack0v1 >"$out" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
s.bind((sys.argv[1], 0))
print("ready", flush=True)
while True:
    print("got", s.recv(2048)[14:20].decode(errors="replace"), flush=True)
PY
	pid=$!
	wait_for 10 grep -q ready "$out" || { cat "$out"; kill "$pid"; return 1; }
	for round in 1 2 3 4 5 6 7 8 9 10; do
		raw_send x0 br0 "$x0mac" "$(mac_of h1 rack0v1)" 88b5 3 60 UNIOTH &&
			raw_send x0 br0 "$x0mac" "$notj" 88b5 3 60 MCNOTJ &&
			raw_send x0 br0 "$x0mac" 01:00:5e:01:02:03 88b5 3 60 MCJOIN &&
			raw_send x0 br0 "$x0mac" ff:ff:ff:ff:ff:ff 88b5 3 60 BCASTX || { kill "$pid"; return 1; }
		wait_for 5 eval 'grep -q "got BCASTX" "$out" && grep -q "got MCJOIN" "$out"' && break
	done
	# Frames of one source through one owner arrive in order: what came
	# before the broadcast is in; a short grace catches a stray late one.
	sleep 0.5
	kill "$pid"; wait "$pid" 2>/dev/null
	ip -n h0 maddr del 01:00:5e:01:02:03 dev rack0v1
	out=$(awk '$1 == "got" { print $2 }' "$out" | sort -u | xargs)
	wait_for 10 eval '(( $(vdrop h0 1 filtered) - f0 >= 3 ))'
	echo "h0 rack0v1 seen: $out after $round round(s); $notj filtered: owner +$(($(vdrop h0 1 filtered) - f0)), host +$(($(drack_stat h0 port_rx_filtered rack0v1) - p0))"
	[[ $out == "BCASTX MCJOIN" ]] || return 1
	(( $(vdrop h0 1 filtered) - f0 >= 3 ))
}
ktap_check nic_rx_filter rx_filter && diag "$(cat "$DRACK_LOGDIR/check.out")"

# IPv6 over a vNIC: x0 pings h0's rack0v1 first, so its neighbour
# solicitation goes to the solicited-node group rack0v1 joined (the owner
# must deliver it), and back.
nd6() {
	ip -n x0 addr add fd00:9::100/64 dev br0 nodad &&
		ip -n h0 addr add fd00:9::11/64 dev rack0v1 nodad || return 1
	wait_for 10 in_ns x0 ping -6 -c 1 -W 1 -q fd00:9::11 >/dev/null || { echo "x0 cannot ping6 h0 rack0v1"; return 1; }
	in_ns h0 ping -6 -c 3 -i 0.2 -W 1 -q -I fd00:9::11 fd00:9::100 | grep -E 'packets|rtt'
}
ktap_check nic_ipv6_nd nd6 && diag "$(cat "$DRACK_LOGDIR/check.out")"

unexport() {
	local out i
	out=$(in_ns h1 "$DRACKCTL" nic unexport dev eth1 2>&1) || { echo "unexport: $out"; return 1; }
	for i in 0 1; do
		wait_for 10 eval "! ip -n h$i link show rack0v1 >/dev/null 2>&1" ||
			{ echo "h$i still has rack0v1"; return 1; }
	done
	ping_ok h1 "$X.100" -I "$X.20" || return 1
	# The last NIC: afterwards every Buffer posted or sent is home.
	out=$(in_ns h0 "$DRACKCTL" nic unexport dev eth1 2>&1) || { echo "unexport: $out"; return 1; }
	for i in 0 1; do
		wait_for 10 eval "! ip -n h$i link show rack0v0 >/dev/null 2>&1" ||
			{ echo "h$i still has rack0v0"; return 1; }
	done
	if out=$(in_ns h0 "$DRACKCTL" nic unexport dev eth1 2>&1); then
		echo "unexport of a NIC not exported succeeded: $out"; return 1
	fi
	echo "unexport again: $out"
}
ktap_check unexport_deletes_vnics unexport

# A third host, h2, exports a NIC and h0 gets its vNIC (NIC3: its id).
third_nic() {
	local id out
	drack_host_add 2 || return 1
	ip link add eth1 netns h2 type veth peer p2 netns x0 || return 1
	ip -n x0 link set p2 master br0 up && ip -n h2 link set eth1 up || return 1
	out=$(in_ns h2 "$DRACKCTL" -j nic export dev eth1) || { echo "export: $out"; return 1; }
	id=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
print((d[0] if isinstance(d, list) else d)["nic"])' <<<"$out") || { echo "export said: $out"; return 1; }
	wait_for 20 ip -n h0 link set "rack0v$id" up || { echo "h0 got no rack0v$id"; return 1; }
	ip -n h0 addr add "$X.12/24" dev "rack0v$id" &&
		ip -n h0 route add "$X.0/24" dev "rack0v$id" src "$X.12" table 102 &&
		ip -n h0 rule add from "$X.12" table 102 || return 1
	wait_for 10 ping_once h0 "$X.100" -I "$X.12" >/dev/null || { echo "no ping through NIC $id"; return 1; }
	NIC3=$id
}

# A vNIC whose transmit finds no Buffer to lend its NIC's owner, while
# its TX ring has room, waits for Buffers to come back: woken on room
# alone, it failed again at once, a softirq loop as long as the owner
# held them. Forced: h2, NIC3's owner, hoards (hands none of h0's rack0
# Buffers back) until h0's rack0 holds it at peer_max_lent_mb=1 (512
# Buffers of 2 KB, the vNIC's 128 RX posts among them); then it goes deaf
# (reads no TX ring, so no Buffer comes back that way either) and h0
# sends 100 frames on its vNIC, well under the 256 of the ring. Raising
# the cap gives it Buffers again (seen by h0's heartbeat).
LENT_MB=/sys/module/drack/parameters/peer_max_lent_mb
LENT_MB0=$(cat "$LENT_MB")
# net_softirqs: NET_RX and NET_TX softirqs so far, every CPU
net_softirqs() {
	awk '$1 == "NET_RX:" || $1 == "NET_TX:" { for (i = 2; i <= NF; i++) n += $i } END { print n }' /proc/softirqs
}
# hold_h2: h0 holds h2 at the cap, h2 deaf (its TX ring not read)
hold_h2() {
	local capped
	capped=$(drack_stat h0 tx_peer_capped) || return 1
	echo 1 >"$LENT_MB"
	# (the cap is applied by h0's liveness work: flood until it bites)
	wait_for 10 eval 'flood h0 rack0 $(host_mac 2) 200; (( $(drack_stat h0 tx_peer_capped) > capped ))' ||
		{ echo "h0 never held h2 at the cap"; return 1; }
	priv_flag h2 deaf on
}
# vnic_no_buf V N NB: N frames on h0's V; port_tx_no_buf rises above NB
# (read before h0 held h2 at the cap: a frame of h0's own may have found
# no Buffer since) and the qdisc holds frames
vnic_no_buf() {
	local dev=$1 nb=$3
	flood h0 "$dev" ff:ff:ff:ff:ff:ff "$2"
	wait_for 5 eval '(( $(drack_stat h0 port_tx_no_buf $dev) > nb ))' ||
		{ echo "h0 $dev: never out of Buffers (port_tx_no_buf $nb)"; return 1; }
	echo "h0 $dev: port_tx_no_buf $nb -> $(drack_stat h0 port_tx_no_buf "$dev"), $(qdisc_qlen h0 "$dev") frames queued"
	(($(qdisc_qlen h0 "$dev") > 0)) || { echo "h0 $dev: queue not stopped, its qdisc holds nothing"; return 1; }
}

# qdisc_empties V: h0's V sends what its qdisc holds within 3 s
qdisc_empties() {
	local dev=$1
	wait_for 3 eval '(( $(qdisc_qlen h0 $dev) == 0 ))' ||
		{ echo "h0 $dev: its queue stays stopped, $(qdisc_qlen h0 "$dev") frames queued"; return 1; }
}

no_buffer_waits() {
	local v nb s0 s1 rc=0
	third_nic || return 1
	v=rack0v$NIC3
	nb=$(drack_stat h0 port_tx_no_buf "$v") || return 1
	priv_flag h2 hoard on && hold_h2 && vnic_no_buf "$v" 100 "$nb" || rc=1
	if ((rc == 0)); then
		s0=$(net_softirqs)
		sleep 1
		s1=$(net_softirqs)
		echo "NET_RX+NET_TX softirqs in 1 s while it waits: $((s1 - s0))"
		# Idle: under 100; woken on ring room alone: over 270,000.
		((s1 - s0 < 1000)) || { echo "busy while waiting for Buffers"; rc=1; }
	fi
	echo "$LENT_MB0" >"$LENT_MB"
	((rc)) || qdisc_empties "$v" || rc=1
	priv_flag h2 deaf off || rc=1
	return $rc
}
ktap_check vnic_out_of_buffers_waits no_buffer_waits && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Buffers back while the ring is still nearly full: the vNIC then waits
# for room, and the owner must still ring h0 when it reads the ring (the
# TX-wait flag kept), or the queue stays stopped for good. Forced: h2 deaf,
# 250 frames fill h0's ring (256), h0 holds h2 at the cap, 20 more find
# no Buffer; the cap raised and seen (a liveness period and heartbeats),
# h2 hears again and must empty the qdisc.
buffers_back_ring_full() {
	local v=rack0v${NIC3:-} nb rc=0
	[[ -n ${NIC3:-} ]] || { echo "no third NIC"; return 1; }
	nb=$(drack_stat h0 port_tx_no_buf "$v") || return 1
	priv_flag h2 deaf on && flood h0 "$v" ff:ff:ff:ff:ff:ff 250 &&
		hold_h2 && vnic_no_buf "$v" 20 "$nb" || rc=1
	echo "$LENT_MB0" >"$LENT_MB"
	sleep 1		# the poll finds the Buffers back, the ring still full
	priv_flag h2 deaf off || rc=1
	((rc)) || qdisc_empties "$v" || rc=1
	priv_flag h2 hoard off || rc=1
	return $rc
}
ktap_check vnic_buffers_back_ring_full buffers_back_ring_full && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Then h2's rack0 is deleted while the NIC is exported and in use: the
# export ends with it (the port is no longer promiscuous), h0's vNIC goes
# away, h0's Buffers come home, those h2 hoarded too (buffers_home below).
owner_leaves() {
	local id=${NIC3:-}
	[[ -n $id ]] || { echo "no third NIC"; return 1; }
	bg ping-h0 ip netns exec h0 ping -q -i 0.05 -I "$X.12" "$X.100"
	sleep 0.5
	drack_del_host h2 || return 1
	wait_for 10 eval "! ip -n h0 link show rack0v$id >/dev/null 2>&1" ||
		{ echo "h0 still has rack0v$id"; return 1; }
	if ip -n h2 link show eth1 | grep -q PROMISC; then
		echo "h2 eth1 still promiscuous"; return 1
	fi
	echo "NIC $id: owner left, vNIC of h0 deleted, h2 eth1 released"
}
ktap_check owner_leaves_while_exported owner_leaves

drack_finish
