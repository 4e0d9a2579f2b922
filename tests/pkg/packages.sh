#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# packages.sh: the Debian packages, end to end (`make deb-check`). Runs as
# root in a private mount namespace of its own:
#
#   deb          `make deb`: dpkg-buildpackage -us -uc -b in a scratch copy,
#                the packages in .build-deb/
#   ns_setup     /usr, /etc and /var become overlays on a tmpfs (the host
#                and everyone else see nothing of what follows, and it is
#                gone when this script ends); the build tree is hidden under
#                an empty tmpfs
#   install      dpkg -i of drack-dkms, drack-tools, libdrack1, libdrack-dev:
#                drack-dkms's postinst has DKMS build and install drack.ko
#   dkms_KVER    `dkms install drack/1.0 -k KVER` has drack.ko in
#                updates/dkms for every kernel with headers (dkms.conf)
#   guest        a QEMU guest boots that root (the installed run-guest.sh)
#                and runs a two-host rack from the installed paths only
#                (tests/pkg/guest.sh)
#   rack_*       /usr/sbin/drack-rack boots two QEMU VMs: each loads the
#                drack.ko DKMS built for its kernel, VM 0 runs
#                /usr/sbin/drack-fmd, rack0 comes from /usr/sbin/drackctl;
#                ping and iperf3 cross rack0; the rack stops with clean
#                kernel logs
#   purge        dpkg --purge of the four: drack.ko gone from every kernel,
#                and the files the packages made
#
# dpkg -i runs on the host, so DKMS compiles there (about 20 s per kernel);
# in a TCG guest the postinst's build had not finished after 13 minutes
# (another guest shared the 2 CPUs).
#
# KTAP on stdout (the guest's results nested); exit status non-zero on any
# failure. Env: DRACK_PKG_TIMEOUT (the guest's, default 900 s), DRACK_DEBS
# (a directory with the .debs: test those, build nothing).
#
# What breaks it: debian/ out of step with the Makefiles (deb), a file
# missing from a package or installed where nothing looks for it, a
# postinst or prerm that does not build or remove the module (purge), dkms.conf not
# building for a kernel, and what tests/pkg/guest.sh lists.

# Not -e: every step reports its own result and the next one still runs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
TOP=$PWD
if [[ -z ${DRACK_PKG_NS:-} ]]; then
	((EUID == 0)) || { echo "packages.sh: needs root" >&2; exit 2; }
	DRACK_PKG_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
TIMEOUT=${DRACK_PKG_TIMEOUT:-900}
T0=$SECONDS

