#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-bench.sh: the guest half of tests/bench/bench.sh.
#
#   h0 rack0 198.18.0.1   <-- drack pool -->  h1 rack0 198.18.0.2
#   v0 veth0 198.18.0.101 <-- veth pair  -->  v1 veth1 198.18.0.102
#
# Server in h0/v0, client in h1/v1; one measurement at a time.
DRACK_TEST=bench
. "$(dirname "$0")/../net/lib.sh"

SECS=${DRACK_BENCH_SECS:-10}
REPS=${DRACK_BENCH_REPS:-3}
D=$DRACK_LOGDIR

setup() {
	# shellcheck disable=SC2086 # DRACK_BENCH_INSMOD: words, e.g. "ref_queues=1"
	drack_load ${DRACK_BENCH_INSMOD:-} && drack_start_fmd && drack_hosts 2 || return 1
	if [[ ${DRACK_BENCH_NAPI_THREADED:-0} == 1 ]]; then	# NAPI in kthreads
		for ns in h0 h1; do in_ns "$ns" sh -c 'echo 1 >/sys/class/net/rack0/threaded' || return 1; done
	fi
	if [[ ${DRACK_BENCH_DOORBELL_OTHER_CPU:-0} == 1 ]]; then	# on another CPU
		for ns in h0 h1; do priv_flag "$ns" doorbell-other-cpu on || return 1; done
	fi
	drack_netns_add v0 && drack_netns_add v1 || return 1
	ip link add veth0 netns v0 type veth peer name veth1 netns v1 || return 1
	ip -n v0 addr add 198.18.0.101/24 dev veth0 && ip -n v0 link set veth0 up &&
		ip -n v1 addr add 198.18.0.102/24 dev veth1 && ip -n v1 link set veth1 up || return 1
	wait_for 10 ping_once v1 198.18.0.101 || { echo "veth does not work"; return 1; }
}
if ! setup >"$D/setup.log" 2>&1; then
	cat "$D/setup.log"
	exit 1
fi

# Each metric is measured REPS times, rack0 and veth alternating, and
# reported as the median: TCG timing swings a lot from run to run.
declare -A VAL=() RUNS=() UNIT=()
record() { # METRIC PATH VALUE UNIT
	RUNS[$1.$2]+="${RUNS[$1.$2]:+,}$3"
	UNIT[$1]=$4
}
median() { python3 -c 'import statistics, sys
v = [float(x) for x in sys.argv[1].split(",") if x != "nan"]
print("%.3f" % statistics.median(v) if v else "nan")' "$1"; }
emit_all() {
	local k lines=()
	for k in "${!RUNS[@]}"; do
		VAL[$k]=$(median "${RUNS[$k]}")
		lines+=("BENCH metric=${k%.*} path=${k##*.} value=${VAL[$k]} unit=${UNIT[${k%.*}]} runs=${RUNS[$k]}")
	done
	printf '%s\n' "${lines[@]}" | sort
}

# tcp NS SERVER_NS DST METRIC PATH STREAMS
tcp() {
	local out=$D/$4-$5.json v
	iperf_server "$2" 5201 >/dev/null || true
	in_ns "$1" timeout $((SECS + 60)) iperf3 -c "$3" -p 5201 -J -t "$SECS" -P "$6" >"$out" 2>"$out.err"
	v=$(python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))' "$out" 2>/dev/null) ||
		{ echo "# $5 $4 failed: $(tail -c 300 "$out")"; v=nan; }
	record "$4" "$5" "$v" Gbit/s
	drack_kill_bg
}

# tcp_procs NS SERVER_NS DST PATH: one single-stream iperf3 client per
# CPU, each pinned to its CPU (iperf3 3.12 sends all its streams from one
# thread): the case several queue pairs are for (one TX lock and one
# NAPI each); the sum of what the servers received.
tcp_procs() {
	local cpus i out pids=() sum=0 v
	cpus=$(nproc)
	for ((i = 0; i < cpus; i++)); do iperf_server "$2" $((5211 + i)) >/dev/null || true; done
	for ((i = 0; i < cpus; i++)); do
		out=$D/procs-$4-$i.json
		in_ns "$1" taskset -c "$i" timeout $((SECS + 60)) iperf3 -c "$3" -p $((5211 + i)) -J -t "$SECS" >"$out" 2>"$out.err" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || true; done
	for ((i = 0; i < cpus; i++)); do
		out=$D/procs-$4-$i.json
		v=$(python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))' "$out" 2>/dev/null) ||
			{ echo "# $4 tcp_procs $i failed: $(tail -c 300 "$out")"; sum=nan; break; }
		sum=$(python3 -c 'import sys; print("%.3f" % (float(sys.argv[1]) + float(sys.argv[2])))' "$sum" "$v")
	done
	record tcp_procs "$4" "$sum" Gbit/s
	drack_kill_bg
}

