#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-stages.sh: the guest half of tests/bench/stages.sh.
#
#   h0 rack0 198.18.0.1  <-- drack ram pool -->  h1 rack0 198.18.0.2
#
# h1 sends one iperf3 stream to h0 while perf samples every CPU.
DRACK_TEST=stages
. "$(dirname "$0")/../net/lib.sh"

SECS=${DRACK_BENCH_SECS:-8}
D=$DRACK_LOGDIR
command -v perf >/dev/null || { echo "no perf (linux-perf)"; exit 1; }
if ! { drack_load && drack_start_fmd && drack_hosts 2; } >"$D/setup.log" 2>&1; then
	cat "$D/setup.log"
	exit 1
fi
iperf_server h0 5201 >/dev/null

# The stages, in the order a frame meets them; each figure includes what
# the function calls (perf --children).
STAGES=(
	"tcp_sendmsg:sender's socket call, down to rack0 when not deferred"
	"drack_xmit:transmit: Buffer, copy into the pool, reference"
	"skb_copy_bits:  of which the copy into the pool"
	"drack_napi_poll:receiver's NAPI: rings, skbs, the stack below"
	"drack_rxref_skb:  skb around the Buffer (or the copy out)"
	"napi_gro_receive:  GRO and the TCP/IP stack up to the socket"
	"drack_rxref_reclaim:  Buffers handed back once let go of"
	"drack_rx_drain_returns:  the sender taking its Buffers back"
	"tcp_recvmsg:receiver's socket call: copy to user space"
)

# run MODE COPYBREAK: one sampled stream, a table row per stage
run() {
	local mode=$1 cb=$2 ns frames0 frames secs_total
	for ns in h0 h1; do in_ns "$ns" ethtool --set-tunable rack0 rx-copybreak "$cb"; done
	frames0=$(drack_stat h1 tx_refs)
	in_ns h1 iperf3 -c 198.18.0.1 -t $((SECS + 4)) >"$D/iperf-$mode.txt" 2>&1 &
	local client=$!
	sleep 2
	perf record -q -a -g -e cpu-clock -o "$D/perf-$mode.data" -- sleep "$SECS" 2>"$D/perf-$mode.err"
	wait "$client"
	frames=$(($(drack_stat h1 tx_refs) - frames0))
	# Frames sent while perf sampled: the stream's rate times SECS.
	frames=$((frames * SECS / (SECS + 4)))
	secs_total=$((SECS * $(nproc)))
	perf report -i "$D/perf-$mode.data" --children --stdio -g none --sort symbol 2>/dev/null |
		awk -v mode="$mode" -v frames="$frames" -v cpu_ns="$((secs_total * 1000000000))" \
		    -v stages="$(printf '%s\n' "${STAGES[@]}")" '
		$1 ~ /%$/ && $2 ~ /%$/ { sub(/%/, "", $1); pct[$NF] = $1 }
		END {
			n = split(stages, s, "\n")
			printf "%s: %d data frames in the sampled %s s, %s\n", mode, frames, cpu_ns / 1e9, "CPU time of all vCPUs"
			printf "  %-24s %8s %12s  %s\n", "function", "% CPU", "ns/frame", "stage"
			for (i = 1; i <= n; i++) {
				split(s[i], f, ":")
				p = (f[1] in pct) ? pct[f[1]] : 0
				printf "  %-24s %8.2f %12.0f  %s\n", f[1], p, frames ? p / 100 * cpu_ns / frames : 0, f[2]
			}
		}'
	grep -E "receiver$" "$D/iperf-$mode.txt" | sed "s/^/  $mode iperf3: /"
}

echo "# guest $(uname -r), $(nproc) vCPUs, one iperf3 stream h1 -> h0, perf cpu-clock, ${SECS} s sampled"
run byref 256
run byvalue 65536
drack_cleanup >/dev/null 2>&1
exit 0
