#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# drv_net: rack0 as the kernel's NIC tooling sees it. Two hosts, h0 and h1.
#
# ethtool -c/-C: tx-frames caps how many references wait for one doorbell
# decision while the stack says more frames follow (xmit_more). Forced
# with UDP GSO: rack0 has no UDP segmentation offload, so each 32-segment
# send reaches rack0 as 32 frames, 31 of them with xmit_more. Every
# decision is a tx_doorbells or tx_doorbells_suppressed count, so K sends
# give at least K * ceil(32 / tx-frames) decisions, one per frame with
# tx-frames 1, and with batching at most half as many as frames (6.12
# shows one decision per send plus one per queue stop; on 6.1 some
# segment lists end their xmit_more early: up to 2.6 decisions per send
# seen): the
# bounds hold however fast h1 drains.
#
# On kernels whose netdev family shows queues (6.9 on): queue-get names
# rack0's NAPI while it is up, napi-get knows it, qstats-get agrees with
# ip -s link, and the kernel's own driver tests pass against rack0
# (tools/testing/selftests/drivers/net stats.py, queues.py, ping.py, from
# tests/kernel-selftests.sh, with h1 as the remote end).
#
# Threaded NAPI: rack0's NAPIs in kthreads, TCP both ways, then back.
# Busy polling: sockets polling rack0's NAPIs from process context.
#
# What breaks it: tx-frames not honoured or not bounded (coalesce_*), a
# NAPI that a doorbell cannot wake in a kthread (threaded_napi),
# queues not pointing at their own NAPI or left pointing after stop
# (queue_napi), qstats drifting from rtnl's counters (qstats_agree and the
# kernel's stats.py).
. "$(dirname "$0")/lib.sh"

ktap_plan 14
drack_setup 2 || ktap_finish

KSRC=${DRACK_KSRC:-$DRACK_TOP/tests/.linux-6.12/linux-source-6.12}
ynl() { in_ns h0 python3 "$DRACK_TESTDIR/ynl.py" "$KSRC" "$@"; }

tx_frames() { in_ns h0 ethtool -c rack0 | awk '$1 == "tx-frames:" { print $2 }'; }

coalesce_default() {
	local v
	v=$(tx_frames)
	echo "tx-frames $v"
	[[ $v == 64 ]]
}
ktap_check coalesce_default coalesce_default

coalesce_refused() {
	local bad
	for bad in "tx-frames 0" "tx-frames 100000" "rx-usecs 5" "tx-usecs 5"; do
		# shellcheck disable=SC2086
		if in_ns h0 ethtool -C rack0 $bad 2>/dev/null; then
			echo "ethtool -C rack0 $bad accepted"
			return 1
		fi
	done
	[[ $(tx_frames) == 64 ]] || { echo "a refused change changed tx-frames to $(tx_frames)"; return 1; }
	in_ns h0 ethtool -C rack0 tx-frames 8 || return 1
	[[ $(tx_frames) == 8 ]] || { echo "tx-frames 8 reads back as $(tx_frames)"; return 1; }
	in_ns h0 ethtool -C rack0 tx-frames 64
}
ktap_check coalesce_refused coalesce_refused

decisions() {
	echo $(($(drack_stat h0 tx_doorbells) + $(drack_stat h0 tx_doorbells_suppressed)))
}

# K sends of 32 segments each; prints the decisions they took and the
# queue stops meanwhile.
SENDS=100
gso_burst() {
	local before after stops pkts
	before=$(decisions) stops=$(drack_stat h0 tx_stops) pkts=$(in_ns h0 cat /sys/class/net/rack0/statistics/tx_packets)
	in_ns h0 python3 - "$SENDS" <<'PY' || return 1
import socket, sys, time
UDP_SEGMENT = 103
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, UDP_SEGMENT, 1200)
for _ in range(int(sys.argv[1])):
    s.sendto(b"x" * (1200 * 32), ("198.18.0.2", 9))
    time.sleep(0.005)  # let h1 drain: fewer stops
PY
	sleep 0.3
	after=$(decisions)
	echo $((after - before)) $(($(drack_stat h0 tx_stops) - stops)) $(($(in_ns h0 cat /sys/class/net/rack0/statistics/tx_packets) - pkts))
}

