# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the multi-VM tests (tests/multi/*.sh): KTAP output and an
# emulated rack (tools/rack/drack-rack) of their own. Run on the host, as root.
#
#   rack_up N TRANSPORT [start options]   boot the rack, one KTAP result "start"
#   x VM CMD                              run CMD in VM, its output to stdout
#   xq VM CMD                             the same, quiet; only the status
#   rack_down                             stop it, one KTAP result "stop"

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TEST=${TEST:-$(basename "$0" .sh)}
LOGDIR=${DRACK_LOGDIR:-/tmp/drack-multi/$TEST}
RACK_STATE=$LOGDIR/rack
RACK=("$TOP/tools/rack/drack-rack" --dir "$RACK_STATE")
mkdir -p "$LOGDIR"

# shellcheck source=../net/lib.sh
# ip4/ip6, host_mac and KTAP helpers; its netns cleanup finds nothing here.
DRACK_TEST=$TEST DRACK_LOGDIR=$LOGDIR
. "$TOP/tests/net/lib.sh"
trap - EXIT INT TERM
RACK_UP=0

x() { local vm=$1; shift; "${RACK[@]}" exec -t "${XT:-120}" "$vm" "$*"; }
xq() { x "$@" >/dev/null 2>&1; }

rack_up() {
	local n=$1 transport=$2 out=$LOGDIR/start.log; shift 2
	"${RACK[@]}" stop >/dev/null 2>&1
	rm -rf "$RACK_STATE"
	if "${RACK[@]}" start -n "$n" --transport "$transport" "$@" >"$out" 2>&1; then
		RACK_UP=1
		ktap_ok start
		diag "$(grep -iE 'up|ready' "$out" | tail -n 2)"
	else
		ktap_fail start "$(tail -n 30 "$out")"
		"${RACK[@]}" stop >/dev/null 2>&1
		ktap_finish
	fi
	trap 'rack_abort' EXIT
}

rack_abort() { ((RACK_UP)) && "${RACK[@]}" stop >/dev/null 2>&1; }

# stop: every VM powers off cleanly, no kernel problem reports
rack_down() {
	local out=$LOGDIR/stop.log rc=0
	"${RACK[@]}" stop >"$out" 2>&1 || rc=$?
	RACK_UP=0
	trap - EXIT
	if ((rc == 0)); then ktap_ok stop; else ktap_fail stop "$(tail -n 30 "$out")"; fi
	ktap_finish
}

# inflight VM: Buffers of VM's host lent out and not back
inflight() {
	x "$1" "ethtool -S rack0" | awk '$1 ~ /^buf[0-9]+k_inflight:$/ { s += $2 } END { print s + 0 }'
}
home() { local v; for v; do (($(inflight "$v") == 0)) || return 1; done; }

# vm_stat VM NAME: one ethtool -S counter of VM's rack0
vm_stat() { x "$1" "ethtool -S rack0" | awk -v k="$2:" '$1 == k { print $2 }'; }

# stream_to TO FROM BYTES: BYTES of TCP from VM FROM to VM TO
# (tests/net/stream.py); true if they arrive whole (SHA-256 end to end)
stream_to() {
	local to=$1 from=$2 sent got pid
	x "$to" "timeout 60 python3 $TOP/tests/net/stream.py recv 5301" >"$LOGDIR/recv.out" 2>&1 &
	pid=$!
	sleep 2
	sent=$(x "$from" "timeout 60 python3 $TOP/tests/net/stream.py send $(ip4 "$to") 5301 $3") ||
		{ echo "VM $from: send failed: $sent"; wait "$pid"; return 1; }
	wait "$pid"
	got=$(cat "$LOGDIR/recv.out")
	echo "sent $sent, received $got"
	[[ -n $sent && $sent == "$got" ]]
}
