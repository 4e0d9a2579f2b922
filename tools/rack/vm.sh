# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# drack-rack: the pool, the doorbell server and the VMs' life cycle. Each VM
# is tools/rack/run-guest.sh running tools/rack/agent.sh, in its own session
# so that it outlives the drack-rack command that started it.

node_dir() { echo "$STATE/vm$1"; }
node_state() { cat "$STATE/vm$1/state" 2>/dev/null || echo stopped; }
node_set_state() { echo "$2" >"$STATE/vm$1/state"; }

node_qemu_pid() { cat "$STATE/vm$1/qemu.pid" 2>/dev/null; }
node_guest_pid() { cat "$STATE/vm$1/run-guest.pid" 2>/dev/null; }
node_running() { pid_alive "$(node_guest_pid "$1")" run-guest.sh; }
node_qemu_running() { pid_alive "$(node_qemu_pid "$1")" qemu-system; }

# ---- pool and doorbell server ----------------------------------------------

pool_create() {
	local bytes
	bytes=$(rack_bytes "$RACK_POOL_SIZE") || rack_die "bad pool size '$RACK_POOL_SIZE'"
	# A PCI BAR (ivshmem) is a power of two; a CXL window comes in 256 MB.
	if [[ $RACK_TRANSPORT == cxl ]]; then
		((bytes % (256 << 20) == 0)) || rack_die "--transport cxl needs a multiple of 256M as --pool-size"
	else
		((bytes >= (8 << 20) && (bytes & (bytes - 1)) == 0)) ||
			rack_die "--pool-size must be a power of two, at least 8M (an ivshmem BAR)"
	fi
	RACK_POOL=$(mktemp /dev/shm/drack-rack.XXXXXX) && truncate -s "$bytes" "$RACK_POOL" ||
		rack_die "cannot create the pool file in /dev/shm"
}

pool_remove() {
	[[ -n ${RACK_POOL:-} && $RACK_POOL == /dev/shm/drack-rack.* ]] || return 0
	rm -f "$RACK_POOL" "$RACK_POOL".lsa*
}

server_bin() { echo "$RACK_TOP/tools/ivshmem-server/drack-ivshmem-server"; }
server_sock() { echo "$STATE/ivshmem.sock"; }

server_start() {
	local bin sock pid
	bin=$(server_bin) sock=$(server_sock)
	[[ -x $bin ]] || rack_die "no $bin: --transport doorbell needs it (make tools)"
	rm -f "$sock"
	setsid "$bin" -S "$sock" -m "$RACK_POOL" -l "$(rack_bytes "$RACK_POOL_SIZE")" -n 1 \
		>"$STATE/server.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$STATE/server.pid"
	wait_until 10 test -S "$sock" || {
		tail -n 5 "$STATE/server.log" >&2
		rack_die "the doorbell server did not create $sock"
	}
	pid_alive "$pid" drack-ivshmem-server || rack_die "the doorbell server exited: $(tail -n 3 "$STATE/server.log")"
}

server_stop() {
	local pid
	pid=$(cat "$STATE/server.pid" 2>/dev/null) || return 0
	if pid_alive "$pid" drack-ivshmem-server; then
		kill "$pid" 2>/dev/null
		wait_until 5 eval "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null
	fi
	rm -f "$STATE/server.pid" "$(server_sock)"
}

# ---- the core network (--nic core) -------------------------------------------
#
# One virtio-net NIC per VM, "the physical NIC" of the DRack paper's NIC
# pool, on a network shared by every rack of the machine: QEMU's socket
# netdev on a UDP multicast group bound to the host's loopback (no root
# networking, no bridge or tap; every QEMU on GROUP:PORT sees every frame,
# virtio-net drops the unicast ones that are not for its MAC). VM V of rack
# R: MAC 52:54:00:RR:VV:01 (hex), 10.200.R.(V+1)/16, one flat subnet for all
# racks; egress capped with tc tbf in the guest.

CORE_DEFAULT=230.0.0.1:42000

core_mac() { printf '52:54:00:%02x:%02x:01' "$1" "$2"; }
core_ip() { echo "10.200.$1.$(($2 + 1))"; }

# rack_rate_bits RATE: tc's NUMBER{bit,kbit,mbit,gbit} in bit/s
rack_rate_bits() {
	local n u
	[[ ${1,,} =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] || return 1
	n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]}
	case $u in
	bit) echo "$n" ;;
	kbit) echo $((n * 1000)) ;;
	mbit) echo $((n * 1000000)) ;;
	gbit) echo $((n * 1000000000)) ;;
	esac
}

