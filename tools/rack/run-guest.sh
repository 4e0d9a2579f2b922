#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Boot one QEMU guest on the host's root file system and run a command in it.
set -euo pipefail

. "$(dirname "$0")/guest.sh"

usage() {
	cat >&2 <<EOF
usage: $0 [options] -- COMMAND...
Runs COMMAND (a shell command line) as root in a fresh guest, cwd = \$PWD,
host / visible read-only (writes land in a tmpfs overlay). Its stdout+stderr
stream to our stdout. Exit: COMMAND's rc if non-zero, else 1 if the guest's
dmesg shows a kernel problem, 124 on timeout, 125 if the guest died.
  --kver KVER        guest kernel (default: newest 6.1 with /boot/vmlinuz)
  --kernel IMAGE     boot IMAGE (vmlinux or bzImage) as kernel KVER (needs --kver
                     and --modules), not /boot/vmlinuz-KVER
  --modules ROOT     the modules of --kernel are in ROOT/lib/modules/KVER (make
                     modules_install INSTALL_MOD_PATH=ROOT); the guest sees them
                     at /lib/modules/KVER
  --mem MB           guest RAM (default 1024)
  --smp N            guest CPUs (default 2)
  --timeout SEC      kill the guest and fail after SEC (default 600)
  --name NAME        guest hostname and log prefix (default drack-vm)
  --log FILE         copy the full kernel console log to FILE
  --outdir DIR       keep the guest's files in DIR (default: temp dir, kept on failure);
                     it is /hostout (rw) in the guest: output, dmesg, rc, console.log
  --share DIR        mount host DIR read-write at /hostshare in the guest
  --qemu-extra ARGS  extra qemu arguments (split on spaces; repeatable)
  --append ARGS      extra kernel command line
Env: DRACK_VM_ACCEL=tcg|kvm forces the accelerator; DRACK_VM_CACHE the cache dir.
EOF
	exit "$1"
}

kver='' kimg='' modroot='' mem=1024 smp=2 timeout=600 name=drack-vm log='' outdir='' share='' append='' extra=()
while (($#)); do
	case $1 in
	--) shift; break ;;
	-h | --help) usage 0 ;;
	esac
	(($# >= 2)) || usage 2
	case $1 in
	--kver) kver=$2 ;;
	--kernel) kimg=$(realpath "$2") ;;
	--modules) modroot=$(realpath "$2") ;;
	--mem) mem=$2 ;;
	--smp) smp=$2 ;;
	--timeout) timeout=$2 ;;
	--name) name=$2 ;;
	--log) log=$2 ;;
	--outdir) outdir=$2 ;;
	--share) share=$(realpath "$2") ;;
	--qemu-extra) read -r -a a <<<"$2" && extra+=("${a[@]}") ;;
	--append) append+=" $2" ;;
	*) usage 2 ;;
	esac
	shift 2
done
(($#)) || usage 2
VM_ME="run-guest[$name]"
start=$SECONDS

vm_need_pkgs qemu-system-x86
[[ -z $kimg$modroot || ( -n $kimg && -n $modroot && -n $kver ) ]] ||
	vm_die "--kernel and --modules go together, with --kver"
if [[ -z $kver ]]; then
	kver=$(vm_default_kver) || { vm_need_pkgs linux-image-amd64 && kver=$(vm_default_kver); } ||
		vm_die "no 6.1 kernel found"
fi
mkdir -p "$VM_CACHE"
# Concurrent runs share the cache: build it under a lock.
art=$(flock "$VM_CACHE/.lock" "$VM_DIR/mkinitramfs.sh" "$kver" "$VM_CACHE" ${kimg:+"$kimg" "$modroot"})
initrd=${art%%$'\n'*} kernel=${art#*$'\n'}

# KVM only where a guest really boots with it (not on nested set-ups like
# the lab machines); the probe result is cached per host kernel and qemu.
accel=${DRACK_VM_ACCEL:-}
if [[ -z $accel ]]; then
	accel=tcg
	if [[ -w /dev/kvm ]]; then
		probe=$VM_CACHE/accel-$( { uname -r; qemu-system-x86_64 --version; echo "$kver"; } | sha256sum | cut -c1-12)
		exec {lk}>"$VM_CACHE/.accel.lock"
		flock "$lk"
		if [[ ! -s $probe ]]; then
			vm_log "probing KVM (once)"
			if DRACK_VM_ACCEL=kvm "$VM_DIR/run-guest.sh" --kver "$kver" ${kimg:+--kernel "$kimg" --modules "$modroot"} --smp 1 --mem 256 --timeout 30 \
				--name kvm-probe --outdir "$VM_CACHE/kvm-probe" -- true >/dev/null 2>&1; then
				echo kvm >"$probe"
			else
				echo tcg >"$probe"
			fi
		fi
		accel=$(<"$probe")
		exec {lk}>&-
	fi
fi
case $accel in
kvm) accel_args=(-accel kvm -cpu host) ;;
# TCG emulates `rep movsb` almost byte by byte: without ERMS/FSRM the
# guest kernel's memcpy uses unrolled moves, 3-4x faster for every copy.
tcg) accel_args=(-accel tcg,thread=multi -cpu max,erms=off,fsrm=off) ;;
*) vm_die "DRACK_VM_ACCEL must be tcg or kvm" ;;
esac

