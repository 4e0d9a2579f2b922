#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-stages.sh: the guest half of `tests/bench/bench.sh stages`.
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
	"napi_gro_receive:  GRO, holding frames to merge"
	"netif_receive_skb_list_internal:  the IP/TCP stack, GRO flushed"
	"tcp_v4_rcv:    of which TCP, up to the socket's queue"
	"drack_rxref_reclaim:  Buffers handed back once let go of"
	"drack_rx_drain_returns:  the sender taking its Buffers back"
	"tcp_recvmsg:receiver's socket call: copy to user space"
)

# run MODE COPYBREAK: one sampled stream, a table row per stage
run() {
	local mode=$1 cb=$2 ns frames0 frames secs_total
	for ns in h0 h1; do in_ns "$ns" ethtool --set-tunable rack0 rx-copybreak "$cb"; done
	in_ns h1 iperf3 -c 198.18.0.1 -t $((SECS + 6)) >"$D/iperf-$mode.txt" 2>&1 &
	local client=$!
	sleep 2
	frames0=$(drack_stat h1 tx_refs)
	perf record -q -a -g -e cpu-clock -o "$D/perf-$mode.data" -- sleep "$SECS" >"$D/perf-$mode.err" 2>&1 ||
		{ echo "perf record failed:"; cat "$D/perf-$mode.err"; }
	frames=$(($(drack_stat h1 tx_refs) - frames0))
	wait "$client"
	perf report -i "$D/perf-$mode.data" --children --stdio -g none --sort symbol >"$D/report-$mode.txt" 2>&1 ||
		{ echo "perf report failed:"; tail -n 5 "$D/report-$mode.txt"; }
	secs_total=$((SECS * $(nproc)))
	awk -v mode="$mode" -v frames="$frames" -v cpu_ns="$((secs_total * 1000000000))" \
		    -v stages="$(printf '%s\n' "${STAGES[@]}")" '
		$1 ~ /%$/ && $2 ~ /%$/ && $3 ~ /^\[/ { sub(/%/, "", $1); if (!($4 in pct)) pct[$4] = $1 }
		END {
			n = split(stages, s, "\n")
			printf "%s: %d data frames in the sampled %s s, %s\n", mode, frames, cpu_ns / 1e9, "CPU time of all vCPUs"
			printf "  %-32s %8s %12s  %s\n", "function", "% CPU", "ns/frame", "stage"
			for (i = 1; i <= n; i++) {
				c = index(s[i], ":")
				fn = substr(s[i], 1, c - 1)
				p = (fn in pct) ? pct[fn] : 0
				printf "  %-32s %8.2f %12.0f  %s\n", fn, p, frames ? p / 100 * cpu_ns / frames : 0, substr(s[i], c + 1)
			}
		}' "$D/report-$mode.txt"
	grep -E "receiver$" "$D/iperf-$mode.txt" | sed "s/^/  $mode iperf3: /"
	grep -q "drack_xmit" "$D/report-$mode.txt" ||
		{ echo "  no drack_xmit in perf's report:"; grep -v '^#' "$D/report-$mode.txt" | head -n 8 | sed 's/^/    /'; }
}

echo "# guest $(uname -r), $(nproc) vCPUs, one iperf3 stream h1 -> h0, perf cpu-clock, ${SECS} s sampled"
# perf's first start reads every symbol, seconds under TCG: not in a run.
perf record -q -a -g -e cpu-clock -o "$D/warmup.data" -- sleep 1 >/dev/null 2>&1
perf report -i "$D/warmup.data" --stdio >/dev/null 2>&1
run byref 256
run byvalue 65536
drack_cleanup >/dev/null 2>&1
exit 0
