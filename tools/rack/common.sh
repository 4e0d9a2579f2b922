# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# drack-rack: state directory, configuration, logging, packages.
#
# STATEDIR (--dir, $DRACK_RACK_DIR, default /run/drack-rack) holds:
#   rack.conf         the running rack's settings (absent: no rack)
#   server.pid/.log   the doorbell server (--transport doorbell)
#   share/            /hostshare in every VM (read-write)
#   vmI/              VM I's run-guest.sh output dir, /hostout in the VM:
#                     output (agent log), console.log, dmesg, fmd.log (VM 0),
#                     state, qemu.pid, run-guest.pid, run-guest.err, ctl/

RACK_ME=drack-rack
rack_log() { echo "$RACK_ME: $*" >&2; }
rack_die() { rack_log "$*"; exit 2; }

rack_need_root() {
	((EUID == 0)) || rack_die "needs root (QEMU guests, /dev/shm, packages)"
}

# rack_need_pkgs PKG...: install the missing Debian packages (the guests
# run the host's own binaries), without starting their services.
rack_need_pkgs() {
	local policy=/usr/sbin/policy-rc.d own=0 rc=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own=1
	fi
	VM_ME=$RACK_ME vm_need_pkgs "$@" || rc=$?
	((own)) && rm -f "$policy"
	return $rc
}

rack_set_dir() {
	STATE=${1:-${DRACK_RACK_DIR:-/run/drack-rack}}
	mkdir -p "$STATE" || rack_die "cannot create $STATE"
	STATE=$(realpath "$STATE")
	# Paths reach QEMU through run-guest.sh --qemu-extra, split on spaces,
	# and the doorbell socket must fit a sun_path.
	[[ $STATE != *[[:space:],]* ]] || rack_die "$STATE: no spaces or commas in the state directory, please"
	((${#STATE} < 90)) || rack_die "$STATE: path too long for a Unix socket below it"
}

# Settings of the running rack, as shell assignments.
RACK_VARS=(RACK_N RACK_TRANSPORT RACK_POOL RACK_POOL_SIZE RACK_SMP RACK_MEM
	RACK_KVER RACK_TIMEOUT RACK_DEAD_TIMEOUT RACK_PARAMS RACK_STARTED
	RACK_ID RACK_NIC RACK_NIC_RATE RACK_CORE)

rack_save_conf() {
	local v
	for v in "${RACK_VARS[@]}"; do
		printf '%s=%q\n' "$v" "${!v}"
	done >"$STATE/rack.conf.tmp"
	mv "$STATE/rack.conf.tmp" "$STATE/rack.conf"
}

rack_have_conf() { [[ -s $STATE/rack.conf ]]; }

rack_load_conf() {
	rack_have_conf || rack_die "no rack running in $STATE (drack-rack start)"
	# shellcheck disable=SC1091
	. "$STATE/rack.conf"
}

# rack_vm_check VM: a VM number of the running rack
rack_vm_check() {
	[[ $1 =~ ^[0-9]+$ ]] && (($1 < RACK_N)) || rack_die "no VM '$1' (the rack has VMs 0 to $((RACK_N - 1)))"
}

# Size like 64M, 1G or bytes, to bytes.
rack_bytes() {
	local s=${1^^} m=1
	case $s in
	*K) m=1024 ;;
	*M) m=$((1024 * 1024)) ;;
	*G) m=$((1024 * 1024 * 1024)) ;;
	esac
	s=${s%[KMG]}
	[[ $s =~ ^[0-9]+$ ]] || return 1
	echo $((s * m))
}

# pid_alive PID PATTERN: PID runs and its command line matches PATTERN
# (not some other process that got the number).
pid_alive() {
	local cmd
	[[ -n $1 ]] && kill -0 "$1" 2>/dev/null || return 1
	cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
	[[ $cmd == *$2* ]]
}

# wait_until SECS CMD...: poll CMD every 0.1 s until it succeeds
wait_until() {
	local deadline=$((SECONDS + $1)); shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}
