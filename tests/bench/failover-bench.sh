#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# failover-bench.sh: what `make bench-failover` runs: tests/net/failover.sh
# in one guest (2 vCPUs) with FAILOVER_TRIALS trials (20) per fault, a
# hung NIC owner and a NIC link down, with heartbeat_ms 10 and
# nic_failover_ms 50. Prints each trial and "FAILOVER mode=... median_ms=
# ... worst_ms=..." lines (the kill to the first packet through the new
# NIC, timed on the wire), and the vNIC moves without a fault under load.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tests/install-deps.sh
make -s kmod tools
log=$(mktemp /tmp/drack-failover.XXXXXX)
rc=0
tools/rack/run-guest.sh --smp 2 --timeout 1500 --name drack-failover -- \
	"FAILOVER_TRIALS=${FAILOVER_TRIALS:-20} bash tests/guest-suite.sh --timeout 1400 failover" \
	>"$log" 2>&1 || rc=$?
grep -E 'trial [0-9]+:|FAILOVER|vNIC moves|^(not )?ok' "$log" || cat "$log"
echo "full output: $log"
exit "$rc"
