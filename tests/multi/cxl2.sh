#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# cxl2: two VMs sharing one emulated CXL type-3 memory device (QEMU's
# cxl-type3 on a shared file), on the Debian 6.1 kernel and on 6.12.
# In each VM: cxl create-region, ndctl create-namespace -m devdax
# --map=mem, then drack.ko's phys backend on the region's physical range
# (phys_pool=SIZE@ADDR, polling); VM 0 formats the pool and runs drack-fmd.
# ping and iperf3 across rack0; a stream received by reference from the
# devdax struct pages (the namespace is 4K aligned: single pages), intact
# end to end, every Buffer home after; then a clean stop.
#
# What breaks it: the phys backend mapping the wrong range or refusing a
# devdax region, a pool both VMs format, polling that never picks up a
# reference, devdax pages not used (frames copied: byref) or handed back
# while the stack still reads them (a corrupted stream), the CXL settings of tests (6.1: the second root port; 6.12:
# hypervisor=off and pcie_ports=compat).
. "$(dirname "$0")/lib.sh"

k612=$(cd /lib/modules && ls -d 6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
ktap_plan 10

one_kernel() { # KVER_LABEL [start options]
	local label=$1; shift
	RACK_UP=0
	"${RACK[@]}" stop >/dev/null 2>&1
	rm -rf "$RACK_STATE"
	if "${RACK[@]}" start -n 2 --transport cxl "$@" >"$LOGDIR/start-$label.log" 2>&1; then
		RACK_UP=1
		ktap_ok "start_$label"
		diag "$(x 0 'drackctl pool show 0' 2>/dev/null | head -n 1)"
	else
		ktap_fail "start_$label" "$(tail -n 20 "$LOGDIR/start-$label.log")"
		"${RACK[@]}" stop >/dev/null 2>&1
		ktap_skip "ping_$label" "no rack"; ktap_skip "iperf3_$label" "no rack"
		ktap_skip "byref_$label" "no rack"; ktap_skip "stop_$label" "no rack"
		return
	fi
	trap 'rack_abort' EXIT
	ktap_check "ping_$label" eval 'xq 1 "ping -c 3 -i 0.2 -W 3 $(ip4 0)" && xq 0 "ping -c 3 -i 0.2 -W 3 $(ip4 1)"'
	xq 0 "iperf3 -s -D"
	ktap_check "iperf3_$label" eval "x 1 'iperf3 -c $(ip4 0) -t 4' | tail -n 3" &&
		diag "$(grep receiver "$LOGDIR/check.out")"
	ktap_check "byref_$label" byref && diag "$(cat "$LOGDIR/check.out")"
	if "${RACK[@]}" stop >"$LOGDIR/stop-$label.log" 2>&1; then
		ktap_ok "stop_$label"
	else
		ktap_fail "stop_$label" "$(tail -n 20 "$LOGDIR/stop-$label.log")"
	fi
	RACK_UP=0
	trap - EXIT
}

byref() {
	local before after orders
	before=$(vm_stat 0 rx_byref)
	stream_to 0 1 $((8 << 20)) || return 1
	after=$(vm_stat 0 rx_byref)
	echo "VM 0 rx_byref ${before:-?} -> ${after:-?}, rx_copied $(vm_stat 0 rx_copied)"
	((after - before >= 64)) || return 1
	wait_for 10 home 1 || { echo "VM 1 Buffers not home: $(inflight 1)"; return 1; }
	# devdax --align 4K: single pages, reported for every Section
	orders=$(x 0 "drackctl -j section show pool 0" | jq -c '[.[].page_order] | unique')
	echo "page orders: $orders"
	[[ $orders == "[0]" ]]
}

one_kernel 6_1
if [[ -n $k612 && -e /boot/vmlinuz-$k612 && -e $TOP/.build-612/kmod/drack.ko ]]; then
	one_kernel 6_12 --kver "$k612"
else
	for t in start ping iperf3 byref stop; do
		ktap_skip "${t}_6_12" "no 6.12 kernel image or module (make check-612, linux-image-$k612)"
	done
fi
ktap_finish