# The build tree gets hidden, so the work directory must be outside it.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/drack-pkg.XXXXXX") || exit 2
[[ $WORK != "$TOP"/* ]] || { rm -rf "$WORK"; WORK=$(mktemp -d /tmp/drack-pkg.XXXXXX) || exit 2; }
STATE=$WORK/rack
LOG=$WORK/step.log
RACK=(drack-rack --dir "$STATE")
RACK_UP=0
PKGS=(drack-dkms drack-tools libdrack1 libdrack-dev)

KVERS=()
for k in /lib/modules/*; do
	[[ -e $k/build ]] && KVERS+=("${k##*/}")
done

N=0 FAILED=0 PLAN=$((10 + ${#KVERS[@]}))
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
		not_ok "$name" "$(tail -n 40 "$LOG")" "(rc $rc)"
	fi
	echo "# $name: $((SECONDS - t0)) s"
	return $rc
}
finish() {
	while ((N < PLAN)); do not_ok "not_run_$((N + 1))" "aborted before this point"; done
	echo "# packages: $((SECONDS - T0)) s"
	((FAILED == 0))
	exit $?
}
# A rack left running when we stop early: power it off. The mounts go
# with the namespace.
cleanup() {
	((RACK_UP)) && "${RACK[@]}" stop >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT

DEBS=${DRACK_DEBS:-$TOP/.build-deb}
if [[ -n ${DRACK_DEBS:-} ]]; then
	N=$((N + 1))
	echo "ok $N deb # SKIP the .debs in $DRACK_DEBS"
else
	check deb make -s deb && sed -n 's/^/# /p' "$LOG" | grep '\.deb$'
fi

# The .debs and a copy of the test helpers: all that the steps below get.
ns_setup() {
	local d up=/mnt share=$WORK/share p k
	mkdir -p "$share"/{debs,tests/net,tests/pkg,tools/rack} || return 1
	for p in "${PKGS[@]}"; do
		cp "$(ls "$DEBS/${p}"_*.deb)" "$share/debs/" || return 1
	done
	cp tests/net/lib.sh "$share/tests/net/" && cp tools/rack/addr.sh "$share/tools/rack/" &&
		cp tests/pkg/guest.sh "$share/tests/pkg/" || return 1
	# On /mnt: a mount point that leaves nothing behind on the host.
	mount -t tmpfs -o size=4g,mode=0755 drack-pkg "$up" || return 1
	for d in usr etc var; do
		mkdir -p "$up/$d" "$up/$d.work" || return 1
		mount -t overlay -o "lowerdir=/$d,upperdir=$up/$d,workdir=$up/$d.work" "drack-pkg-$d" "/$d" || return 1
	done
	mount -t tmpfs -o size=1m,mode=0755 drack-hidden "$TOP" || return 1
	[[ -z $(ls -A "$TOP") ]] || { echo "$TOP still shows files"; return 1; }
	! command -v drack-rack || { echo "drack-rack is installed already"; return 1; }
	((${#KVERS[@]})) || { echo "no kernel headers under /lib/modules"; return 1; }
	for k in "${KVERS[@]}"; do
		! modinfo -k "$k" -n drack 2>/dev/null || { echo "$k: a drack.ko is installed already"; return 1; }
	done
}
check ns_setup ns_setup || finish
# Nothing of the tree from here on: its cwd, PATH and VM cache are gone.
cd "$WORK" || exit 2
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset IP_LIB_DIR LD_LIBRARY_PATH PKG_CONFIG_PATH DRACK_VM_CACHE DRACK_RACK_DIR

install_debs() {
	local t0=$SECONDS
	DEBIAN_FRONTEND=noninteractive dpkg -i "$WORK"/share/debs/*.deb || return 1
	echo "dpkg -i: $((SECONDS - t0)) s"
}
check install install_debs && grep -E '^(Building for|dpkg -i:)' "$LOG" | sed 's/^/# /'

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

# The guest boots this namespace's root, the packages installed; the
# installed guest booter and the launcher's VM cache.
guest() {
	local rc=0 t0=$SECONDS
	echo "# --- guest: a two-host rack from the installed paths"
	DRACK_VM_CACHE=/var/cache/drack/vm /usr/lib/drack/rack/tools/rack/run-guest.sh \
		--timeout "$TIMEOUT" --mem 2048 --name pkg --share "$WORK/share" -- \
		"bash /hostshare/tests/pkg/guest.sh $TOP" </dev/null 2>"$WORK/guest.err" |
		sed -u 's/^/    /' || rc=${PIPESTATUS[0]}
	sed 's/^/# /' "$WORK/guest.err"
	echo "# guest: rc $rc, $((SECONDS - t0)) s"
	if ((rc == 0)); then
		ok guest
	else
		not_ok guest "run-guest.sh rc $rc (124: timeout, 125: the guest died, 1: a failed check or kernel log problem)"
	fi
}
guest

# Removing the packages takes drack.ko and the files away again: here, not
# in the guest, where dpkg's triggers and DKMS's depmod took 263 s.
purge() {
	local k left ma
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
	DEBIAN_FRONTEND=noninteractive dpkg --purge "${PKGS[@]}" || return 1
	for k in "${KVERS[@]}"; do
		! modinfo -k "$k" -n drack 2>/dev/null || { echo "$k: drack.ko still installed"; return 1; }
	done
	left=$(ls -d /var/lib/dkms/drack /usr/src/drack-1.0 /usr/sbin/drackctl /etc/drack \
		/usr/lib/"$ma"/ip/link_drack.so /usr/lib/drack /var/lib/drack /var/cache/drack 2>/dev/null)
	[[ -z $left ]] || { echo "left after purge: $left"; return 1; }
}
rack_start() {
	RACK_UP=1
	"${RACK[@]}" start -n 2 --timeout 900
}
check rack_start rack_start
RACK_RC=$?
# rack_check NAME CMD...: check, or not run if the rack did not start
rack_check() {
	((RACK_RC == 0)) || { not_ok "$1" "not run: rack_start failed"; return 1; }
	check "$@"
}

# What the VMs run is what the packages installed: the loaded module's
# build id is the one of the drack.ko DKMS built for the VMs' kernel.
build_id() { # KO
	local ko=$1
	[[ $ko != *.xz ]] || { xz -dc "$ko" >"$WORK/ko" && ko=$WORK/ko; } || return 1
	objcopy -O binary --only-section=.note.gnu.build-id "$ko" /dev/stdout | od -An -tx1 | tr -d ' \n'
}
rack_paths() {
	local want got kver ko vm
	# shellcheck source=/dev/null # the installed copy of tools/rack/guest.sh
	kver=$(. /usr/lib/drack/rack/tools/rack/guest.sh && vm_default_kver) || return 1
	ko=$(modinfo -k "$kver" -n drack) || return 1
	want=$(build_id "$ko") || return 1
	[[ -n $want ]] || { echo "no build id in $ko"; return 1; }
	for vm in 0 1; do
		got=$("${RACK[@]}" exec "$vm" 'od -An -tx1 /sys/module/drack/notes/.note.gnu.build-id | tr -d " \n"') ||
			{ echo "vm$vm: $got"; return 1; }
		[[ $got == "$want" ]] || { echo "vm$vm: drack.ko build id $got, $ko's: $want"; return 1; }
		got=$("${RACK[@]}" exec "$vm" 'readlink -f "$(command -v drackctl)"') || { echo "vm$vm: $got"; return 1; }
		[[ $got == /usr/sbin/drackctl ]] || { echo "vm$vm: drackctl is $got"; return 1; }
	done
	got=$("${RACK[@]}" exec 0 'readlink -f /proc/$(pidof drack-fmd)/exe') || { echo "vm0: $got"; return 1; }
	[[ $got == /usr/sbin/drack-fmd ]] || { echo "vm0: drack-fmd is $got"; return 1; }
	echo "$ko, /usr/sbin/drackctl, /usr/sbin/drack-fmd"
}
rack_check rack_paths rack_paths && tail -n 1 "$LOG" | sed 's/^/# /'

rack_check rack_ping "${RACK[@]}" exec -t 120 1 'ping -c 3 -i 0.2 -W 5 198.18.0.1 && ping -6 -c 3 -i 0.2 -W 5 2001:db8:d7::1'

rack_iperf() {
	"${RACK[@]}" exec 0 'iperf3 -s -1 -D -p 5201 && sleep 1' || return 1
	"${RACK[@]}" exec -t 120 1 'timeout 90 iperf3 -c 198.18.0.1 -p 5201 -t 3 -f m' | tee "$WORK/iperf.out" || return 1
	grep -q receiver "$WORK/iperf.out"
}
rack_check rack_iperf rack_iperf && grep receiver "$WORK/iperf.out" | sed 's/^/# /'

rack_stop() {
	# shellcheck disable=SC2034 # read by cleanup
	RACK_UP=0
	"${RACK[@]}" stop
}
rack_check rack_stop rack_stop
# A rack that did not start fully: stopped while drack-rack is installed.
((RACK_UP == 0)) || { "${RACK[@]}" stop >/dev/null 2>&1; RACK_UP=0; }

check purge purge
finish
