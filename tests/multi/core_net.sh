#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# core_net: two racks of two VMs, each rack on its own ivshmem pool, joined
# by the core network of drack-rack --nic core (one virtio-net NIC per VM,
# QEMU socket netdevs on one UDP multicast group of the host's loopback).
#
#   rack 0: VM0 --+-- pool A (rack0 198.18.0.x/24)
#           VM1 --+
#            |  core NICs 10.200.0.1, 10.200.0.2
#   ========= core network 10.200.0.0/16, egress RATE per NIC (tbf) =========
#            |  core NICs 10.200.1.1, 10.200.1.2
#   rack 1: VM0 --+-- pool B (rack0 198.18.0.x/24: another L2)
#           VM1 --+
#
# Both racks boot at once (4 VMs); a third rack with a rack id already on
# the core network is refused before it boots; ping over rack0 inside each
# rack; ping over the core NIC from every VM to every VM of the other rack;
# drack-rack status shows each core NIC, its address and its tbf; iperf3
# over one core NIC gets 50% to 110% of RATE and the NIC's tbf held
# packets back (overlimits); all four VMs stop cleanly.
#
# What breaks it: the NIC not found by its MAC in the guest, racks on
# different core groups, a MAC or address clash between racks, a missing
# or ineffective rate cap, racks leaking into each other's state.
#
# Env: DRACK_CORE_RATE, the cap (default 20mbit). Under TCG on 2 CPUs the
# core network itself carries 50 to 75 Mbit/s between these VMs, so
# drack-rack's default, 100mbit, would not be what limits the flow.
. "$(dirname "$0")/lib.sh"

RATE=${DRACK_CORE_RATE:-20mbit}
# A group port of our own: a lab on the default core network stays apart.
CORE=230.0.0.1:$((42100 + $$ % 800))
racks=(0 1)

ktap_plan 10

R() { local r=$1; shift; "$TOP/tools/rack/drack-rack" --dir "$LOGDIR/rack$r" "$@"; }
rx() { local r=$1 vm=$2; shift 2; R "$r" exec -t "${XT:-120}" "$vm" "$*"; }
rxq() { rx "$@" >/dev/null 2>&1; }
core_ip() { echo "10.200.$1.$(($2 + 1))"; }
rate_bits() {
	[[ ${1,,} =~ ^([0-9]+)(k|m|g)bit$ ]] || return 1
	case ${BASH_REMATCH[2]} in
	k) echo $((BASH_REMATCH[1] * 1000)) ;;
	m) echo $((BASH_REMATCH[1] * 1000000)) ;;
	g) echo $((BASH_REMATCH[1] * 1000000000)) ;;
	esac
}

UP=()
abort() { local r; for r in "${UP[@]}"; do R "$r" stop >/dev/null 2>&1; done; }
trap abort EXIT

# ---- two racks at once -----------------------------------------------------

declare -A pid=()
for r in "${racks[@]}"; do
	R "$r" stop >/dev/null 2>&1
	rm -rf "$LOGDIR/rack$r"
	R "$r" start -n 2 --transport ivshmem --smp 1 --rack "$r" --nic core --core "$CORE" \
		--nic-rate "$RATE" >"$LOGDIR/start$r.log" 2>&1 &
	pid[$r]=$!
done
bad=0
for r in "${racks[@]}"; do
	UP+=("$r")
	if wait "${pid[$r]}"; then
		ktap_ok "start_rack$r"
		diag "rack $r: $(grep -E '^vm|up in' "$LOGDIR/start$r.log" | tr '\n' ';')"
	else
		ktap_fail "start_rack$r" "$(tail -n 30 "$LOGDIR/start$r.log")"
		bad=1
	fi
done
((bad)) && { abort; UP=(); ktap_finish; }

# A third rack with rack id 1 on the same core network: refused, not booted.
dup() {
	local out rc=0
	out=$("$TOP/tools/rack/drack-rack" --dir "$LOGDIR/rack-dup" start -n 1 --rack 1 --nic core --core "$CORE" 2>&1) || rc=$?
	echo "$out"
	rm -rf "$LOGDIR/rack-dup"
	((rc == 2)) && [[ $out == *"already on the core network"* ]]
}
ktap_check duplicate_rack_id_refused dup

