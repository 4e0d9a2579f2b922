#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# debug-kernel.sh [--build-only] [--timeout SECS] [TEST...]: `make check-debug`.
# Runs the guest suite (default: every tests/net test, hostile included) on
# a 6.1 kernel with KASAN, lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_OBJECTS,
# UBSAN and kmemleak, then has kmemleak scan: a leak, a kernel splat or a
# failed test fails the run. Not part of `make check`: too slow for CI.
#
# The kernel is built once from Debian's linux-source-6.1 and cached in
# ${XDG_CACHE_HOME:-~/.cache}/drack/debug-kernel/KEY (KEY: hash of the
# source version, tests/debug-kernel.config and the recipe below):
# vmlinux, bzImage, build/ (for drack.ko) and mods/lib/modules/KVER.
#
# Config: x86_64_defconfig + kvm_guest.config + tests/debug-kernel.config,
# which builds in what the harness and the suite use and drops the
# defconfig's hardware drivers. Not Debian's config with localmodconfig:
# Debian builds in far more (security modules, file systems, drivers),
# which with KASAN and lockdep would take hours on 2 shared CPUs; this
# takes well under one (figures in Documentation/testing.rst).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

build_only=0 timeout=${DRACK_DEBUG_TIMEOUT:-7200} tests=()
while (($#)); do
	case $1 in
	--build-only) build_only=1 ;;
	--timeout) timeout=$2; shift ;;
	-*) echo "usage: $0 [--build-only] [--timeout SECS] [TEST...]" >&2; exit 2 ;;
	*) tests+=("$1") ;;
	esac
	shift
done

log() { echo "debug-kernel: $*" >&2; }
die() { log "$*"; exit 2; }

# Build tools beyond tests/install-deps.sh's (which has build-essential,
# libelf-dev, bc, cpio): the kernel's Kconfig parser and its crypto.
. tools/rack/guest.sh
VM_ME=debug-kernel vm_need_pkgs linux-source-6.1 bison flex libssl-dev libelf-dev bc cpio xz-utils

# Recipe version: bump when the build steps below change meaning.
recipe=1
tar=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$recipe $srcver"; gcc --version | head -n 1; cat tests/debug-kernel.config; } | sha256sum | cut -c1-16)
base=${XDG_CACHE_HOME:-$HOME/.cache}/drack/debug-kernel
cache=$base/$key
src=$base/src-$srcver/linux-source-6.1
bld=$cache/build

