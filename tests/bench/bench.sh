#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh: what `make bench` runs. rack0 against veth, measured in the
# same guest run (2 vCPUs), so that only the ratios mean anything:
# iperf3 TCP throughput (10 s, 1 and 4 streams) and sockperf TCP
# ping-pong latency (64 B, 10 s). Prints a table and one
# "BENCH metric=... path=... value=... unit=..." line per measurement.
#
# Env: DRACK_BENCH_SECS (10) the length of every run, DRACK_BENCH_REPS (3)
# how many runs of each (rack0 and veth alternating; medians reported).
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tests/install-deps.sh
make -s kmod tools
tools/rack/run-guest.sh --smp 2 --timeout 900 --name drack-bench -- \
	"DRACK_BENCH_SECS=${DRACK_BENCH_SECS:-10} DRACK_BENCH_REPS=${DRACK_BENCH_REPS:-3} bash tests/bench/guest-bench.sh"
