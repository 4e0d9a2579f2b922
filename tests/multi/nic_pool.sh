#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# nic_pool: the NIC pool across kernels. Two racks of two VMs
# (tests/multi/nic-lab.bash: drack-rack --nic core, each VM's core NIC
# capped at B = DRACK_NIC_RATE, default 5mbit); every VM exports its core
# NIC, so in each rack NIC 0 is VM 0's and NIC 1 VM 1's, and every VM gets
# rack0v0 and rack0v1 with addresses on the core subnet:
#
#   rack 0  VM0 rack0v0 10.200.0.10  rack0v1 10.200.0.11   (NIC 0: VM0 eth0)
#           VM1 rack0v0 10.200.0.20  rack0v1 10.200.0.21   (NIC 1: VM1 eth0)
#   rack 1  VM0 rack0v0 10.200.1.10  rack0v1 10.200.1.11   core 10.200.1.1
#           VM1 rack0v0 10.200.1.20  rack0v1 10.200.1.21
#
# Then: ping from every vNIC of every host of rack 0 to both vNICs of rack
# 1's VM 0, and back to every vNIC of rack 0; iperf3 from every host of
# rack 0 over each of its vNICs to rack 1, carried by that vNIC's NIC only;
# MPTCP (mptcpize iperf3, server under mptcpize) over both vNICs of rack 0
# VM 0 moves bytes through both NICs and gets more than 1.3 B; an iperf3
# from VM 0 through rack0v1 (VM 1's NIC) survives VM 1's core NIC going
# down (rack0v1 moves to NIC 0; the outage is measured with ping -i 0.01
# alongside) and comes back when it is up again; then VM 1's QEMU is
# killed during an iperf3 through rack0v1: the vNIC moves to NIC 0 when the
# owner's heartbeat stops (nic_failover_ms, 500), traffic goes on, and
# after drack-fmd fenced host 1 both vNICs of VM 0 still work. All VMs stop
# cleanly (no kernel warning in any VM's log).
#
# What breaks it: vNICs not created in another kernel (assignment or attach
# across the pool), frames of a vNIC not accepted by a remote owner (MAC
# map), RX completions or doorbells lost between kernels (no ping), traffic
# through the wrong NIC, MPTCP subflows not on both vNICs, no failover on a
# link down or a silent owner, a vNIC lost when its owner is fenced.
#
# Env: DRACK_NIC_RATE, DRACK_NIC_TRANSPORT (nic-lab.bash). Logs: the
# guests' files in /tmp/drack-multi/nic_pool/rackR/vmV/ (np-*.json, np-*.ping).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nic-lab.bash"

ktap_plan 14
trap nic_lab_abort EXIT
# summary: the "= " lines of the last check, as diagnostics
summary() { diag "$(sed -n 's/^= //p' "$LOGDIR/check.out")"; }
B_MBPS=$(awk -v b="$NIC_RATE_BITS" 'BEGIN { printf "%.2f", b / 1e6 }')
diag "B = $NIC_RATE per NIC (tbf), transport $NIC_TRANSPORT, core network $NIC_CORE"

# ---- the lab ---------------------------------------------------------------

rc=0
nic_lab_start >"$LOGDIR/lab-start.out" 2>&1 || rc=$?
for r in "${NIC_RACKS[@]}"; do
	line=$(grep "^start_rack$r " "$LOGDIR/lab-start.out")
	if [[ $line == "start_rack$r ok"* ]]; then
		ktap_ok "start_rack$r"
		diag "rack $r: ${line#*ok: }"
	else
		ktap_fail "start_rack$r" "$(sed -n "/^start_rack$r /,/^start_rack/p" "$LOGDIR/lab-start.out")"
	fi
done
((rc == 0)) || { nic_lab_abort; ktap_finish; }

ktap_check export_every_core_nic nic_lab_export
ktap_check vnics_in_every_vm nic_lab_vnics || { nic_lab_abort; ktap_finish; }

# ---- ping across racks -----------------------------------------------------

# ping_pairs R V "SRC..." "DST...": from VM V of rack R, every SRC to every
# DST; a first answer within 6 s (ARP), then 3 of 3 echoes answered.
ping_pairs() {
	local r=$1 v=$2
	# shellcheck disable=SC2016 # expanded in the VM
	rx "$r" "$v" 'bad=0
		for s in '"$3"'; do for d in '"$4"'; do
			for i in $(seq 20); do ping -n -q -c 1 -W 1 -I $s $d >/dev/null && break; sleep 0.2; done
			out=$(ping -n -q -c 3 -i 0.2 -W 2 -I $s $d 2>&1)
			got=$(grep -o "[0-9]* received" <<<"$out")
			echo "'"rack $r VM $v"' $s -> $d: $got, $(grep -o "rtt.*" <<<"$out")"
			[[ $got == "3 received" ]] || bad=1
		done; done
		exit $bad'
}