keep=1
[[ -n $outdir ]] || { outdir=$(mktemp -d "${TMPDIR:-/tmp}/drack-vm.$name.XXXXXX") && keep=0; }
mkdir -p "$outdir"
outdir=$(realpath "$outdir")
rm -f "$outdir"/{rc,dmesg,output,console.log,boot-seconds,locked-up}
echo "$name" | tr -c 'a-zA-Z0-9\n-' - >"$outdir/hostname"
printf '%s\n' "$*" >"$outdir/cmd.sh"
# Runs in the guest's root after /init's mounts. The command's output goes to
# a virtio serial port (fast, no tty layer) that is our stdout, and to
# /hostout/output; the kernel console is ttyS0 -> console.log.
{
	printf 'name=%q cwd=%q share=%q modroot=%q kver=%q\n' "$name" "$PWD" "$share" "$modroot" "$kver"
	cat <<'EOF'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
export DRACK_VM=1 DRACK_VM_NAME=$name DRACK_VM_OUT=/hostout
read -r up _ </proc/uptime && echo "$up" >/hostout/boot-seconds
# Builtins only (each exec costs under TCG). The port shows up
# asynchronously after virtio_console's probe.
port=/dev/console
for i in {1..100}; do
	for f in /sys/class/virtio-ports/*/name; do
		[[ -e $f && $(<"$f") == drack.out ]] && { f=${f%/name} && port=/dev/${f##*/} && break 2; }
	done
	sleep 0.1
done
if [[ -n $share ]]; then
	mkdir -p /hostshare && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 hostshare /hostshare
fi
# --modules: the host's file system (so ROOT) is visible read only.
if [[ -n $modroot ]]; then
	mkdir -p "/lib/modules/$kver" && mount --bind "$modroot/lib/modules/$kver" "/lib/modules/$kver"
fi
cd "$cwd" 2>/dev/null || { echo "guest: $cwd is not visible in the guest" | tee /hostout/output >"$port"; exit 125; }
set -o pipefail
bash /hostout/cmd.sh </dev/null 2>&1 | tee /hostout/output >"$port"
EOF
} >"$outdir/run.sh"

# q35 (PCIe): virtio probes ~2x faster than on pc's ACPI PCI links, CXL
# needs it. No crypto self-tests and no mitigations: faster under TCG.
# A lockup report shows every CPU: the stuck one is often the victim.
qargs=(-nodefaults -no-user-config -display none -no-reboot -M q35 -m "$mem" -smp "$smp" "${accel_args[@]}"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 panic_on_warn=0 mitigations=off cryptomgr.notests softlockup_all_cpu_backtrace=1$append"
	-chardev file,id=con,path="$outdir/console.log" -serial chardev:con
	-device virtio-serial-pci,id=vser -chardev stdio,id=out,signal=off
	-device virtserialport,bus=vser.0,chardev=out,name=drack.out
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-virtfs local,path="$outdir",mount_tag=hostout,security_model=none)
[[ -z $share ]] || qargs+=(-virtfs local,path="$share",mount_tag=hostshare,security_model=none)

