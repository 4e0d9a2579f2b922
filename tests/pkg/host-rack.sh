#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# host-rack.sh DEBDIR TREE WORKDIR: the packages installed on this host the
# way an admin would, but in a private mount namespace where /usr, /etc and
# /var are overlays on a tmpfs: the host and everyone else see none of it,
# and it is gone when this script ends. The build tree TREE is hidden under
# an empty tmpfs.
#
#   install     dpkg -i: drack-dkms's postinst has DKMS build drack.ko
#   dkms_KVER   `dkms install drack/1.0 -k KVER` leaves drack.ko in
#               updates/dkms for every kernel with headers (dkms.conf)
#   rack_*      /usr/sbin/drack-rack boots a rack of two QEMU VMs (they see
#               this namespace's /): each loads the drack.ko DKMS built for
#               its kernel, VM 0 runs /usr/sbin/drack-fmd, rack0 comes from
#               /usr/sbin/drackctl; ping and iperf3 cross rack0; the rack
#               stops with clean kernel logs
#
# Run as root by tests/pkg/packages.sh; KTAP on stdout.

# Not -e: every step reports its own result and the next one still runs.
set -uo pipefail

DEBDIR=$1 TREE=$2 WORKDIR=$3
if [[ -z ${DRACK_PKG_NS:-} ]]; then
	DRACK_PKG_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset IP_LIB_DIR LD_LIBRARY_PATH DRACK_VM_CACHE DRACK_RACK_DIR
STATE=$WORKDIR/rack
LOG=$WORKDIR/host-rack.log
RACK=(drack-rack --dir "$STATE")
RACK_UP=0

KVERS=()
for k in /lib/modules/*; do
	[[ -e $k/build ]] && KVERS+=("${k##*/}")
done

N=0 FAILED=0 PLAN=$((7 + ${#KVERS[@]}))
echo "KTAP version 1"
echo "1..$PLAN"
ok() { N=$((N + 1)); echo "ok $N $1"; }
not_ok() {
	local name=$1 why; shift
	N=$((N + 1)) FAILED=$((FAILED + 1))
	echo "not ok $N $name"
	for why; do printf '%s\n' "$why" | sed 's/^/# /'; done
}
# check NAME CMD...: ok if CMD succeeds; its output shown when it fails
check() {
	local name=$1 rc=0 t0=$SECONDS; shift
	"$@" >"$LOG" 2>&1 </dev/null || rc=$?
	if ((rc == 0)); then
		ok "$name"
	else
		not_ok "$name" "$(tail -n 30 "$LOG")" "(rc $rc)"
	fi
	echo "# $name: $((SECONDS - t0)) s"
	return $rc
}
finish() {
	while ((N < PLAN)); do not_ok "not_run_$((N + 1))" "aborted before this point"; done
	((FAILED == 0))
	exit $?
}
# A rack left running when we stop early: power it off.
trap '((RACK_UP)) && "${RACK[@]}" stop >/dev/null 2>&1' EXIT

ns_setup() {
	local d up=$WORKDIR/overlay
	mkdir -p "$up" && mount -t tmpfs -o size=4g,mode=0755 drack-pkg "$up" || return 1
	for d in usr etc var; do
		mkdir -p "$up/$d" "$up/$d.work" || return 1
		mount -t overlay -o "lowerdir=/$d,upperdir=$up/$d,workdir=$up/$d.work" "drack-pkg-$d" "/$d" || return 1
	done
	mount -t tmpfs -o size=1m,mode=0755 drack-hidden "$TREE" || return 1
	[[ -z $(ls -A "$TREE") ]] || { echo "$TREE still shows files"; return 1; }
	! command -v drack-rack || { echo "drack-rack already installed"; return 1; }
	! modinfo -n drack 2>/dev/null || { echo "a drack.ko is installed already"; return 1; }
	((${#KVERS[@]})) || { echo "no kernel headers under /lib/modules"; return 1; }
}
check ns_setup ns_setup || finish
cd /tmp || exit 2

install_debs() {
	local p debs=()
	for p in drack-dkms drack-tools libdrack1 libdrack-dev; do
		debs+=("$(ls "$DEBDIR/${p}"_*.deb)") || return 1
	done
	DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}"
}
check install install_debs || finish

dkms_kernel() { # KVER
	local ko
	dkms install drack/1.0 -k "$1" || return 1
	ko=$(modinfo -k "$1" -n drack) || return 1
	echo "$ko"
	[[ $ko == /lib/modules/$1/updates/dkms/drack.ko* ]]
}
for k in "${KVERS[@]}"; do
	check "dkms_$k" dkms_kernel "$k"
done

rack_start() {
	RACK_UP=1
	"${RACK[@]}" start -n 2 --timeout 900
}
check rack_start rack_start || finish

# What the VMs run is what the packages installed.
rack_paths() {
	local want got kver vm
	# shellcheck source=/dev/null # the installed copy of tools/rack/guest.sh
	kver=$(. /usr/lib/drack/rack/tools/rack/guest.sh && vm_default_kver) || return 1
	want=$(modinfo -k "$kver" -F srcversion drack) || return 1
	for vm in 0 1; do
		got=$("${RACK[@]}" exec "$vm" 'cat /sys/module/drack/srcversion') || return 1
		[[ $got == "$want" ]] || { echo "vm$vm: drack srcversion $got, DKMS's for $kver: $want"; return 1; }
		got=$("${RACK[@]}" exec "$vm" 'readlink -f "$(command -v drackctl)"') || return 1
		[[ $got == /usr/sbin/drackctl ]] || { echo "vm$vm: drackctl is $got"; return 1; }
	done
	got=$("${RACK[@]}" exec 0 'readlink -f /proc/$(pidof drack-fmd)/exe') || return 1
	[[ $got == /usr/sbin/drack-fmd ]] || { echo "vm0: drack-fmd is $got"; return 1; }
	echo "drack.ko $want for $kver, /usr/sbin/drackctl, /usr/sbin/drack-fmd"
}
check rack_paths rack_paths && sed -n '$s/^/# /p' "$LOG"

check rack_ping "${RACK[@]}" exec -t 120 1 'ping -c 3 -W 5 198.18.0.1 && ping -6 -c 3 -W 5 2001:db8:d7::1'

rack_iperf() {
	"${RACK[@]}" exec 0 'iperf3 -s -1 -D -p 5201 && sleep 1' || return 1
	"${RACK[@]}" exec -t 120 1 'timeout 90 iperf3 -c 198.18.0.1 -p 5201 -t 3 -f m' | tee "$WORKDIR/iperf.out" || return 1
	grep -q receiver "$WORKDIR/iperf.out"
}
check rack_iperf rack_iperf && grep receiver "$WORKDIR/iperf.out" | sed 's/^/# /'

rack_stop() {
	# shellcheck disable=SC2034 # read by the EXIT trap
	RACK_UP=0
	"${RACK[@]}" stop
}
check rack_stop rack_stop
finish