ping_out() {
	local v bad=0
	for v in 0 1; do
		ping_pairs 0 "$v" "$(vnic_ip 0 "$v" 0) $(vnic_ip 0 "$v" 1)" "$(vnic_ip 1 0 0) $(vnic_ip 1 0 1)" || bad=1
	done
	return $bad
}
ktap_check ping_rack0_every_vnic_to_rack1 ping_out

ping_back() {
	ping_pairs 1 0 "$(vnic_ip 1 0 0) $(vnic_ip 1 0 1)" \
		"$(vnic_ip 0 0 0) $(vnic_ip 0 0 1) $(vnic_ip 0 1 0) $(vnic_ip 0 1 1)"
}
ktap_check ping_rack1_to_every_vnic_of_rack0 ping_back

# ---- iperf3 over each vNIC -------------------------------------------------

rxq 1 0 "iperf3 -s -D -p 5201 && iperf3 -s -D -p 5202 -i 0.2"

declare -A TOR=()
per_vnic() {
	local v n m bytes d0 d1 mine other bad=0 lo hi out
	lo=$(awk -v b="$B_MBPS" 'BEGIN { print b * 0.6 }') hi=$(awk -v b="$B_MBPS" 'BEGIN { print b * 1.15 }')
	for v in 0 1; do
		for n in 0 1; do
			out=$(nic_measured 0 "$v" "vnic$v$n" \
				"iperf3 -c $(core_ip 1 0) -p 5201 -t 4 -B $(vnic_ip 0 "$v" "$n") -J >/hostout/np-vnic$v$n.json") ||
				{ echo "rack 0 VM $v rack0v$n: iperf3 failed: $out"; bad=1; continue; }
			read -r m bytes d0 d1 _ <<<"$out"
			TOR[$v.$n]=$m
			((n == 0)) && mine=$d0 other=$d1 || mine=$d1 other=$d0
			echo "= VM $v via rack0v$n: $m Mbit/s (B $B_MBPS, accepted $lo to $hi); NIC $n sent $mine bytes, NIC $((1 - n)) $other (iperf3 payload $bytes)"
			awk -v m="$m" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(m >= lo && m <= hi) }' ||
				{ echo "VM $v via rack0v$n: $m Mbit/s outside $lo to $hi"; bad=1; }
			((mine >= bytes * 9 / 10 && other < bytes / 10)) ||
				{ echo "VM $v via rack0v$n: not carried by NIC $n alone"; bad=1; }
		done
	done
	return $bad
}
ktap_check iperf3_rack0_every_vnic per_vnic
summary

# ---- MPTCP over both vNICs ----------------------------------------------------

mptcp() {
	local m bytes d0 d1 tor out
	out=$(rx 0 0 'command -v mptcpize iperf3' 2>&1) && [[ $(wc -l <<<"$out") == 2 ]] ||
		{ echo "no mptcpize or iperf3 in the VMs (they use the host's root: bash tests/install-deps.sh installs them)"; return 1; }
	rxq 1 0 "mptcpize run iperf3 -s -D -p 5301" || { echo "mptcpize iperf3 -s failed in rack 1 VM 0"; return 1; }
	wait_for 10 rxq 1 0 "ss -Hltn 'sport = :5301' | grep -q LISTEN" || { echo "no MPTCP iperf3 server"; return 1; }
	rx 0 0 "sysctl -qw net.mptcp.enabled=1 && drackctl nic mptcp on && ip mptcp endpoint show && ip mptcp limits show" ||
		return 1
	out=$(nic_measured 0 0 mptcp \
		"mptcpize run iperf3 -c $(core_ip 1 0) -p 5301 -t 10 -B $(vnic_ip 0 0 0) -J >/hostout/np-mptcp.json") ||
		{ echo "MPTCP iperf3 failed: $out"; return 1; }
	read -r m bytes d0 d1 _ <<<"$out"
	rx 0 0 "nstat -az MPTcpExtMPJoinSynAckRx MPTcpExtMPCapableSYNACKRX | tail -n +2; drackctl nic mptcp off"
	tor=${TOR[0.0]:-0}
	echo "= MPTCP over rack0v0+rack0v1 from rack 0 VM 0: $m Mbit/s = $(awk -v m="$m" -v b="$B_MBPS" 'BEGIN { printf "%.2f", m / b }') B;" \
		"through its own vNIC alone $tor Mbit/s (x$(awk -v m="$m" -v t="$tor" 'BEGIN { printf "%.2f", t ? m / t : 0 }'));" \
		"NIC 0 sent $d0 bytes, NIC 1 $d1"
	((d0 > (d0 + d1) / 4 && d1 > (d0 + d1) / 4)) || { echo "the bytes did not go through both NICs"; return 1; }
	awk -v m="$m" -v b="$B_MBPS" 'BEGIN { exit !(m >= 1.3 * b) }' || { echo "not clearly more than B (1.3 B = $(awk -v b="$B_MBPS" 'BEGIN { print 1.3 * b }'))"; return 1; }
}
ktap_check mptcp_through_both_nics_above_B mptcp
summary

