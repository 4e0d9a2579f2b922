#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The emulated rack, run inside the guest by rack-demo.sh:
#
#   h0 ---+                    one ram pool (/dev/drack_pool0)
#   h1 ---+-- rack0 (drack) -- 2 MB Sections granted by drack-fmd
#   h2 ---+                    refs on ref_queue[src], Buffers returned
#   h3 ---+
#
# Each host is a network namespace with its own rack0 (198.18.0.N/24).
set -euo pipefail
cd "$(dirname "$0")/../.."

HOSTS=4
say() { printf '\n== %s\n' "$*"; }
cleanup() {
	set +e
	pkill -x iperf3; pkill -x redis-server; pkill -x drack-fmd
	for ((i = 0; i < HOSTS; i++)); do ip netns del "h$i" 2>/dev/null; done
	sleep 1
	rmmod drack 2>/dev/null
}
trap cleanup EXIT

say "loading drack.ko and starting drack-fmd"
insmod kmod/drack.ko
tools/drack-fmd/drack-fmd -v >/tmp/fmd.log 2>&1 &
for ((i = 0; i < HOSTS; i++)); do
	ip netns add "h$i"
	ip link add rack0 netns "h$i" type drack
	ip -n "h$i" link set lo up
	ip -n "h$i" link set rack0 up
	ip -n "h$i" addr add "198.18.0.$((i + 1))/24" dev rack0
	ip -n "h$i" addr add "2001:db8:d7::$((i + 1))/64" dev rack0 nodad
done
sleep 1
ip -n h0 -br link show rack0
ip netns exec h0 ethtool -i rack0 | head -3

say "ping from h0 to every host (IPv4 and IPv6)"
for ((i = 1; i < HOSTS; i++)); do
	ip netns exec h0 ping -c 2 -q "198.18.0.$((i + 1))" | tail -1
	ip netns exec h0 ping -6 -c 2 -q "2001:db8:d7::$((i + 1))" | tail -1
done

say "iperf3: h1, h2 and h3 send to h0 at once (5 s)"
for ((i = 1; i < HOSTS; i++)); do
	ip netns exec h0 iperf3 -s -1 -D -p $((5200 + i))
done
sleep 0.5
pids=()
for ((i = 1; i < HOSTS; i++)); do
	ip netns exec "h$i" timeout 60 iperf3 -c 198.18.0.1 -p $((5200 + i)) \
		-t 5 >"/tmp/iperf.$i" 2>&1 &
	pids+=($!)
done
wait "${pids[@]}"
for ((i = 1; i < HOSTS; i++)); do
	printf 'h%d -> h0: %s\n' "$i" "$(grep receiver "/tmp/iperf.$i" |
		awk '{print $7, $8}')"
done

say "redis-server on h0, redis-benchmark from h3"
ip netns exec h0 redis-server --bind 198.18.0.1 --port 6390 --save '' \
	--appendonly no --protected-mode no --daemonize yes >/dev/null
sleep 1
ip netns exec h3 timeout 120 redis-benchmark -h 198.18.0.1 -p 6390 -q \
	-n 2000 -t set,get | tr '\r' '\n' | grep 'requests per second'

say "counters of h0's rack0 (ethtool -S, non-zero)"
sleep 1
ip netns exec h0 ethtool -S rack0 | awk -F': ' '$2 != 0'
say "Section grants made by drack-fmd"
grep granted /tmp/fmd.log || true
say "done: every Buffer is back with its owner when inflight is 0 above"