coalesce_batches() {
	local n d s f lo hi per
	for n in 64 8 1; do
		in_ns h0 ethtool -C rack0 tx-frames "$n" || return 1
		d=$(gso_burst) || { echo "UDP GSO sender failed"; return 1; }
		read -r d s f <<<"$d"
		per=$(((32 + n - 1) / n))
		lo=$((SENDS * per)) hi=$((f / 2))
		((n > 1)) || hi=$((f + 10))
		echo "tx-frames $n: $d decisions for $SENDS sends of 32 segments ($f frames), $s stops (expect $lo to $hi)"
		((d >= lo && d < hi)) || return 1
	done
	in_ns h0 ethtool -C rack0 tx-frames 64
}
ktap_check coalesce_batches coalesce_batches && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Threaded NAPI (/sys/class/net/rack0/threaded): every NAPI of rack0 runs
# in a kthread of its own, in process context, where the doorbells of
# the ram backend and the held-page timer must still reach it. TCP both
# ways on both hosts, then back to softirq polling.
napi_threads() { ps -eo comm | grep -c '^napi/rack0-' || true; }
threaded_napi() {
	local ns rc=0 before
	before=$(napi_threads)
	for ns in h0 h1; do
		echo 1 | in_ns "$ns" tee /sys/class/net/rack0/threaded >/dev/null || return 1
		[[ $(in_ns "$ns" cat /sys/class/net/rack0/threaded) == 1 ]] || { echo "$ns: threaded reads back 0"; return 1; }
	done
	echo "napi kthreads: $before before, $(napi_threads) threaded"
	(($(napi_threads) > before)) || { echo "no napi/rack0-N kthreads"; rc=1; }
	iperf_server h0 5301 >/dev/null || rc=1
	iperf_run h1 198.18.0.1 5301 "$DRACK_LOGDIR/threaded.json" -t 3 --bidir || rc=1
	iperf_result "$DRACK_LOGDIR/threaded.json" 1 || rc=1
	ping_ok h0 198.18.0.2 || rc=1
	for ns in h0 h1; do echo 0 | in_ns "$ns" tee /sys/class/net/rack0/threaded >/dev/null || rc=1; done
	ping_ok h1 198.18.0.1 || rc=1
	return $rc
}
ktap_check threaded_napi threaded_napi && diag "$(cat "$DRACK_LOGDIR/check.out")"

# Busy polling (net.core.busy_read, busy_poll): a socket that waits for
# data polls rack0's NAPI itself, from process context with a budget of
# its own, racing the softirq polls; ping-pong and a stream both ways.
busy_rx() { # NS: TcpExt BusyPollRxPackets, what busy polls received
	in_ns "$1" awk '/^TcpExt:/ { if (!h) { split($0, k); h = 1; next }
		for (i = 2; i <= NF; i++) if (k[i] == "BusyPollRxPackets") print $i }' /proc/net/netstat
}
busy_poll() {
	local old_read old_poll rc=0 out b0 b1
	old_read=$(sysctl -n net.core.busy_read) old_poll=$(sysctl -n net.core.busy_poll)
	b0=$(busy_rx h1)
	sysctl -qw net.core.busy_read=50 net.core.busy_poll=50 || return 1
	bg busy-sr ip netns exec h0 sockperf sr --tcp -i 198.18.0.1 -p 11112
	wait_for 10 eval "in_ns h0 ss -Hltn 'sport = :11112' | grep -q LISTEN" || rc=1
	out=$(in_ns h1 timeout 60 sockperf pp --tcp -i 198.18.0.1 -p 11112 -m 64 -t 2 2>&1) || rc=1
	grep -a 'avg-latency' <<<"$out" | sed 's/\x1b\[[0-9;]*m//g' | tail -n 1
	grep -aq 'avg-latency' <<<"$out" || { echo "sockperf: $(tail -n 3 <<<"$out")"; rc=1; }
	iperf_server h0 5302 >/dev/null || rc=1
	iperf_run h1 198.18.0.1 5302 "$DRACK_LOGDIR/busy.json" -t 2 --bidir || rc=1
	iperf_result "$DRACK_LOGDIR/busy.json" 1 || rc=1
	sysctl -qw net.core.busy_read="$old_read" net.core.busy_poll="$old_poll"
	b1=$(busy_rx h1)
	echo "h1 received $((b1 - b0)) packets in busy polls"
	((b1 > b0)) || { echo "no busy poll received anything"; rc=1; }
	return $rc
}
ktap_check busy_poll busy_poll && diag "$(cat "$DRACK_LOGDIR/check.out")"

# ---- the netdev family's queue objects (6.9 on) ----------------------------

have_qstats=1 why=
if ! printf '%s\n' 6.9 "$(uname -r)" | sort -V -C; then
	have_qstats=0 why="kernel $(uname -r) has no queue objects in the netdev family (6.9 on)"