# The tbf bucket: 10 ms at the rate, at least 4 KB (a few full frames).
core_burst() {
	local b
	b=$(($(rack_rate_bits "$1") / 800))
	echo $((b < 4096 ? 4096 : b))
}

core_parse() {
	local g p o b
	case $RACK_NIC in
	none | core) ;;
	*) rack_die "--nic must be none or core" ;;
	esac
	[[ $RACK_ID =~ ^[0-9]+$ ]] && ((RACK_ID <= 255)) || rack_die "--rack: a rack id from 0 to 255"
	RACK_NIC_RATE=${RACK_NIC_RATE,,}
	[[ $RACK_NIC_RATE == none ]] || { b=$(rack_rate_bits "$RACK_NIC_RATE") && ((b >= 8000)); } ||
		rack_die "--nic-rate: a tc rate like 100mbit, 1gbit or 500kbit (at least 8kbit), or none"
	g=${RACK_CORE%:*} p=${RACK_CORE##*:}
	IFS=. read -r -a o <<<"$g"
	[[ $RACK_CORE == *:* && $g =~ ^[0-9]+(\.[0-9]+){3}$ && ${o[0]} -ge 224 && ${o[0]} -le 239 &&
		${o[1]} -le 255 && ${o[2]} -le 255 && ${o[3]} -le 255 && $p =~ ^[0-9]+$ ]] && ((p >= 1 && p <= 65535)) ||
		rack_die "--core: GROUP:PORT with an IPv4 multicast GROUP (224.0.0.0 to 239.255.255.255), e.g. $CORE_DEFAULT"
}

# Refuse a rack id already on the core network: another QEMU (of any state
# directory) whose NIC is on the same GROUP:PORT with a MAC of this rack.
core_check_free() {
	local mac re pid
	[[ $RACK_NIC == core ]] || return 0
	mac=$(core_mac "$RACK_ID" 0)
	re="qemu-system.* -netdev socket,id=core,mcast=${RACK_CORE//./\\.},.*,mac=${mac%:*:*}:"
	pid=$(pgrep -f -- "$re" | head -n 1)
	[[ -z $pid ]] ||
		rack_die "rack id $RACK_ID is already on the core network $RACK_CORE (QEMU pid $pid): another --rack, please"
}

# The core NIC of VM I (one string for --qemu-extra). romfile= : no iPXE ROM.
node_nic_args() {
	[[ $RACK_NIC == core ]] || return 0
	echo "-netdev socket,id=core,mcast=$RACK_CORE,localaddr=127.0.0.1" \
		"-device virtio-net-pci,netdev=core,mac=$(core_mac "$RACK_ID" "$1"),romfile="
}

# ---- QEMU arguments per transport ------------------------------------------

# The shared pool as each VM sees it (one string for --qemu-extra).
node_transport_args() {
	local i=$1 bytes mb lsa
	bytes=$(rack_bytes "$RACK_POOL_SIZE")
	case $RACK_TRANSPORT in
	ivshmem)
		vm_ivshmem_args "$RACK_POOL" pool0 ;;
	doorbell)
		if declare -F vm_ivshmem_doorbell_args >/dev/null; then
			vm_ivshmem_doorbell_args "$(server_sock)"
		else
			echo "-chardev socket,path=$(server_sock),id=ivs -device ivshmem-doorbell,chardev=ivs,vectors=1"
		fi ;;
	cxl)
		# Documentation/admin-guide.rst "Emulated rack": one type-3 device on
		# the shared file behind a CXL host bridge with two root ports (with
		# one, 6.1 drops the accesses), and a fixed memory window for it.
		mb=$((bytes >> 20))
		lsa=$RACK_POOL.lsa$i
		rm -f "$lsa" && truncate -s 256M "$lsa"
		echo "-M q35,cxl=on -m ${RACK_MEM}M,maxmem=$((RACK_MEM + 2 * mb + 1024))M,slots=4" \
			"-object memory-backend-file,id=cxl-mem1,share=on,mem-path=$RACK_POOL,size=$bytes" \
			"-object memory-backend-file,id=cxl-lsa1,share=on,mem-path=$lsa,size=256M" \
			"-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1" \
			"-device cxl-rp,port=0,bus=cxl.1,id=root_port13,chassis=0,slot=2" \
			"-device cxl-rp,port=1,bus=cxl.1,id=root_port14,chassis=0,slot=3" \
			"-device cxl-type3,bus=root_port13,memdev=cxl-mem1,lsa=cxl-lsa1,id=cxl-pmem0" \
			"-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=$(((mb + 4095) / 4096 * 4))G"
		# 6.12 cannot commit a region with the hypervisor CPUID bit set.
		[[ ${RACK_KVER:-} != 6.12.* ]] || echo "-cpu max,erms=off,fsrm=off,hypervisor=off"
		;;
	esac
}

