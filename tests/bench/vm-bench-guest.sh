#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-bench-guest.sh ID SECS REPS: one VM of tests/bench/vm-bench.sh.
# VM 0 formats the pool, runs drack-fmd and the servers; VM 1 measures
# rack0 (shared pool), virtio-net over a tap with vnet_hdr offloads and
# virtio-net over a QEMU socket netdev, alternately. Results go to /hostshare; VM 0 stops when VM 1 is done.
set -u
cd "$(dirname "$0")/../.." || exit 2
id=$1 SECS=$2 REPS=$3 top=$PWD share=/hostshare
fmt=
((id == 0)) && fmt=pool_format=1
insmod kmod/drack.ko ram_pool_mb=0 $fmt || exit 1
ip link set lo up
for _ in $(seq 100); do tools/drackctl/drackctl link add rack0 pool 0 host "$id" 2>/dev/null && break; sleep 0.3; done
ip addr add "198.18.0.$((id + 1))/24" dev rack0
ip link set rack0 up
# The virtio-net NIC on the socket netdev: the one with our test MAC.
modprobe virtio_net 2>/dev/null
for _ in $(seq 50); do grep -qs "52:54:00:da:c0:0$id" /sys/class/net/*/address && break; sleep 0.2; done
nic=$(grep -l "52:54:00:da:c0:0$id" /sys/class/net/*/address | head -n 1 | cut -d/ -f5)
[[ -n $nic ]] || { echo "no virtio-net test NIC"; ls /sys/class/net; exit 1; }
ip addr add "10.99.0.$((id + 1))/24" dev "$nic"
ip link set "$nic" up
# The virtio-net NIC on the host bridge's tap (vnet_hdr offloads).
for _ in $(seq 50); do grep -qs "52:54:00:da:c1:0$id" /sys/class/net/*/address && break; sleep 0.2; done
tapnic=$(grep -l "52:54:00:da:c1:0$id" /sys/class/net/*/address | head -n 1 | cut -d/ -f5)
[[ -n $tapnic ]] || { echo "no virtio-net tap NIC"; ls /sys/class/net; exit 1; }
ip addr add "10.98.0.$((id + 1))/24" dev "$tapnic"
ip link set "$tapnic" up

if ((id == 0)); then
	tools/drack-fmd/drack-fmd -f -c /dev/null >/tmp/fmd.log 2>&1 &
	iperf3 -s -D
	sockperf sr --tcp -i 198.18.0.1 -p 11111 >/dev/null 2>&1 &
	sockperf sr --tcp -i 10.99.0.1 -p 11112 >/dev/null 2>&1 &
	sockperf sr --tcp -i 10.98.0.1 -p 11113 >/dev/null 2>&1 &
	touch "$share/ready0"
	for _ in $(seq 3000); do [[ -e $share/done1 ]] && break; sleep 0.5; done
	tools/drackctl/drackctl -s link show rack0 >"$share/vm0-counters.txt" 2>&1
	exit 0
fi

for _ in $(seq 600); do [[ -e $share/ready0 ]] && break; sleep 0.5; done
for dst in 198.18.0.1 10.99.0.1 10.98.0.1; do
	for _ in $(seq 60); do ping -c 1 -W 1 "$dst" >/dev/null && break; sleep 0.5; done
done
out=$share/results.txt
: >"$out"
tcp() { # PATH DST STREAMS
	local v
	v=$(timeout $((SECS + 60)) iperf3 -c "$2" -J -t "$SECS" -P "$3" 2>/dev/null |
		python3 -c 'import json,sys; print("%.3f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))' 2>/dev/null) || v=nan
	echo "tcp_${3}stream $1 $v" >>"$out"
}
pp() { # PATH DST PORT
	local v
	v=$(timeout $((SECS + 60)) sockperf pp --tcp -i "$2" -p "$3" -m 64 -t "$SECS" 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1)
	echo "tcp_pingpong_64b_latency $1 ${v:-nan}" >>"$out"
}
for ((rep = 1; rep <= REPS; rep++)); do
	for streams in 1 4; do
		tcp rack0 198.18.0.1 "$streams"
		tcp tap 10.98.0.1 "$streams"
		tcp virtio 10.99.0.1 "$streams"
	done
	pp rack0 198.18.0.1 11111
	pp tap 10.98.0.1 11113
	pp virtio 10.99.0.1 11112
done
tools/drackctl/drackctl -s link show rack0 >"$share/vm1-counters.txt" 2>&1
touch "$share/done1"
