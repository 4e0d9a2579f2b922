#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# eval.sh: what `make eval` runs. DRack's application evaluation
# (Documentation/evaluation.rst) on the lab racks of
# tests/multi/nic-lab.bash: two racks of two TCG VMs, every VM's core NIC
# capped with tbf at theta x C and exported to its rack's pool.
#
#   H0 = rack 0 VM 0   H1 = rack 0 VM 1   H2 = rack 1 VM 0   H3 = rack 1 VM 1
#
# Two ways to the same hosts (routes set up once, tests/eval/lib-eval.bash):
#   tor    every host uses only its own NIC, intra-rack traffic too (the
#          core network is the ToR switch): peers' core NIC addresses,
#          plain TCP
#   drack  peers' rack0v0 addresses: inside a rack those are routed over
#          rack0 (the pool), across racks over the rack's NIC pool with
#          MPTCP (drackctl nic mptcp on; the server announces rack0v1)
#
# Workloads, per theta, mode and run:
#   redis  redis-server on H0 and H2, tests/eval/redis-load on H1 and H3
#          (Zipf keys, 10:1 GET/SET): the hot keys are H0's, so H0's NIC
#          is the incast point
#   ring   Gloo ring all-reduce of the gradient between H0..H3
#   ps     parameter server (rank 0 = H0) exchange of the gradient
# then intra-rack transaction latency (tests/eval/tcp-rr H0 -> H1): the
# ToR path, rack0 with receive by reference, rack0 copying (rx-copybreak
# 65536); and CXL latency (pool_delay_ns) for redis and rack0 tcp-rr.
#
# Env: EVAL_THETAS ("0.25 1"; the full sweep: "0.125 0.25 0.5 0.75 1"),
# EVAL_C (5mbit: C, the NIC rate at theta 1), EVAL_REPS (3), EVAL_SECS
# (10, per redis run), EVAL_GRAD_BYTES (262144), EVAL_ITERS (3, per
# collective run), EVAL_DELAYS ("0 300 1000"), EVAL_RR_COUNT (500),
# EVAL_RR_BYTES (4096), EVAL_OUT (.eval-results/DATE-COMMIT).
# Needs root; run alone (TCG VMs want every CPU of the machine).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
TEST="eval"
export DRACK_NIC_RATE=${EVAL_C:-5mbit}
. tests/multi/lib.sh
. tests/multi/nic-lab.bash
. tests/eval/lib-eval.bash

THETAS=${EVAL_THETAS:-0.25 1} REPS=${EVAL_REPS:-3} SECS=${EVAL_SECS:-10}
GRAD=${EVAL_GRAD_BYTES:-262144} ITERS=${EVAL_ITERS:-3} DELAYS=${EVAL_DELAYS:-0 300 1000}
RR_COUNT=${EVAL_RR_COUNT:-500} RR_BYTES=${EVAL_RR_BYTES:-4096}
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
OUT=${EVAL_OUT:-.eval-results/$(date -u +%Y%m%d-%H%M)-$COMMIT}
XT=900

bash tests/install-deps.sh || exit 1
eval_deps || exit 1
make -s kmod tools || exit 1
make -s -C tests/eval || exit 1
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
RAW=$OUT/raw.txt
: >"$RAW"
say() { echo "# $*" | tee -a "$OUT/log.txt"; }
T0=$SECONDS

{
	echo "commit=$COMMIT$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
	echo "date=$(date -u +%FT%TZ)"
	echo "machine=$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024)) MB"
	echo "kernel=host $(uname -r), guests $(vm_default_kver)"
	echo "command=make eval EVAL_THETAS=\"$THETAS\" EVAL_C=$DRACK_NIC_RATE EVAL_REPS=$REPS EVAL_SECS=$SECS EVAL_GRAD_BYTES=$GRAD EVAL_ITERS=$ITERS EVAL_DELAYS=\"$DELAYS\" EVAL_RR_COUNT=$RR_COUNT EVAL_RR_BYTES=$RR_BYTES"
} >"$OUT/meta.txt"
sed 's/^/# /' "$OUT/meta.txt"

trap nic_lab_abort EXIT
trap "exit 143" TERM INT
nic_lab_bench_up || exit 1
eval_routes >"$LOGDIR/routes.out" 2>&1 || { cat "$LOGDIR/routes.out"; exit 1; }
eval_servers >"$LOGDIR/servers.out" 2>&1 || { cat "$LOGDIR/servers.out"; exit 1; }
say "lab up in $((SECONDS - T0)) s: C = $DRACK_NIC_RATE, thetas $THETAS, $REPS runs (log: $LOGDIR)"

# The theta sweep: both modes in turn within each run.
first=1
for th in $THETAS; do
	eval_theta "$th" || exit 1
	for rep in $(seq "$REPS"); do
		for mode in tor drack; do
			run_redis "$mode" "$th" 0 "$rep"
			util=
			((first && rep == 1)) && util=1
			run_coll ring "$mode" "$th" "$rep" "$util"
			run_coll ps "$mode" "$th" "$rep"
		done
	done
	say "theta $th done at $((SECONDS - T0)) s"
	first=0
done

# Intra-rack transaction latency and CXL latency, at the last theta.
EVAL_PHASE=cxl
for rep in $(seq "$REPS"); do
	for d in $DELAYS; do
		eval_delay "$d" || exit 1
		if ((d == 0)); then
			run_rr tor on "$th" 0 "$rep"
			run_rr drack off "$th" 0 "$rep"
		fi
		run_rr drack on "$th" "$d" "$rep"
		run_redis drack "$th" "$d" "$rep"
	done
	eval_delay 0 || exit 1
done
say "runs done at $((SECONDS - T0)) s"

for v in 0 1; do cp "$LOGDIR/rack0/vm$v"/util-*.txt "$OUT/" 2>/dev/null; done
rc=0
for r in "${NIC_RACKS[@]}"; do nic_lab_stop "$r" || { say "rack $r: stop reported a problem"; rc=1; }; done
NIC_LAB_UP=()
trap - EXIT

python3 tests/eval/report.py "$OUT" | tee "$OUT/summary.txt" || rc=1
bash tests/eval/plot.sh "$OUT" || rc=1
say "results, plots: $OUT ($((SECONDS - T0)) s in all)"
exit $rc