# stdin: a FIFO opened read-write never reads EOF, which would make the stdio
# chardev report "closed" and block the guest's writes to the port.
rm -f "$outdir/.stdin" && mkfifo "$outdir/.stdin"
timeout -k 5 "$timeout" qemu-system-x86_64 "${qargs[@]}" "${extra[@]}" <>"$outdir/.stdin" 2>"$outdir/qemu.err" &
qpid=$!
# A kernel stuck for minutes on end does not come back: stop the guest
# then rather than at the timeout (CI once waited 40 minutes for one).
(
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 10
		if grep -qaE 'soft lockup - CPU#[0-9]+ stuck for ([0-9]{4,}|[3-9][0-9]{2}|2[4-9][0-9])s' \
			"$outdir/console.log" 2>/dev/null; then
			touch "$outdir/locked-up"
			kill "$qpid" 2>/dev/null
			break
		fi
	done
) </dev/null >/dev/null 2>&1 &
wpid=$!
trap 'kill "$qpid" "$wpid" 2>/dev/null; wait "$qpid"; exit 130' INT TERM HUP
qrc=0
wait "$qpid" || qrc=$?
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
trap - INT TERM HUP
[[ -z $log ]] || cp "$outdir/console.log" "$log"

# Verdict: the command's rc, then the kernel log.
rc=0
if [[ -e $outdir/locked-up ]]; then
	rc=124
	vm_log "the guest's kernel locked up (a CPU stuck for over 240 s): stopped; console tail:"
	tail -n 20 "$outdir/console.log" | sed 's/^/  /' >&2
elif ((qrc == 124 || qrc == 137)); then
	rc=124
	vm_log "TIMEOUT after ${timeout}s; console tail:"
	tail -n 20 "$outdir/console.log" | sed 's/^/  /' >&2
elif [[ ! -s $outdir/rc ]]; then
	rc=125
	vm_log "guest died without finishing (qemu rc $qrc); qemu stderr and console tail:"
	tail -n 5 "$outdir/qemu.err" | sed 's/^/  /' >&2
	tail -n 30 "$outdir/console.log" | sed 's/^/  /' >&2
else
	rc=$(<"$outdir/rc")
	((rc == 0)) || vm_log "command failed with rc $rc"
fi
klog=$outdir/dmesg
[[ -s $klog ]] || klog=$outdir/console.log
# Kernel problem reports only: "BUG: ...", "kernel BUG at", "WARNING: CPU: ...",
# "Oops: ...", refcount/list corruption, GPFs, and drack's own leak reports.
bad='(^|[] ])(BUG: |kernel BUG at|WARNING:|Oops|refcount_t: |list_(add|del) corruption|general protection|UBSAN:|KASAN:|Kernel panic)'
# Known benign: x86 Spectre notes that start with "WARNING:" on some CPUs.
benign='WARNING: .*data leaks possible'
hits=$( { grep -naE "$bad" "$klog" | grep -vE "$benign"; grep -naE 'drack.*leak' "$klog"; } || true)
if [[ -n $hits ]]; then
	vm_log "kernel log shows a problem ($klog):"
	sort -n -u <<<"$hits" | head -n 20 | sed 's/^/  line /' >&2
	# The first report whole: CI keeps only this output, not $outdir.
	first=$(sort -n -u <<<"$hits" | head -n 1 | cut -d: -f1)
	vm_log "the first report (line $first on):"
	sed -n "${first},$((first + 59))p" "$klog" | sed 's/^/  /' >&2
	((rc)) || rc=1
fi

boot=$(cat "$outdir/boot-seconds" 2>/dev/null || echo '?')
if ((rc)); then
	vm_log "FAIL rc=$rc ($kver, $accel, boot ${boot}s, total $((SECONDS - start))s); files in $outdir"
else
	vm_log "ok ($kver, $accel, boot ${boot}s, total $((SECONDS - start))s)"
	((keep)) || rm -rf "$outdir"
fi
exit "$rc"
