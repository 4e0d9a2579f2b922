# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# drack-rack: the pool, the doorbell server and the VMs' life cycle. Each VM
# is tests/vm/run-guest.sh running tools/rack/agent.sh, in its own session
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

server_bin() { echo "$RACK_TOP/tools/drack-ivshmem-server"; }
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
	} >"$d/agent.conf"
	node_set_state "$i" booting
	extra="$(node_transport_args "$i" | tr '\n' ' ') -pidfile $d/qemu.pid"
	[[ -z ${RACK_KVER:-} ]] || args+=(--kver "$RACK_KVER")
	[[ $RACK_TRANSPORT != cxl || ${RACK_KVER:-} != 6.12.* ]] || args+=(--append pcie_ports=compat)
	(cd "$RACK_TOP" && exec setsid tests/vm/run-guest.sh --name "rack-vm$i" --outdir "$d" \
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