elif [[ ! -e $KSRC/tools/net/ynl/lib/ynl.py ]]; then
	have_qstats=0 why="no $KSRC: run tests/kernel-selftests.sh on the host first"
fi
IFX=$(in_ns h0 cat /sys/class/net/rack0/ifindex)

queue_napi() {
	local q n id c
	q=$(ynl netdev queue-get-dump "{\"ifindex\": $IFX}") || return 1
	echo "queues: $q"
	c=$(in_ns h0 ethtool -l rack0 | awk '/^Combined:/ { v = $2 } END { print v }')
	id=$(python3 -c 'import json,sys
q, c = json.loads(sys.argv[1]), int(sys.argv[2])
ids = {(e["type"], e["id"]): e.get("napi-id") for e in q}
assert len(q) == 2 * c, "want %d queues of each type" % c
napis = []
for i in range(c):
    rx, tx = ids.get(("rx", i)), ids.get(("tx", i))
    assert rx and rx == tx, "want rx %d and tx %d on one NAPI" % (i, i)
    napis.append(rx)
assert len(set(napis)) == c, "queue pairs sharing a NAPI: %s" % napis
print(" ".join(map(str, napis)))' "$q" "$c") || return 1
	n=$(ynl netdev napi-get-dump "{\"ifindex\": $IFX}") || return 1
	echo "napis: $n"
	python3 -c 'import json,sys
have = [e["id"] for e in json.loads(sys.argv[1])]
assert all(int(i) in have for i in sys.argv[2].split())' "$n" "$id" ||
		{ echo "napis $id not all in napi-get"; return 1; }
	# Down: no queues to show, and the NAPI is not left behind them.
	in_ns h0 ip link set rack0 down
	q=$(ynl netdev queue-get-dump "{\"ifindex\": $IFX}")
	in_ns h0 ip link set rack0 up
	echo "down: $q"
	[[ $q == "[]" ]] || return 1
	wait_for 10 ping_ok h0 198.18.0.2
}

# qstats (device and queue scope) equal to rtnl's counters on a quiet link.
qstats_agree() {
	local i r q s
	for i in 1 2 3 4 5; do
		r=$(in_ns h0 ip -j -s link show rack0)
		q=$(ynl netdev qstats-get-dump "{\"ifindex\": $IFX}")
		s=$(ynl netdev qstats-get-dump "{\"ifindex\": $IFX, \"scope\": \"queue\"}")
		[[ $r == "$(in_ns h0 ip -j -s link show rack0)" ]] || continue
		python3 -c 'import json,sys
r = json.loads(sys.argv[1])[0]["stats64"]
dev = json.loads(sys.argv[2])[0]
qs = json.loads(sys.argv[3])
want = {"rx-packets": r["rx"]["packets"], "rx-bytes": r["rx"]["bytes"],
        "tx-packets": r["tx"]["packets"], "tx-bytes": r["tx"]["bytes"]}
for k, v in want.items():
    assert dev[k] == v, f"device {k} {dev[k]} != ip -s link {v}"
    assert sum(e.get(k, 0) for e in qs) == v, f"queues {k} != ip -s link {v}"
assert want["rx-packets"] > 0 and want["tx-packets"] > 0
print("qstats = ip -s link:", want)' "$r" "$q" "$s"
		return
	done
	echo "the link never went quiet"
	return 1
}

# kernel_test NAME: one of the kernel's driver tests against h0's rack0
kernel_test() {
	local ksft=$KSRC/tools/testing/selftests/drivers/net
	in_ns h0 env NETIF=rack0 LOCAL_V4=198.18.0.1 REMOTE_V4=198.18.0.2 \
		LOCAL_V6=2001:db8:d7::1 REMOTE_V6=2001:db8:d7::2 \
		REMOTE_TYPE=netns REMOTE_ARGS=h1 python3 "$ksft/$1.py" || return 1
}

if ((have_qstats)); then
	ktap_check queue_napi queue_napi
	ktap_check qstats_agree qstats_agree && diag "$(tail -n 1 "$DRACK_LOGDIR/check.out")"
	for t in stats queues ping; do
		ktap_check "kernel_$t" kernel_test "$t" && diag "$(grep -E '^(ok|not ok) ' "$DRACK_LOGDIR/check.out")"
	done
else
	for t in queue_napi qstats_agree kernel_stats kernel_queues kernel_ping; do
		ktap_skip "$t" "$why"
	done
fi

drack_finish
