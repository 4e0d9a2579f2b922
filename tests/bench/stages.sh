#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# stages.sh: what `make bench-stages` runs. Where one frame's cost goes on
# rack0: one guest (2 vCPUs), one iperf3 stream h1 -> h0 over the ram
# pool, sampled by perf (cpu-clock, call graphs, every CPU). Prints each
# stage's share of all CPU time (inclusive of what it calls) and its
# cost per data frame, receive by reference and by value (rx-copybreak
# 65536) side by side.
#
# Env: DRACK_BENCH_SECS (8) the length of each sampled run.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tests/install-deps.sh
make -s kmod tools
tools/rack/run-guest.sh --smp 2 --timeout 600 --name drack-stages -- \
	"DRACK_BENCH_SECS=${DRACK_BENCH_SECS:-8} bash tests/bench/guest-stages.sh"