# ---- inside each rack: rack0 -------------------------------------------------

for r in "${racks[@]}"; do
	ktap_check "ping_in_rack$r" eval \
		'rx $r 0 "ping -c 2 -i 0.2 -W 3 -I rack0 $(ip4 1)" && rx $r 1 "ping -c 2 -i 0.2 -W 3 -I rack0 $(ip4 0)"'
done

# ---- across racks: the core NICs ---------------------------------------------

across() {
	local r s v w bad=0
	for r in "${racks[@]}"; do
		for v in 0 1; do
			for s in "${racks[@]}"; do
				((s == r)) && continue
				for w in 0 1; do
					rxq "$r" "$v" "ping -c 2 -i 0.2 -W 3 -I \$RACK_CORE_DEV $(core_ip "$s" "$w")" ||
						{ echo "rack $r VM $v cannot ping rack $s VM $w ($(core_ip "$s" "$w")) over its core NIC"; bad=1; }
				done
			done
		done
	done
	return $bad
}
ktap_check core_ping_across_racks across

shows_core() {
	local r v out bad=0
	for r in "${racks[@]}"; do
		out=$(R "$r" status 2>&1)
		echo "$out"
		grep -q "^core network: $CORE .*rack $r" <<<"$out" || { echo "rack $r: no core network line"; bad=1; }
		for v in 0 1; do
			grep -qE "core NIC [a-z0-9]+ \\($(printf '52:54:00:%02x:%02x:01' "$r" "$v")\\)" <<<"$out" &&
				grep -qF " $(core_ip "$r" "$v")/16" <<<"$out" ||
				{ echo "rack $r VM $v: core NIC or $(core_ip "$r" "$v")/16 missing"; bad=1; }
		done
		(($(grep -c 'qdisc tbf .* rate ' <<<"$out") == 2)) || { echo "rack $r: not two tbf qdiscs"; bad=1; }
	done
	return $bad
}
ktap_check status_shows_core_nic shows_core

# ---- iperf3 over one core NIC: rack 1 VM 1 -> rack 0 VM 0 ------------------------

capped() {
	local bps lo hi rate over
	rate=$(rate_bits "$RATE") || { echo "DRACK_CORE_RATE: NUMBER{kbit,mbit,gbit}"; return 1; }
	rxq 0 0 "iperf3 -s -D -1 -B $(core_ip 0 0)"
	sleep 1
	bps=$(rx 1 1 "iperf3 -c $(core_ip 0 0) -t 10 -J" | python3 -c '
import json, sys
print("%.0f" % json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])') || {
		echo "iperf3 rack 1 VM 1 -> rack 0 VM 0 failed"
		return 1
	}
	rx 1 1 'tc -s qdisc show dev $RACK_CORE_DEV root' >"$LOGDIR/tbf"
	cat "$LOGDIR/tbf"
	over=$(grep -oE 'overlimits [0-9]+' "$LOGDIR/tbf" | cut -d' ' -f2)
	lo=$((rate / 2)) hi=$((rate * 11 / 10))
	echo "iperf3 over the core NIC, rack 1 VM 1 -> rack 0 VM 0: $(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }') Mbit/s, cap $RATE (accepted: $((lo / 1000000)) to $((hi / 1000000)) Mbit/s), tbf overlimits ${over:-none}"
	((bps >= lo && bps <= hi && ${over:-0} > 0))
}
ktap_check iperf3_core_capped capped
diag "$(grep 'iperf3 over' "$LOGDIR/check.out")"

# ---- all four VMs stop cleanly ---------------------------------------------

for r in "${racks[@]}"; do
	R "$r" stop >"$LOGDIR/stop$r.log" 2>&1 &
	pid[$r]=$!
done
for r in "${racks[@]}"; do
	if wait "${pid[$r]}"; then
		ktap_ok "stop_rack$r"
	else
		ktap_fail "stop_rack$r" "$(tail -n 30 "$LOGDIR/stop$r.log")"
	fi
done
UP=()
trap - EXIT
ktap_finish