build_kernel() {
	local t0=$SECONDS opt old
	if [[ ! -e $src/.complete ]]; then
		log "extracting $tar"
		rm -rf "$base/src-$srcver" && mkdir -p "$base/src-$srcver"
		tar -xJf "$tar" -C "$base/src-$srcver"
		touch "$src/.complete"
	fi
	rm -rf "$cache" && mkdir -p "$cache"
	# A build of the same source with another config: start from its
	# objects (make rebuilds what the change touches); one kept at a time.
	for old in "$base"/*/build; do
		[[ -e $old/source && $(readlink -f "$old/source") == "$(readlink -f "$src")" ]] || continue
		log "starting from the previous build ${old%/build}"
		mv "$old" "$bld" && rm -rf "${old%/build}"
		break
	done
	mkdir -p "$bld"
	make -s -C "$src" O="$bld" x86_64_defconfig
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$bld" "$bld/.config" \
		kernel/configs/kvm_guest.config "$top/tests/debug-kernel.config" >/dev/null)
	make -s -C "$src" O="$bld" olddefconfig
	# Kconfig drops what a dependency forbids, silently: check what counts.
	for opt in KASAN KASAN_INLINE UBSAN PROVE_LOCKING PROVE_RCU DEBUG_OBJECTS DEBUG_OBJECTS_TIMERS \
		DEBUG_OBJECTS_WORK DEBUG_OBJECTS_RCU_HEAD DEBUG_KMEMLEAK DEBUG_ATOMIC_SLEEP VETH BRIDGE TUN \
		MPTCP NET_SCH_TBF NET_CLS_BPF NET_CLS_MATCHALL NET_ACT_GACT IP_MULTIPLE_TABLES \
		IPV6_MULTIPLE_TABLES BPF_SYSCALL PVH USER_NS ZONE_DEVICE NETCONSOLE_DYNAMIC; do
		grep -qx "CONFIG_$opt=y" "$bld/.config" || die "CONFIG_$opt is not =y after olddefconfig"
	done
	for opt in VIRTIO_PCI VIRTIO_CONSOLE NET_9P_VIRTIO 9P_FS OVERLAY_FS; do
		grep -qx "CONFIG_$opt=m" "$bld/.config" || die "CONFIG_$opt is not =m after olddefconfig"
	done
	log "building the kernel in $bld (nice 19, -j${DRACK_DEBUG_JOBS:-2})"
	nice -n 19 make -s -C "$src" O="$bld" -j"${DRACK_DEBUG_JOBS:-2}" vmlinux bzImage modules
	make -s -C "$src" O="$bld" INSTALL_MOD_PATH="$cache/mods" modules_install
	cp "$bld/vmlinux" "$bld/arch/x86/boot/bzImage" "$cache/"
	make -s -C "$src" O="$bld" kernelrelease >"$cache/kver"
	echo "$((SECONDS - t0))" >"$cache/build-seconds"
	touch "$cache/.complete"
	log "kernel $(<"$cache/kver") built in $((SECONDS - t0)) s"
}

if [[ -e $cache/.complete ]]; then
	log "cached kernel $(<"$cache/kver") in $cache"
else
	build_kernel
fi
kver=$(<"$cache/kver")
((build_only)) && exit 0

# drack.ko for this kernel, in a scratch copy (as make check-612): the 6.1
# objects in kmod/ stay put. User space as for make check.
log "building drack.ko for $kver and user space"
make -s lib tools tests-bin
# --update: unchanged sources keep their objects (make rebuilds the rest).
mkdir -p .build-debug && cp -r --update Kbuild kmod .build-debug/
make -s -C "$bld" M="$top/.build-debug" modules
ko=$top/.build-debug/kmod/drack.ko
bash tests/kernel-selftests.sh >/dev/null # drv_net's files, read only in the guest

# KASAN's shadow is 1/8 of RAM and kmemleak keeps metadata per object: more
# RAM than make check's 1 GB. Everything runs 3-6x slower than on Debian's
# kernel under TCG: each test gets 5x its usual time.
per_test=$(($(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' tests/settings) * 5))
outdir=$(mktemp -d "${TMPDIR:-/tmp}/drack-debug.XXXXXX")
log "guest on $kver (files in $outdir), tests: ${tests[*]:-all}"
t0=$SECONDS rc=0
# The bzImage, not vmlinux through PVH: that KASAN kernel dies before its
# first console line when entered through PVH.
tools/rack/run-guest.sh --kver "$kver" --kernel "$cache/bzImage" --modules "$cache/mods" \
	--mem "${DRACK_DEBUG_MEM:-3072}" --timeout "$timeout" --name drack-debug --outdir "$outdir" -- \
	"DRACK_KO=$ko bash tests/vm/debug-guest.sh --timeout $per_test ${tests[*]}" 2>"$outdir/run-guest.err" |
	bash tests/vm/ktap-summary.sh || { st=("${PIPESTATUS[@]}") && rc=${st[0]} && ((rc)) || rc=${st[1]}; }
sed 's/^/# /' "$outdir/run-guest.err"
# run-guest.sh fails on any "BUG:|WARNING:|KASAN:|UBSAN:|..." line in the
# guest's dmesg: lockdep, DEBUG_OBJECTS and sleep-in-atomic splats all
# start with one of those. kmemleak's "N new suspected memory leaks"
# lines are not matched: debug-guest.sh judges kmemleak's list itself.
if grep -q 'kernel log shows a problem' "$outdir/run-guest.err"; then
	# Before the first test's "drack-test: begin" line: the kernel's own
	# (boot_clean says so too), else in drack's time.
	first=$(grep -m1 -n 'kernel log shows a problem' -A1 "$outdir/run-guest.err" |
		sed -n 's/.*line \([0-9]*\):.*/\1/p' | head -n 1)
	begin=$(grep -m1 -an 'drack-test: begin' "$outdir/dmesg" 2>/dev/null | cut -d: -f1)
	if [[ -n $first && -n $begin ]] && ((first < begin)); then
		echo "# debug-kernel: the kernel reported a problem while booting, before any test (line $first of $outdir/dmesg): not drack's, but this run may have had less checking"
	else
		echo "# debug-kernel: the guest's kernel log shows a problem during the tests: $outdir/dmesg"
	fi
	((rc)) || rc=1
fi
echo "# debug-kernel: $kver, $((SECONDS - t0)) s in the guest, rc $rc; files in $outdir"
exit "$rc"
