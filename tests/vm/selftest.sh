#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Smoke test of the VM harness: host tools work in the guest, output and exit
# codes come back, and the dmesg scan and the timeout really fail a run.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/lib.sh

vm_need_pkgs iproute2 ethtool iperf3
kver=$(vm_default_kver) || vm_die "no 6.1 kernel"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

# guest NAME EXTRA-ARGS... -- COMMAND: run it, keep rc/output/stderr in $tmp.
guest() {
	local name=$1; shift
	rc=0
	tools/rack/run-guest.sh --name "$name" --outdir "$tmp/$name" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	sed 's/^/# /' "$tmp/out" "$tmp/err"
}
result() { # RESULT(0 = ok) NAME
	n=$((n + 1))
	if (($1 == 0)); then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

main() {
	echo "TAP version 13"
	echo "1..4"

	guest selftest-tools --timeout 120 -- \
		'uname -r; ip link add v0 type veth peer name v1; ethtool -i v0; iperf3 --version; echo ok'
	r=0
	{ grep -qx "$kver" "$tmp/out" && grep -qx 'driver: veth' "$tmp/out" &&
		grep -q '^iperf 3' "$tmp/out" && [[ $(tail -n1 "$tmp/out") == ok && $rc == 0 ]]; } || r=1
	result $r "host tools run in the guest"

	guest selftest-exit --timeout 120 -- 'echo bye; exit 7'
	r=0
	[[ $rc == 7 && $(<"$tmp/out") == bye ]] || r=1
	result $r "guest exit code is propagated"

	guest selftest-warn --timeout 120 -- "echo 'WARNING: CPU: 0 PID: 1 at fake' >/dev/kmsg"
	r=0
	{ [[ $rc == 1 ]] && grep -q 'line .*WARNING: CPU: 0 PID: 1 at fake' "$tmp/err"; } || r=1
	result $r "a WARNING in dmesg fails the run"

	local t0=$SECONDS
	guest selftest-timeout --timeout 20 -- 'sleep 1000'
	echo "# timeout run took $((SECONDS - t0))s"
	r=0
	{ [[ $rc == 124 ]] && ((SECONDS - t0 <= 30)); } || r=1
	result $r "a hanging guest fails by timeout"
}

main | tests/vm/ktap-summary.sh
