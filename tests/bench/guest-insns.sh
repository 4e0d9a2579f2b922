#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-insns.sh: the guest half of tests/bench/insns.sh. Each load runs
# between two markers (a window of the insn-prof plugin); the windows'
# names go to /hostout/windows in order, with what to divide them by.
#
#   h0 rack0 198.18.0.1   <-- drack pool -->  h1 rack0 198.18.0.2
#   v0 veth0 198.18.0.101 <-- veth pair  -->  v1 veth1 198.18.0.102
DRACK_TEST=insns
. "$(dirname "$0")/../net/lib.sh"

COUNT=${DRACK_INSNS_COUNT:-2000}
MB=${DRACK_INSNS_MB:-64}
REPS=${DRACK_INSNS_REPS:-3}
LOAD=${DRACK_INSNS_LOAD:?}
CHANNELS=${DRACK_INSNS_CHANNELS:-1}
MODPARAMS=${DRACK_INSNS_MODPARAMS:-}
D=$DRACK_LOGDIR

setup() {
	# shellcheck disable=SC2086 # words: "max_hosts=64 ..."
	drack_load $MODPARAMS && drack_start_fmd && drack_hosts 2 || return 1
	drack_netns_add v0 && drack_netns_add v1 || return 1
	ip link add veth0 netns v0 type veth peer name veth1 netns v1 || return 1
	ip -n v0 addr add 198.18.0.101/24 dev veth0 && ip -n v0 link set veth0 up &&
		ip -n v1 addr add 198.18.0.102/24 dev veth1 && ip -n v1 link set veth1 up || return 1
	wait_for 10 ping_once v1 198.18.0.101 || { echo "veth does not work"; return 1; }
	# One queue pair unless asked: with more, a flow's hash picks its
	# queue anew each run, and with it how much per-poll work (queue 0
	# takes returns back) each MB costs.
	in_ns h0 ethtool -L rack0 combined "$CHANNELS" &&
		in_ns h1 ethtool -L rack0 combined "$CHANNELS" || return 1
	bg load-h0 ip netns exec h0 "$LOAD" server 7000
	bg load-v0 ip netns exec v0 "$LOAD" server 7000
	wait_for 10 eval "in_ns h0 ss -Hltn 'sport = :7000' | grep -q LISTEN" &&
		wait_for 10 eval "in_ns v0 ss -Hltn 'sport = :7000' | grep -q LISTEN"
}
if ! setup >"$D/setup.log" 2>&1; then
	cat "$D/setup.log"
	exit 1
fi
cat /proc/kallsyms >/hostout/kallsyms
: >/hostout/windows

# window NAME DIVISOR UNIT CLIENT_NS ARGS...
window() {
	local name=$1 div=$2 unit=$3 ns=$4
	shift 4
	in_ns "$ns" "$LOAD" "$@" || { echo "# $name failed"; exit 1; }
	echo "$name $div $unit" >>/hostout/windows
}
rx_copybreak() {
	local ns
	for ns in h0 h1; do in_ns "$ns" ethtool --set-tunable rack0 rx-copybreak "$1"; done
}

# Paths alternate, REPS times: the timer ticks and scheduler work inside
# a window grow with its length, so counts move a little between runs.
for ((rep = 1; rep <= REPS; rep++)); do
	window rack0-pingpong "$COUNT" "round trip" h1 pingpong 198.18.0.1 7000 "$COUNT" 64
	window veth-pingpong "$COUNT" "round trip" v1 pingpong 198.18.0.101 7000 "$COUNT" 64
	window rack0-stream "$MB" MB h1 stream 198.18.0.1 7000 "$MB"
	window veth-stream "$MB" MB v1 stream 198.18.0.101 7000 "$MB"
	rx_copybreak 65536
	window rack0copy-stream "$MB" MB h1 stream 198.18.0.1 7000 "$MB"
	rx_copybreak 256
done
echo "h0 rack0: $(for k in rx_byref rx_copied rx_copied_scarce rx_copybreak tx_refs; do printf '%s %s ' "$k" "$(drack_stat h0 "$k")"; done)"
drack_kill_bg
drack_cleanup >/dev/null 2>&1
for ns in v0 v1; do ip netns del $ns 2>/dev/null; done
exit 0
