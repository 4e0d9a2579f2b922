#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh [stages]: what `make bench` and `make bench-stages` run, in one
# guest (2 vCPUs).
#
# bench.sh: rack0 against veth, measured in the same guest run, so that
# only the ratios mean anything: iperf3 TCP throughput (10 s, 1 and 4
# streams) and sockperf TCP ping-pong latency (64 B, 10 s), rack0 also by
# value (rx-copybreak 65536). Prints a table and one
# "BENCH metric=... path=... value=... unit=..." line per measurement.
# Env: DRACK_BENCH_SECS (10) the length of every run, DRACK_BENCH_REPS (3)
# how many runs of each (paths alternating; medians reported),
# DRACK_BENCH_INSMOD module parameters (ref_queues=1: one queue pair),
# DRACK_BENCH_NAPI_THREADED=1 rack0's NAPI in kernel threads
# (/sys/class/net/rack0/threaded) on both hosts,
# DRACK_BENCH_DOORBELL_OTHER_CPU=1 doorbells polled on another CPU than
# the sender's (private flag doorbell-other-cpu on on both hosts).
#
# bench.sh stages: where one frame's cost goes on rack0: one iperf3
# stream over the ram pool, sampled by perf (cpu-clock, call graphs,
# every CPU); each stage's share of all CPU time (inclusive of what it
# calls) and its cost per data frame, by reference and by value.
# Env: DRACK_BENCH_SECS (8) the length of each sampled run.
set -euo pipefail
cd "$(dirname "$0")/../.."

case ${1:-} in
"") guest=guest-bench.sh name=drack-bench
    env="DRACK_BENCH_SECS=${DRACK_BENCH_SECS:-10} DRACK_BENCH_REPS=${DRACK_BENCH_REPS:-3}"
    env+=" DRACK_BENCH_INSMOD='${DRACK_BENCH_INSMOD:-}' DRACK_BENCH_NAPI_THREADED=${DRACK_BENCH_NAPI_THREADED:-0}"
    env+=" DRACK_BENCH_DOORBELL_OTHER_CPU=${DRACK_BENCH_DOORBELL_OTHER_CPU:-0}" ;;
stages) guest=guest-stages.sh name=drack-stages env="DRACK_BENCH_SECS=${DRACK_BENCH_SECS:-8}" ;;
*) echo "usage: $0 [stages]" >&2; exit 2 ;;
esac
bash tests/install-deps.sh
make -s kmod tools
tools/rack/run-guest.sh --smp 2 --timeout 900 --name "$name" -- "$env bash tests/bench/$guest"
