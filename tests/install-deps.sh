#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# install-deps.sh: install what building drack and running its test suite
# need on a fresh Debian 12. Idempotent: installs only what is missing,
# runs `apt-get update` at most once and only when needed, starts no
# service. Needs root when something is missing.
set -euo pipefail

log() { echo "install-deps: $*" >&2; }

pkgs=(
	build-essential linux-headers-amd64 linux-image-amd64 linux-source-6.1
	qemu-system-x86 busybox-static kmod cpio gzip xz-utils zstd
	iproute2 iputils-ping iperf3 sockperf redis-server redis-tools ethtool curl
	libnl-3-dev libnl-genl-3-dev pkg-config python3 procps psmisc
	clang libbpf-dev bpftool libjson-c-dev
	ndctl daxctl mptcpize
	linux-source-6.12 python3-yaml python3-jsonschema linux-perf tcpdump socat
	rsync jq
	# make deb, tests/pkg: dpkg-buildpackage, dh_dkms; dkms for drack-dkms
	dpkg-dev debhelper dh-dkms dkms
)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

updated=0
apt_update() {
	((updated)) && return 0
	log "apt-get update"
	apt-get -q update >&2
	updated=1
}

have_lists() {
	compgen -G '/var/lib/apt/lists/*_Packages' >/dev/null ||
		compgen -G '/var/lib/apt/lists/*_Packages.*' >/dev/null
}

# No service may start while we install (redis-server would).
policy=/usr/sbin/policy-rc.d
own_policy=0
block_services() {
	[[ -e $policy ]] && return 0
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	own_policy=1
}
unblock_services() {
	((own_policy)) && rm -f "$policy"
	own_policy=0
	return 0
}
trap unblock_services EXIT

apt_install() {
	local apt=(apt-get -y -q -o DPkg::Lock::Timeout=600
		   -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold
		   install --no-install-recommends)
	block_services
	log "installing $*"
	if ! DEBIAN_FRONTEND=noninteractive "${apt[@]}" "$@" >&2; then
		((updated)) && return 1
		apt_update
		DEBIAN_FRONTEND=noninteractive "${apt[@]}" "$@" >&2
	fi
}

# The newest Debian 12 6.12 kernel headers (for `make check-612`).
newest_612() {
	apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1
}

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done

h612=
if ! compgen -G '/usr/src/linux-headers-6.12.*+deb12-amd64' >/dev/null; then
	have_lists || apt_update
	h612=$(newest_612)
	if [[ -z $h612 ]] && ((!updated)); then
		apt_update
		h612=$(newest_612)
	fi
	[[ -n $h612 ]] || { log "no linux-headers-6.12.*+deb12-amd64 package found"; exit 1; }
	missing+=("$h612")
fi
# Its image too: the multi-VM CXL test boots 6.12 guests.
k612=${h612#linux-headers-}
if [[ -z $k612 ]]; then
	k612=$(cd /usr/src && ls -d linux-headers-6.12.*+deb12-amd64 | sort -V | tail -n 1)
	k612=${k612#linux-headers-}
fi
[[ -e /boot/vmlinuz-$k612 ]] || installed "linux-image-$k612" || missing+=("linux-image-$k612")

if ((${#missing[@]})); then
	((EUID == 0)) || { log "missing packages, run as root: ${missing[*]}"; exit 1; }
	have_lists || apt_update
	apt_install "${missing[@]}"
fi
unblock_services

# redis-server's package enables a service; the tests start their own.
if [[ -d /run/systemd/system ]] && systemctl is-enabled redis-server >/dev/null 2>&1; then
	systemctl disable --now redis-server >&2 || true
fi

log "all dependencies present"