# channels N: queue pairs of rack0 on both hosts
channels() {
	local ns
	for ns in h0 h1; do in_ns "$ns" ethtool -L rack0 combined "$1"; done
}

# pp NS SERVER_NS DST PATH
pp() {
	local out=$D/pp-$4.log v
	bg "sockperf-$4" ip netns exec "$2" timeout $((SECS + 60)) sockperf sr --tcp -i "$3" -p 11111
	wait_for 10 eval "in_ns $2 ss -Hltn 'sport = :11111' | grep -q LISTEN"
	in_ns "$1" timeout $((SECS + 60)) sockperf pp --tcp -i "$3" -p 11111 -m 64 -t "$SECS" >"$out" 2>&1
	v=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1)
	[[ -n $v ]] || { echo "# sockperf $4 failed: $(tail -n 3 "$out")"; v=nan; }
	record tcp_pingpong_64b_latency "$4" "$v" us
	drack_kill_bg
}

# rx_copybreak N: rack0 of both hosts copies frames up to N bytes; 65536
# is receive by value (two copies per frame), 256 the default.
rx_copybreak() {
	local ns
	for ns in h0 h1; do in_ns "$ns" ethtool --set-tunable rack0 rx-copybreak "$1"; done
}
rx_counts() {
	local k
	for k in rx_byref rx_copied rx_copybreak; do printf '%s %s ' "$k" "$(drack_stat h0 "$k")"; done
}

echo "# guest $(uname -r), $(nproc) vCPUs, ${SECS} s per run, median of $REPS runs"
echo "# rack0's NAPI threaded: $(in_ns h0 cat /sys/class/net/rack0/threaded)"
echo "# rack0's $(in_ns h0 ethtool --show-priv-flags rack0 | grep doorbell-other-cpu | tr -s ' ')"
CHANNELS=$(in_ns h0 ethtool -l rack0 | awk '/^Combined:/ { v = $2 } END { print v }')
echo "# rack0-copy: rack0 with rx-copybreak 65536 (receive by value)"
echo "# rack0: $CHANNELS queue pairs; rack0-1q: one (ethtool -L rack0 combined 1)"
for ((rep = 1; rep <= REPS; rep++)); do
	for streams in 1 4; do
		tcp h1 h0 198.18.0.1 "tcp_${streams}stream" rack0 "$streams"
		rx_copybreak 65536
		tcp h1 h0 198.18.0.1 "tcp_${streams}stream" rack0-copy "$streams"
		rx_copybreak 256
		tcp v1 v0 198.18.0.101 "tcp_${streams}stream" veth "$streams"
	done
	pp h1 h0 198.18.0.1 rack0
	pp v1 v0 198.18.0.101 veth
	tcp_procs h1 h0 198.18.0.1 rack0
	channels 1
	tcp_procs h1 h0 198.18.0.1 rack0-1q
	channels "$CHANNELS"
	tcp_procs v1 v0 198.18.0.101 veth
done
emit_all

ratio() { python3 -c 'import sys; a, b = sys.argv[1:]; print("%.2f" % (float(a) / float(b)) if float(b) else "nan")' "$1" "$2" 2>/dev/null || echo nan; }
table=() ratios=()
for m in tcp_1stream tcp_4stream tcp_procs tcp_pingpong_64b_latency; do
	unit=Gbit/s; [[ $m == *latency ]] && unit=us
	r=${VAL[$m.rack0]:-nan} c=${VAL[$m.rack0-copy]:-${VAL[$m.rack0-1q]:--}} v=${VAL[$m.veth]:-nan}
	rv=$(ratio "$r" "$v")
	cv=-; [[ $c == - ]] || cv=$(ratio "$c" "$v")
	table+=("$(printf '%-30s %10s %10s %10s %11s %11s' "$m ($unit)" "$r" "$c" "$v" "$rv" "$cv")")
	ratios+=("BENCH metric=$m ratio_rack0_veth=$rv$([[ $c == - ]] || echo " ratio_rack0copy_veth=$cv")")
done
printf '%s\n' "${ratios[@]}"
echo
printf '%-30s %10s %10s %10s %11s %11s\n' metric rack0 rack0-copy veth rack0/veth copy/veth
printf '%s\n' "${table[@]}"
echo
echo "h0 (receives the streams) over the whole run: $(rx_counts)"
echo "Copies per frame: rack0 1 (transmit), rack0-copy 2 (transmit and receive)."
echo "tcp_procs: one pinned iperf3 client per CPU; its rack0-copy column is rack0-1q (one queue pair)."
echo
echo "Medians of $REPS runs. Throughput: iperf3 TCP, ${SECS} s, higher is better. Latency: sockperf ping-pong"
echo "TCP 64 B, avg one-way latency (RTT/2) in us, lower is better. TCG guest:"
echo "compare the ratios, not the absolute numbers."
drack_cleanup >/dev/null 2>&1
for ns in v0 v1; do ip netns del $ns 2>/dev/null; done
exit 0
