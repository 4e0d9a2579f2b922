# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Guest helpers of drack-rack, shared with run-guest.sh, mkinitramfs.sh and
# the test harness (tests/vm/lib.sh sources this file; tools never source
# anything under tests/). Source it from bash: . tools/rack/guest.sh
#
#   vm_log MSG / vm_die MSG                      messages (prefix $VM_ME)
#   vm_need_pkgs PKG...                          install missing Debian packages (root)
#   vm_default_kver                              newest 6.1 kernel with modules and image
#   vm_ivshmem_args PATH [ID]                    qemu args for an ivshmem-plain on PATH
#   vm_ivshmem_doorbell_args SOCKET [ID] [VECTORS]
#                                                qemu args for an ivshmem-doorbell served
#                                                by drack-ivshmem-server on SOCKET
#   VM_GUEST                                     tools/rack/run-guest.sh: boot one guest
#   VM_CACHE                                     the initramfs/vmlinux cache
#                                                ($DRACK_VM_CACHE, default tools/rack/.cache)

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_GUEST=$VM_DIR/run-guest.sh
VM_CACHE=${DRACK_VM_CACHE:-$VM_DIR/.cache}

vm_log() { echo "${VM_ME:-${0##*/}}: $*" >&2; }
vm_die() { vm_log "$*"; exit 2; }

# CI starts from a fresh Debian 12: install what is missing (needs root).
vm_need_pkgs() {
	local p missing=()
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	((EUID == 0)) || vm_die "missing packages (run as root to install them): ${missing[*]}"
	vm_log "installing ${missing[*]}"
	local apt=(apt-get -y -q -o DPkg::Lock::Timeout=600 install --no-install-recommends)
	DEBIAN_FRONTEND=noninteractive "${apt[@]}" "${missing[@]}" >&2 ||
		{ apt-get -q update >&2 && DEBIAN_FRONTEND=noninteractive "${apt[@]}" "${missing[@]}" >&2; }
}

# Newest 6.1 kernel with both modules and an image; the tests target Debian 12's 6.1.
# DRACK_KVER (make check KVER=...) picks another.
vm_default_kver() {
	local k
	if [[ -n ${DRACK_KVER:-} ]]; then
		[[ -e /boot/vmlinuz-$DRACK_KVER ]] && echo "$DRACK_KVER"
		return
	fi
	for k in /lib/modules/6.1.*; do
		k=${k##*/}
		[[ -e /boot/vmlinuz-$k ]] && echo "$k"
	done | sort -V | tail -n 1 | grep .
}

vm_ivshmem_args() {
	local id=${2:-shm0} size
	size=$(stat -c %s "$1")
	echo "-object memory-backend-file,id=$id,share=on,mem-path=$1,size=$size -device ivshmem-plain,memdev=$id"
}

# The memory comes from the server (drack-ivshmem-server -S SOCKET),
# which must be listening when the guest starts; VECTORS at least its -n.
vm_ivshmem_doorbell_args() {
	local id=${2:-ivs0} vectors=${3:-1}
	echo "-chardev socket,path=$1,id=$id -device ivshmem-doorbell,chardev=$id,vectors=$vectors"
}
