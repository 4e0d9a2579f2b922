# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# drack-rack start, stop, status, kill, boot, log.
# shellcheck disable=SC2034 # the RACK_ settings are saved by rack_save_conf

RACK_N=2 RACK_TRANSPORT=ivshmem RACK_POOL='' RACK_POOL_SIZE='' RACK_SMP=1 RACK_MEM=768
RACK_KVER='' RACK_TIMEOUT=0 RACK_DEAD_TIMEOUT=5000 RACK_PARAMS='' RACK_STARTED=''
RACK_BOOT_TIMEOUT=900
# The core network (--nic core): rack id, NIC mode, egress cap, mcast group.
RACK_ID=0 RACK_NIC=none RACK_NIC_RATE=100mbit RACK_CORE=$CORE_DEFAULT

# rack_parse_start ARGS...: the options of start (and demo)
rack_parse_start() {
	local dir=
	while (($#)); do
		(($# >= 2)) || rack_die "$1: needs a value (drack-rack help)"
		case $1 in
		-n) RACK_N=$2 ;;
		--transport) RACK_TRANSPORT=$2 ;;
		--pool-size) RACK_POOL_SIZE=$2 ;;
		--smp) RACK_SMP=$2 ;;
		--mem) RACK_MEM=$2 ;;
		--dir) dir=$2 ;;
		--kver) RACK_KVER=$2 ;;
		--timeout) RACK_TIMEOUT=$2 ;;
		--dead-timeout) RACK_DEAD_TIMEOUT=$2 ;;
		--params) RACK_PARAMS=$2 ;;
		--boot-timeout) RACK_BOOT_TIMEOUT=$2 ;;
		--rack) RACK_ID=$2 ;;
		--nic) RACK_NIC=$2 ;;
		--nic-rate) RACK_NIC_RATE=$2 ;;
		--core) RACK_CORE=$2 ;;
		*) rack_die "unknown option $1 (drack-rack help)" ;;
		esac
		shift 2
	done
	[[ -z $dir ]] || RACK_DIR_OPT=$dir
	case $RACK_TRANSPORT in
	ivshmem | doorbell) : "${RACK_POOL_SIZE:=64M}" ;;
	cxl) : "${RACK_POOL_SIZE:=256M}" ;;
	*) rack_die "--transport must be ivshmem, doorbell or cxl" ;;
	esac
	[[ $RACK_N =~ ^[0-9]+$ ]] && ((RACK_N >= 1 && RACK_N <= 64)) || rack_die "-n: 1 to 64 VMs"
	[[ $RACK_SMP =~ ^[1-9][0-9]*$ && $RACK_MEM =~ ^[1-9][0-9]*$ ]] || rack_die "--smp and --mem take numbers"
	[[ $RACK_TIMEOUT =~ ^[0-9]+$ && $RACK_DEAD_TIMEOUT =~ ^[0-9]+$ ]] || rack_die "--timeout and --dead-timeout take numbers"
	core_parse
}

# Which parameter the transport's backend needs in drack.ko.
rack_backend_param() { [[ $RACK_TRANSPORT == cxl ]] && echo phys_pool || echo pool_format; }
rack_has_backend() { modinfo -F parm "$RACK_TOP/kmod/drack.ko" 2>/dev/null | grep -q "^$(rack_backend_param):"; }

rack_start() {
	rack_parse_start "$@"
	rack_need_root
	rack_set_dir "${RACK_DIR_OPT:-}"
	rack_start_parsed
}

rack_start_parsed() {
	local i fail=0 deadline t0=$SECONDS f
	if rack_have_conf; then
		# shellcheck disable=SC1091
		(
			. "$STATE/rack.conf"
			for ((i = 0; i < RACK_N; i++)); do node_running "$i" && exit 1; done
			rack_log "cleaning up a rack that is no longer running"
			rack_stop_all >/dev/null 2>&1
			exit 0
		) || rack_die "a rack is running in $STATE: drack-rack stop first (or --dir)"
	fi
	for f in kmod/drack.ko tools/drackctl/drackctl tools/drack-fmd/drack-fmd; do
		[[ -e $RACK_TOP/$f ]] || rack_die "no $f: run make first"
	done
	rack_need_pkgs qemu-system-x86 iproute2 ethtool kmod util-linux
	core_check_free
	[[ $RACK_TRANSPORT != cxl ]] || rack_need_pkgs ndctl daxctl
	rack_has_backend ||
		rack_log "warning: kmod/drack.ko has no $(rack_backend_param) parameter (no $RACK_TRANSPORT backend): the VMs boot without rack0"
	rm -rf "$STATE"/vm[0-9]* "$STATE/share" "$STATE"/server.*
	pool_create
	RACK_STARTED=$(date '+%F %T')
	rack_save_conf
	[[ $RACK_TRANSPORT != doorbell ]] || server_start
	rack_log "booting $RACK_N VMs ($RACK_TRANSPORT transport, $RACK_POOL_SIZE pool $RACK_POOL, state in $STATE)"
	[[ $RACK_NIC != core ]] || rack_log "rack $RACK_ID on the core network $RACK_CORE: $(core_ip "$RACK_ID" 0)/16 and up, $RACK_NIC_RATE per NIC"
	for ((i = 0; i < RACK_N; i++)); do
		node_launch "$i"
	done
	deadline=$((SECONDS + RACK_BOOT_TIMEOUT))
	for ((i = 0; i < RACK_N; i++)); do
		node_wait_ready "$i" "$deadline" || fail=1
	done
	for ((i = 0; i < RACK_N; i++)); do
		echo "vm$i: $(node_state "$i")"
	done
	if ((fail)); then
		rack_log "the rack did not come up; it is left as it is for a look (drack-rack stop)"
		return 1
	fi
	rack_log "up in $((SECONDS - t0)) s: drack-rack exec VM CMD..., drack-rack stop"
}

