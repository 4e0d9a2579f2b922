#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-bench.sh: what `make bench-vms` runs. Two VMs (1 vCPU each) joined two
# ways at once: rack0 over one shared pool (ivshmem-doorbell: MSI-X
# doorbells through drack-ivshmem-server; DRACK_BENCH_TRANSPORT=ivshmem for
# ivshmem-plain and polling) and two virtio-net links: the strongest these
# machines allow, a tap on a host bridge with vnet_hdr (TSO, GSO and
# checksum offloads; no vhost-net here), and the weaker QEMU socket netdev
# (no offloads). iperf3 TCP (1 and 4 streams) and sockperf TCP ping-pong
# latency between the same two VMs, alternating paths, medians of
# DRACK_BENCH_REPS runs. Prints a table and "BENCH metric=...
# ratio_rack0_tap=... ratio_rack0_socket=..." lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/lib.sh

SECS=${DRACK_BENCH_SECS:-10} REPS=${DRACK_BENCH_REPS:-3}
bash tests/install-deps.sh
make -s kmod tools

share=$(mktemp -d /tmp/drack-vmbench.XXXXXX)
port=$((20000 + RANDOM % 20000))

# The tap baseline: a bridge and one vnet_hdr tap per VM, ours alone.
br=drb$$
taps=("${br}t0" "${br}t1")
net_cleanup() {
	ip link del "${taps[0]}" 2>/dev/null || true
	ip link del "${taps[1]}" 2>/dev/null || true
	ip link del "$br" 2>/dev/null || true
}
ip link add "$br" type bridge
for t in "${taps[@]}"; do
	ip tuntap add dev "$t" mode tap vnet_hdr
	ip link set "$t" master "$br" up
done
ip link set "$br" up
trap 'net_cleanup; vm_cleanup' EXIT
if [[ ${DRACK_BENCH_TRANSPORT:-doorbell} == doorbell ]]; then
	sock=$share/ivshmem.sock
	tools/ivshmem-server/drack-ivshmem-server -S "$sock" -m "$share/pool" -l 64M -n 1 2>"$share/server.log" &
	server=$!
	trap 'kill $server 2>/dev/null; net_cleanup; vm_cleanup' EXIT
	for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
	pool_args=$(vm_ivshmem_doorbell_args "$sock")
else
	pool_args=$(vm_ivshmem_args "$(vm_shm_create 64M)")
fi
echo "# rack0 transport: ${DRACK_BENCH_TRANSPORT:-doorbell}"
nic() { echo "-netdev socket,id=s1,$1 -device virtio-net-pci,netdev=s1,mac=52:54:00:da:c0:0$2"; }
tap() { echo "-netdev tap,id=t1,ifname=${taps[$1]},script=no,downscript=no,vnet_hdr=on -device virtio-net-pci,netdev=t1,mac=52:54:00:da:c1:0$1"; }
timeout=$((REPS * (9 * SECS + 180) + 300))
for i in 0 1; do
	how="listen=127.0.0.1:$port"; ((i)) && how="connect=127.0.0.1:$port"
	vm_start "bench$i" --smp 1 --mem 768 --timeout "$timeout" --share "$share" \
		--qemu-extra "$pool_args $(nic "$how" "$i") $(tap "$i")" -- \
		"bash tests/bench/vm-bench-guest.sh $i $SECS $REPS"
	((i)) || sleep 2	# the listening side first
done
rc=0
vm_wait_all || rc=$?

python3 - "$share/results.txt" "$REPS" "$SECS" <<'PY'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    m, path, v = line.split()
    try:
        vals.setdefault((m, path), []).append(float(v))
    except ValueError:
        pass
print("# two TCG VMs, 1 vCPU each, %s s per run, median of %s runs" % (sys.argv[3], sys.argv[2]))
rows = []
for m, unit in (("tcp_1stream", "Gbit/s"), ("tcp_4stream", "Gbit/s"), ("tcp_pingpong_64b_latency", "us")):
    med = {p: statistics.median(vals.get((m, p), [float("nan")])) for p in ("rack0", "tap", "virtio")}
    rt = med["rack0"] / med["tap"] if med["tap"] else float("nan")
    rs = med["rack0"] / med["virtio"] if med["virtio"] else float("nan")
    print("BENCH metric=%s ratio_rack0_tap=%.2f ratio_rack0_socket=%.2f" % (m, rt, rs))
    rows.append("%-30s %10.3f %10.3f %10.3f %10.2f %10.2f" % ("%s (%s)" % (m, unit), med["rack0"], med["tap"], med["virtio"], rt, rs))
print()
print("%-30s %10s %10s %10s %10s %10s" % ("metric", "rack0", "tap", "socket", "rack0/tap", "rack0/sock"))
print("\n".join(rows))
print("tap: virtio-net on a host bridge, vnet_hdr offloads; socket: virtio-net on a QEMU socket netdev")
PY
echo
cat "$share"/vm*-counters.txt 2>/dev/null | sed 's/^/# /'
rm -rf "$share"
exit $rc