# ---- failover ----------------------------------------------------------------

via_nic() { rx 0 0 "ethtool -S rack0v1" | awk '$1 == "via_nic:" { print $2 }'; }

# probe TAG SECS: in rack 0 VM 0, a plain TCP iperf3 through rack0v1 (to
# rack 1 VM 0's core NIC; 16 KB writes; the server reports 0.2 s intervals)
# and ping -i 0.01 along the same path, for SECS seconds; files
# /hostout/np-TAG.json and np-TAG.ping. The event is timed from the host,
# "~+N s" after it sent the probe; the VM starts it up to a second later.
probe() {
	rx 0 0 "iperf3 -c $(core_ip 1 0) -p 5202 -t $2 -i 0.2 -l 16K -B $(vnic_ip 0 0 1) -J --get-server-output >/hostout/np-$1.json 2>&1 & ip=\$!
		ping -D -n -i 0.01 -W 1 -w $2 -I $(vnic_ip 0 0 1) $(core_ip 1 0) >/hostout/np-$1.ping 2>&1
		wait \$ip"
}

# outage TAG EVENT_AT: the longest silence of the ping, iperf3's intervals
outage() {
	python3 - "$LOGDIR/rack0/vm0/np-$1" "$2" "$B_MBPS" <<'EOF'
import json, re, sys
base, event_at, b = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rx, sent, span = [], 0, 0
for l in open(base + ".ping"):
    m = re.match(r"\[([0-9.]+)\] .* icmp_seq=([0-9]+) ", l)
    if m:
        rx.append((int(m.group(2)), float(m.group(1))))
    m = re.match(r"([0-9]+) packets transmitted, .* time ([0-9]+)ms", l)
    if m:
        sent, span = int(m.group(1)), int(m.group(2))
if len(rx) < 2 or not sent:
    print("outage: no ping replies to look at"); sys.exit(1)
t0 = rx[0][1]
# The outage: the most echoes lost in a row (then the longest silence),
# as the time over which the echoes went unanswered: (lost + 1) x step.
lost, sil, a, z = max((z[0] - a[0] - 1, z[1] - a[1], a, z) for a, z in zip(rx, rx[1:]))
sil *= 1000
quiet = max(z[1] - a[1] for a, z in zip(rx, rx[1:])) * 1000
step = span / max(sent - 1, 1)
out = (lost + 1) * step
print("= ping -i 0.01 (one echo every %.1f ms under TCG): %d of %d answered; longest outage %d echoes lost"
      " in a row (seq %d-%d): %.0f ms of echoes unanswered, %.0f ms between the answers around them,"
      " at +%.2f s of the ping (event at ~+%.1f s); longest silence of the run %.0f ms"
      % (step, len(rx), sent, lost, a[0] + 1, z[0] - 1, out, sil, a[1] - t0, event_at, quiet))
print("OUTAGE_MS %.0f" % out)
d = json.load(open(base + ".json"))
if "error" in d:
    print("iperf3: " + d["error"]); sys.exit(1)
# The receiver's 0.2 s intervals (its text output): what arrived when.
unit = {"": 1e-6, "K": 1e-3, "M": 1.0, "G": 1e3}
iv = [float(m.group(1)) * unit[m.group(2)] for m in
      (re.search(r"sec\s+[0-9.]+ [KMG]?Bytes\s+([0-9.]+) ([KMG]?)bits/sec\s*$", l)
       for l in d.get("server_output_text", "").splitlines()) if m]
side = "receiver"
if not iv:
    side, iv = "sender", [i["sum"]["bits_per_second"] / 1e6 for i in d["intervals"]]
r = d["end"]["sum_received"]
run = most = 0
for v in iv:
    run = run + 1 if v < 0.1 * b else 0
    most = max(most, run)
print("= iperf3 through rack0v1: %.2f Mbit/s received over %.1f s; %s's 0.2 s intervals (Mbit/s): %s;"
      " longest stretch below 0.1 B: %.1f s"
      % (r["bits_per_second"] / 1e6, r["seconds"], side, " ".join("%.1f" % v for v in iv), 0.2 * most))
# Still moving at the end: data in the last second.
if sum(iv[-5:]) <= 0:
    print("no data in the last second of iperf3"); sys.exit(1)
if r["bits_per_second"] / 1e6 < 0.4 * b:
    print("iperf3 got less than 0.4 B over the run"); sys.exit(1)
EOF
}