# Power everything off (VM 0, with the fabric manager, last), stop the
# server, remove the pool; print every VM's verdict. 1 if a VM that was not
# killed on purpose reported a problem (run-guest.sh: rc, dmesg scan).
rack_stop_all() {
	local i others=() rc=0 v
	for ((i = 1; i < RACK_N; i++)); do others+=("$i"); done
	((${#others[@]} == 0)) || node_poweroff "${others[@]}"
	node_poweroff 0
	server_stop
	pool_remove
	for ((i = 0; i < RACK_N; i++)); do
		[[ -e $(node_dir "$i")/run-guest.err ]] || continue
		if [[ $(node_state "$i") == killed ]]; then
			echo "vm$i: killed"
			continue
		fi
		v=$(node_verdict "$i")
		echo "vm$i: ${v:-no verdict}"
		if [[ $v != ok* ]]; then
			rc=1
			grep -v ': FAIL rc=' "$(node_dir "$i")/run-guest.err" | tail -n 25 | sed "s/^/  vm$i| /"
		fi
	done
	rm -f "$STATE/rack.conf"
	return $rc
}

rack_stop() {
	rack_need_root
	rack_have_conf || { rack_log "no rack running in $STATE"; return 0; }
	rack_load_conf
	rack_stop_all || { rack_log "a VM reported a problem; logs in $STATE/vm*/"; return 1; }
	rack_log "stopped; logs in $STATE/vm*/"
}

rack_status() {
	local i s up=0
	rack_load_conf
	for ((i = 0; i < RACK_N; i++)); do node_running "$i" && up=$((up + 1)); done
	echo "rack: $up of $RACK_N VMs up, $RACK_TRANSPORT, pool $RACK_POOL ($RACK_POOL_SIZE), since $RACK_STARTED, state in $STATE"
	[[ $RACK_NIC != core ]] ||
		echo "core network: $RACK_CORE (UDP multicast on the host's loopback), rack $RACK_ID, NICs $(core_ip "$RACK_ID" 0)/16 and up, egress $RACK_NIC_RATE"
	if [[ $RACK_TRANSPORT == doorbell ]]; then
		pid_alive "$(cat "$STATE/server.pid" 2>/dev/null)" drack-ivshmem-server &&
			echo "doorbell server: running" || echo "doorbell server: NOT running"
	fi
	for ((i = 0; i < RACK_N; i++)); do
		s=$(node_state "$i")
		node_running "$i" || { echo "vm$i: down (last state: $s)"; continue; }
		echo "vm$i: up, $s"
		[[ $s == ready* ]] || continue
		if [[ $s == "ready: "* ]]; then
			node_exec -t 30 "$i" 'drackctl link show dev rack0; ip -br addr show dev rack0' | sed 's/^/    /'
			((i == 0)) && node_exec -t 30 0 'drackctl host show pool 0' | sed 's/^/    /'
		fi
		# The core NIC: its name (found by MAC in the VM), address, qdisc.
		[[ $RACK_NIC != core ]] ||
			node_exec -t 30 "$i" 'echo "core NIC $RACK_CORE_DEV ($RACK_CORE_MAC): $(ip -br -4 addr show dev "$RACK_CORE_DEV" | cut -c 18- | tr -s " ")"
				tc qdisc show dev "$RACK_CORE_DEV" root' |
			sed 's/^/    /'
	done
	return 0
}

rack_kill() {
	(($# == 1)) || rack_die "usage: drack-rack kill VM"
	rack_need_root
	rack_load_conf
	rack_vm_check "$1"
	node_kill "$1" && rack_log "vm$1 killed (SIGKILL to its QEMU)"
}

rack_boot() {
	local t0=$SECONDS
	(($# == 1)) || rack_die "usage: drack-rack boot VM"
	rack_need_root
	rack_load_conf
	rack_vm_check "$1"
	! node_running "$1" || rack_die "vm$1 is running"
	node_launch "$1"
	node_wait_ready "$1" $((SECONDS + RACK_BOOT_TIMEOUT)) || return 1
	echo "vm$1: $(node_state "$1")"
	rack_log "vm$1 up in $((SECONDS - t0)) s"
}

rack_logs() {
	local f
	(($# >= 1)) || rack_die "usage: drack-rack log VM [agent|console|dmesg|fmd|qemu]"
	rack_load_conf
	rack_vm_check "$1"
	case ${2:-agent} in
	agent) f=output ;;
	console) f=console.log ;;
	dmesg) f=dmesg ;;
	fmd) f=fmd.log ;;
	qemu) f=qemu.err ;;
	*) rack_die "log: agent, console, dmesg, fmd or qemu" ;;
	esac
	cat "$(node_dir "$1")/$f"
}
