#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# mkinitramfs.sh KVER OUTDIR [KERNEL MODROOT]
#
# Builds OUTDIR/KVER/initramfs.cpio.gz (busybox + the modules needed to mount
# the host's / over 9p under an overlay) and OUTDIR/KVER/vmlinux (uncompressed
# kernel, boots ~2x faster under TCG via PVH). Prints the two paths; the
# kernel line is /boot/vmlinuz-KVER when no vmlinux can be extracted.
# Rebuilt only when an input changes. KERNEL and MODROOT name a kernel
# not installed in /boot and /lib/modules (tests/debug-kernel.sh): its
# image, booted as it is (no vmlinux extracted), and the root its modules
# were installed under (INSTALL_MOD_PATH: MODROOT/lib/modules/KVER).
set -euo pipefail

. "$(dirname "$0")/guest.sh"

[[ $# -eq 2 || $# -eq 4 ]] || vm_die "usage: $0 KVER OUTDIR [KERNEL MODROOT]"
kver=$1
out=$2/$kver
img=${3:-/boot/vmlinuz-$kver} modroot=${4:-}
mods=$modroot/lib/modules/$kver
modules=(virtio_pci 9pnet_virtio 9p overlay virtio_console)
vm_need_pkgs busybox-static kmod cpio gzip xz-utils zstd
[[ -d $mods && -e $img ]] || vm_die "no kernel $kver: no $mods or no $img"

# Inputs: this script (holds /init), busybox, the kernel image and its modules.
stamp=$( { sha256sum "$0"; stat -c '%n %s %Y' /bin/busybox "$img" "$mods/modules.dep"; } |
	sha256sum | cut -c1-16)
if [[ -e $out/stamp && $(<"$out/stamp") == "$stamp" ]]; then
	echo "$out/initramfs.cpio.gz"
	[[ -e $out/vmlinux ]] && echo "$out/vmlinux" || echo "$img"
	exit 0
fi
mkdir -p "$out"
rm -f "$out/stamp"
tmp=$(mktemp -d "$out/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- vmlinux: find the xz/zstd stream in the bzImage (as scripts/extract-vmlinux).
try_decompress() { # MAGIC FILLER DECOMPRESSOR
	local pos
	for pos in $(tr "$1\n$2" "\n$2=" <"$img" | grep -abo "^$2"); do
		pos=${pos%%:*}
		tail -c+"$pos" "$img" | $3 >"$tmp/vmlinux" 2>/dev/null || true
		if [[ $(head -c4 "$tmp/vmlinux" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
			mv "$tmp/vmlinux" "$out/vmlinux" # atomic: guests starting now use either
			return 0
		fi
	done
	return 1
}
if [[ -n $modroot ]]; then
	rm -f "$out/vmlinux"
else
	try_decompress '\3757zXZ\000' abcde unxz || try_decompress '(\265/\375' xxx unzstd ||
		{ vm_log "could not extract vmlinux from $img; booting the bzImage"; rm -f "$out/vmlinux"; }
fi

# --- initramfs tree
root=$tmp/root
mkdir -p "$root"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,lib/modules/"$kver"}
cp /bin/busybox "$root/bin/busybox"
cp "$mods"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$kver/" 2>/dev/null || true
for m in $(modprobe ${modroot:+-d "$modroot"} -C /dev/null --show-depends -S "$kver" "${modules[@]}" -a |
	awk '$1 == "insmod" {print $2}' | sort -u); do
	dst=$root/${m#"$modroot"}; dst=${dst%.xz}; dst=${dst%.zst}
	mkdir -p "$(dirname "$dst")"
	# busybox modprobe may not decompress: store modules plain.
	case $m in
	*.xz) xz -dc "$m" >"$dst" ;;
	*.zst) zstd -qdc "$m" >"$dst" ;;
	*) cp "$m" "$dst" ;;
	esac
done
depmod -b "$root" "$kver"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# Guest /init: host / (9p, read-only) + tmpfs overlay as root, then run
# /hostout/run.sh (written by run-guest.sh) in it, save rc + dmesg, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

die() {
	echo "drack-vm init: $*"
	poweroff -f; reboot -f
}
for m in virtio_pci 9pnet_virtio 9p overlay virtio_console; do modprobe "$m" || die "modprobe $m"; done
opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$opts,ro,cache=loose" hostroot /mnt/lower || die "mount hostroot"
mount -t tmpfs -o mode=0755 rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work overlay /newroot ||
	die "mount overlay"
r=/newroot
mkdir -p $r/hostout
mount -t 9p -o "$opts" hostout $r/hostout || die "mount hostout"
for d in proc sys dev; do mount --move /$d $r/$d; done
# /tmp is not a fresh tmpfs: it shows the host's /tmp (people run scripts
# from there) while writes stay in the overlay's tmpfs.
mount -t tmpfs -o mode=0755 tmpfs $r/run
mkdir -p $r/dev/shm $r/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $r/dev/shm
mount -t devpts -o ptmxmode=0666 devpts $r/dev/pts
mount -t debugfs debugfs $r/sys/kernel/debug
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null
hostname "$(cat $r/hostout/hostname 2>/dev/null || echo drack-vm)"
ip link set lo up
ulimit -n 65536

# Stage 2 runs as PID 1 in the new root: PID 1 shares its root with kernel
# threads, so usermode helpers (module autoload: "ip link add type veth")
# find the host's /sbin/modprobe. It saves rc and dmesg, then powers off.
cat >$r/run/drack-init <<'STAGE2'
bash /hostout/run.sh
rc=$?
dmesg >/hostout/dmesg
echo "$rc" >/hostout/rc
sync
echo o >/proc/sysrq-trigger
read -rt 10 </dev/console # no exec (9p goes away): wait with a builtin
echo b >/proc/sysrq-trigger
STAGE2
exec switch_root $r /bin/bash /run/drack-init
EOF
chmod +x "$root/init"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$tmp/initramfs.cpio.gz"
mv "$tmp/initramfs.cpio.gz" "$out/initramfs.cpio.gz"
echo "$stamp" >"$out/stamp"
echo "$out/initramfs.cpio.gz"
[[ -e $out/vmlinux ]] && echo "$out/vmlinux" || echo "$img"