link_down() {
	local pid ms via
	[[ $(via_nic) == 1 ]] || { echo "rack0v1 of VM 0 is not through NIC 1 to begin with"; return 1; }
	probe link 8 >"$LOGDIR/probe-link.out" 2>&1 &
	pid=$!
	sleep 3.5
	rx 0 1 'ip link set $RACK_CORE_DEV down' || return 1
	wait_for 5 eval '[[ $(via_nic) == 0 ]]'
	via=$(via_nic)
	wait "$pid" || { echo "iperf3/ping through rack0v1 failed: $(cat "$LOGDIR/probe-link.out")"; }
	echo "= VM 1's core NIC down at ~+3.5 s: rack0v1 of VM 0 now through NIC $via"
	outage link 3.5 | tee "$LOGDIR/outage-link" || return 1
	ms=$(awk '$1 == "OUTAGE_MS" { print $2 }' "$LOGDIR/outage-link")
	[[ $via == 0 ]] || { echo "rack0v1 did not move to NIC 0"; rx 0 0 "ethtool -S rack0v1; drackctl nic show"; return 1; }
	((ms < 2000)) || { echo "outage of $ms ms (limit 2000)"; return 1; }
}
ktap_check failover_nic_link_down link_down
summary
diag "VM 0: $(rx 0 0 "dmesg | grep -E 'rack0v1: now through' | tail -n 1")"

link_up() {
	rx 0 1 'ip link set $RACK_CORE_DEV up' || return 1
	wait_for 10 eval '[[ $(via_nic) == 1 ]]' || { echo "rack0v1 did not move back to NIC 1"; rx 0 0 "ethtool -S rack0v1"; return 1; }
	rx 0 0 "ethtool -S rack0v1 | grep -E 'via_nic|failovers'"
	ping_pairs 0 0 "$(vnic_ip 0 0 1)" "$(core_ip 1 0) $(vnic_ip 1 0 0)"
}
ktap_check back_when_link_up link_up

owner_dies() {
	local pid ms via
	[[ $(via_nic) == 1 ]] || { echo "rack0v1 of VM 0 is not through NIC 1 to begin with"; return 1; }
	probe kill 12 >"$LOGDIR/probe-kill.out" 2>&1 &
	pid=$!
	sleep 4
	R 0 kill 1 || { echo "drack-rack kill 1 failed"; return 1; }
	wait "$pid" || echo "iperf3/ping through rack0v1 failed: $(cat "$LOGDIR/probe-kill.out")"
	via=$(via_nic)
	echo "= VM 1's QEMU killed at ~+4 s: rack0v1 of VM 0 now through NIC $via"
	outage kill 4 | tee "$LOGDIR/outage-kill" || return 1
	ms=$(awk '$1 == "OUTAGE_MS" { print $2 }' "$LOGDIR/outage-kill")
	[[ $via == 0 ]] || { echo "rack0v1 did not move to NIC 0"; rx 0 0 "ethtool -S rack0v1; drackctl nic show"; return 1; }
	((ms < 3000)) || { echo "outage of $ms ms (limit 3000)"; return 1; }
}
ktap_check failover_owner_killed owner_dies
summary

# drack-fmd fences host 1 (dead timeout) and reclaims it; VM 0 keeps both
# vNICs, both through NIC 0.
fenced() { ! rx 0 0 "drackctl host show pool 0" | grep -q "host 1 "; }
after_fence() {
	wait_for 40 fenced || { echo "host 1 not fenced and reclaimed after 40 s"; rx 0 0 "drackctl host show pool 0"; return 1; }
	R 0 log 0 fmd 2>/dev/null | grep -E 'host 1|NIC 1' | sed 's/^.*drack-fmd[^:]*: //' | tail -n 4
	rx 0 0 "drackctl nic show; ethtool -S rack0v0 | grep via_nic; ethtool -S rack0v1 | grep via_nic"
	ping_pairs 0 0 "$(vnic_ip 0 0 0) $(vnic_ip 0 0 1)" "$(core_ip 1 0) $(vnic_ip 1 0 0)"
}
ktap_check vnics_work_after_owner_fenced after_fence

# ---- stop --------------------------------------------------------------------

declare -A pid=()
for r in "${NIC_RACKS[@]}"; do
	nic_lab_stop "$r" &
	pid[$r]=$!
done
for r in "${NIC_RACKS[@]}"; do
	if wait "${pid[$r]}"; then
		ktap_ok "stop_rack$r"
	else
		ktap_fail "stop_rack$r" "$(tail -n 30 "$LOGDIR/stop$r.log")"
	fi
done
NIC_LAB_UP=()
trap - EXIT
diag "nic_pool: $SECONDS s"
ktap_finish