# ---- one VM -----------------------------------------------------------------

# node_launch I: boot VM I in the background (run-guest.sh in its own session)
node_launch() {
	local i=$1 d extra args=()
	d=$(node_dir "$i")
	mkdir -p "$d/ctl" "$STATE/share"
	rm -f "$d"/ctl/* "$d"/{state,qemu.pid,run-guest.pid,fmd.log,agent.log}
	{
		printf 'RACK_VM=%q RACK_N=%q RACK_TRANSPORT=%q\n' "$i" "$RACK_N" "$RACK_TRANSPORT"
		printf 'RACK_DEAD_TIMEOUT=%q RACK_PARAMS=%q\n' "$RACK_DEAD_TIMEOUT" "$RACK_PARAMS"
		printf 'RACK_ID=%q RACK_NIC=%q RACK_NIC_RATE=%q\n' "$RACK_ID" "$RACK_NIC" "$RACK_NIC_RATE"
		if [[ $RACK_NIC == core ]]; then
			printf 'RACK_CORE_MAC=%q RACK_CORE_IP4=%q RACK_CORE_BURST=%q\n' "$(core_mac "$RACK_ID" "$i")" \
				"$(core_ip "$RACK_ID" "$i")" "$( [[ $RACK_NIC_RATE == none ]] || core_burst "$RACK_NIC_RATE")"
		fi
	} >"$d/agent.conf"
	node_set_state "$i" booting
	extra="$( { node_transport_args "$i"; node_nic_args "$i"; } | tr '\n' ' ') -pidfile $d/qemu.pid"
	[[ -z ${RACK_KVER:-} ]] || args+=(--kver "$RACK_KVER")
	[[ $RACK_TRANSPORT != cxl || ${RACK_KVER:-} != 6.12.* ]] || args+=(--append pcie_ports=compat)
	(cd "$RACK_TOP" && exec setsid tools/rack/run-guest.sh --name "rack-vm$i" --outdir "$d" \
		--smp "$RACK_SMP" --mem "$RACK_MEM" --timeout "$RACK_TIMEOUT" --share "$STATE/share" \
		"${args[@]}" --qemu-extra "$extra" -- bash tools/rack/agent.sh \
		>/dev/null 2>"$d/run-guest.err" </dev/null) &
	echo $! >"$d/run-guest.pid"
}

# node_wait_ready I DEADLINE: until the agent says ready (0) or failed, or
# the VM dies (1)
node_wait_ready() {
	local i=$1 deadline=$2 s
	while :; do
		s=$(node_state "$i")
		case $s in
		ready*) return 0 ;;
		failed*) rack_log "vm$i: $s"; tail -n 15 "$(node_dir "$i")/output" 2>/dev/null | sed "s/^/  vm$i| /" >&2; return 1 ;;
		esac
		if ! node_running "$i"; then
			rack_log "vm$i died while booting: $(tail -n 1 "$(node_dir "$i")/run-guest.err" 2>/dev/null)"
			tail -n 15 "$(node_dir "$i")/console.log" 2>/dev/null | sed "s/^/  vm$i| /" >&2
			return 1
		fi
		((SECONDS < deadline)) || { rack_log "vm$i: not ready after the timeout (state: $s)"; return 1; }
		sleep 0.3
	done
}

# node_kill I: SIGKILL its QEMU (a host that dies, as far as the pool knows)
node_kill() {
	local i=$1 q
	q=$(node_qemu_pid "$i")
	node_qemu_running "$i" || { rack_log "vm$i is not running"; return 1; }
	kill -9 "$q"
	wait_until 10 eval "! node_running $i" || true
	node_set_state "$i" killed
}

# node_poweroff I...: ask the agents to leave the pool and power off; kill
# what is still running after SECS
node_poweroff() {
	local i deadline=$((SECONDS + 90))
	for i; do
		node_running "$i" && : >"$(node_dir "$i")/ctl/stop"
	done
	for i; do
		while node_running "$i" && ((SECONDS < deadline)); do sleep 0.3; done
		if node_running "$i"; then
			rack_log "vm$i did not power off: killing it"
			node_qemu_running "$i" && kill -9 "$(node_qemu_pid "$i")"
			wait_until 10 eval "! node_running $i" || kill -9 "$(node_guest_pid "$i")" 2>/dev/null
		fi
	done
}

# The verdict of run-guest.sh on a VM that powered off: its last line.
node_verdict() { tail -n 1 "$(node_dir "$1")/run-guest.err" 2>/dev/null | sed 's/^run-guest\[[^]]*\]: //'; }
