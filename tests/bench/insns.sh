#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# insns.sh: what `make bench-insns` runs. Guest instructions per 64-byte
# TCP round trip and per MB of one TCP stream, rack0 against veth (and
# rack0 by value), counted by QEMU itself: the guest runs under TCG with
# the insn-prof plugin (tests/bench/insn-prof.c), and insn-load marks the
# start and end of each load. Unlike time, or perf's cpu-clock samples in
# a TCG guest, instruction counts do not move with the host's load, so
# one run gives exact costs and a breakdown by kernel function.
# Env: DRACK_INSNS_COUNT (2000) round trips, DRACK_INSNS_MB (64) MB per
# stream, DRACK_INSNS_REPS (3) runs of each (paths alternating; the
# median run of each path is reported), DRACK_INSNS_TOP (25) functions
# listed per comparison, DRACK_INSNS_CHANNELS (1) rack0's queue pairs,
# DRACK_INSNS_MODPARAMS (none) drack.ko's parameters, e.g. max_hosts=64.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tests/install-deps.sh
make -s kmod tools bench-bin
out=$(mktemp -d /tmp/drack-insns.XXXXXX)
cp tests/bench/insn-prof.so tests/bench/insn-load "$out/"
env="DRACK_INSNS_COUNT=${DRACK_INSNS_COUNT:-2000} DRACK_INSNS_MB=${DRACK_INSNS_MB:-64}"
env+=" DRACK_INSNS_REPS=${DRACK_INSNS_REPS:-3} DRACK_INSNS_CHANNELS=${DRACK_INSNS_CHANNELS:-1}"
env+=" DRACK_INSNS_MODPARAMS='${DRACK_INSNS_MODPARAMS:-}'"
env+=" DRACK_INSNS_LOAD=$out/insn-load"
DRACK_VM_ACCEL=tcg tools/rack/run-guest.sh --smp 2 --timeout 1800 --name drack-insns \
	--outdir "$out/guest" --qemu-extra "-plugin $out/insn-prof.so,out=$out/counts" \
	-- "$env bash tests/bench/guest-insns.sh"
python3 tests/bench/insns-report.py --top "${DRACK_INSNS_TOP:-25}" \
	"$out/guest/kallsyms" "$out/guest/windows" "$out/counts"
echo "files in $out"
