#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The agent of one VM of an emulated rack (drack-rack), run by
# tools/rack/run-guest.sh as the guest's only command. It reads its settings
# from /hostout/agent.conf, loads drack.ko on the shared pool, creates rack0
# (host id = VM number), VM 0 runs drack-fmd; with drack-rack --nic core it
# also sets up the VM's NIC on the core network (nic_setup). Then it serves
# commands until told to stop, and the guest powers off.
#
# Command channel, in /hostout/ctl (the host's STATEDIR/vmI/ctl, 9p):
#   ID.cmd   a shell command line (written by the host; renamed ID.run here)
#   ID.out   its stdout+stderr, as it runs
#   ID.pid   its process group
#   ID.rc    its exit status, written last
#   ID.kill  the host wants it stopped (SIGTERM, then SIGKILL)
#   stop     leave the pool, power off
# Progress goes to /hostout/state: setup..., ready..., failed: WHY.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
OUT=/hostout
CTL=$OUT/ctl
. "$OUT/agent.conf"
# ip4/ip6/host_mac: rack0's addressing (shared with the netns tests)
# shellcheck source=addr.sh
. tools/rack/addr.sh
DRACK_KO=${DRACK_KO:-$PWD/kmod/drack.ko}
DRACK_FMD=${DRACK_FMD:-$PWD/tools/drack-fmd/drack-fmd}
export PATH=$PWD/tools/drackctl:$PWD/tools/drack-fmd:$PWD/tools/ivshmem-server:$PATH
# A 6.12 guest loads the module `make check-612` built for it.
if [[ $(uname -r) == 6.12.* && -e .build-612/kmod/drack.ko ]]; then
	DRACK_KO=$PWD/.build-612/kmod/drack.ko
fi

say() { local up; read -r up _ </proc/uptime; echo "[$up] agent[vm$RACK_VM]: $*"; }
state() { echo "$*" >"$OUT/state.new" && mv "$OUT/state.new" "$OUT/state"; say "$*"; }
fail() { state "failed: $*"; return 1; }
has_param() { modinfo -F parm "$DRACK_KO" 2>/dev/null | grep -q "^$1:"; }

FMD_PID=
NORACK=

# wait_for SECS CMD...: poll CMD every 0.1 s until it succeeds
wait_for() {
	local deadline=$((SECONDS + $1)); shift
	while ! "$@" >/dev/null 2>&1; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

# ---- CXL: the shared type-3 device as a devdax region -----------------------

# quiet CMD...: its output only if it fails (the cxl tools talk a lot)
quiet() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	((rc == 0)) || printf '%s: exit %d\n%s\n' "$*" "$rc" "$out"
	return $rc
}

# Sets PHYS to SIZE@ADDR of /dev/dax0.0 (Documentation/admin-guide.rst).
cxl_setup() {
	local d=/sys/bus/dax/devices/dax0.0 start size
	modprobe -a cxl_acpi cxl_pci cxl_mem cxl_pmem nd_pmem dax_pmem device_dax ||
		fail "modprobe of the CXL modules" || return
	wait_for 60 test -e /sys/bus/cxl/devices/mem0 || fail "no CXL memdev mem0 after 60 s" || return
	wait_for 30 test -e /sys/bus/cxl/devices/decoder0.0 || fail "no CXL root decoder0.0" || return
	if [[ ! -e $d ]]; then
		quiet cxl create-region -m -d decoder0.0 -t pmem -w 1 mem0 || fail "cxl create-region" || return
		wait_for 30 eval 'ndctl list -R -r region0 | grep -q region0' || fail "no nvdimm region0" || return
		quiet ndctl create-namespace -m devdax --map=mem --align 4K -r region0 || fail "ndctl create-namespace" || return
		wait_for 30 test -e "$d/resource" || fail "no $d after create-namespace" || return
	fi
	start=$(<"$d/resource") size=$(<"$d/size")
	PHYS=$(printf '0x%x@0x%x' "$size" "$start")
	say "CXL pool: /dev/dax0.0, $((size >> 20)) MB at $start"
}

# ---- drack.ko, drack-fmd, rack0 ---------------------------------------------

pool_up() { drackctl pool show 0 >/dev/null 2>&1; }

# drackctl link add rack0 pool 0 host I, retried while the host id is in use:
# a VM that was killed rejoins once the fabric manager reclaimed its id.
link_add() {
	local out last='' deadline=$((SECONDS + 600))
	while ! out=$(drackctl link add rack0 pool 0 host "$RACK_VM" 2>&1); do
		case $out in
		*"in use"* | *busy* | *"try again"*) ;;
		*) fail "drackctl link add rack0 pool 0 host $RACK_VM: $out"; return ;;
		esac
		[[ $out == "$last" ]] || say "link add: ${out#Error: } Retrying until the fabric manager frees host id $RACK_VM"
		last=$out
		((SECONDS < deadline)) || { fail "host id $RACK_VM still in use after 600 s"; return; }
		sleep 1
	done
}

setup() {
	local params=(ram_pool_mb=0) mac need=pool_format
	state "setup: loading drack.ko"
	[[ $RACK_TRANSPORT == cxl ]] && need=phys_pool
	if [[ $RACK_TRANSPORT == cxl ]]; then
		cxl_setup || return
		params+=("phys_pool=$PHYS")
	fi
	if ! has_param "$need"; then
		NORACK="$DRACK_KO has no $need parameter (no $RACK_TRANSPORT backend yet)"
		return 0
	fi
	((RACK_VM == 0)) && params+=(pool_format=1)
	((RACK_VM == 0 && RACK_N > 8)) && params+=("max_hosts=$RACK_N")
	# shellcheck disable=SC2206 # extra parameters, split on spaces
	params+=($RACK_PARAMS)
	say "insmod $DRACK_KO ${params[*]}"
	insmod "$DRACK_KO" "${params[@]}" || fail "insmod $DRACK_KO ${params[*]}" || return
	if ((RACK_VM == 0)); then
		"$DRACK_FMD" -v -o "dead-timeout-ms=$RACK_DEAD_TIMEOUT" -o "vnic-mac-rack=$RACK_ID" >"$OUT/fmd.log" 2>&1 </dev/null &
		FMD_PID=$!
	fi
	state "setup: waiting for pool 0"
	wait_for 600 pool_up || fail "pool 0 did not appear within 600 s" || return
	# No DAD; IPv6 addresses stay when the link goes down.
	sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.keep_addr_on_down=1 net.ipv6.conf.default.keep_addr_on_down=1
	state "setup: creating rack0 (host $RACK_VM)"
	link_add || return
	mac=$(</sys/class/net/rack0/address)
	[[ $mac == "$(host_mac "$RACK_VM")" ]] || fail "rack0 has MAC $mac, expected $(host_mac "$RACK_VM")" || return
	ip addr add "$(ip4 "$RACK_VM")/24" dev rack0 &&
		ip addr add "$(ip6 "$RACK_VM")/64" dev rack0 nodad &&
		ip link set rack0 up || fail "addresses or link up on rack0"
}

# ---- the core NIC (drack-rack --nic core) -------------------------------------

# Sets RACK_CORE_DEV: the interface with MAC RACK_CORE_MAC.
core_dev() {
	local f
	for f in /sys/class/net/*/address; do
		[[ -e $f && $(<"$f") == "$RACK_CORE_MAC" ]] || continue
		f=${f%/address} && RACK_CORE_DEV=${f##*/}
		return 0
	done
	return 1
}

# The VM's "physical NIC" on the core network shared by every rack:
# RACK_CORE_IP4/16 (10.200.RACK.VM+1), egress capped by tbf at RACK_NIC_RATE.
nic_setup() {
	[[ ${RACK_NIC:-none} == core ]] || return 0
	state "setup: core NIC $RACK_CORE_MAC"
	modprobe virtio_net || fail "modprobe virtio_net" || return
	wait_for 30 core_dev || fail "no interface with MAC $RACK_CORE_MAC (the core NIC) after 30 s" || return
	# IPv4 only: no DAD or router solicitations on the shared segment.
	sysctl -qw "net.ipv6.conf.$RACK_CORE_DEV.disable_ipv6=1"
	ip addr add "$RACK_CORE_IP4/16" dev "$RACK_CORE_DEV" && ip link set "$RACK_CORE_DEV" up ||
		fail "address or link up on $RACK_CORE_DEV" || return
	if [[ $RACK_NIC_RATE != none ]]; then
		modprobe sch_tbf
		tc qdisc replace dev "$RACK_CORE_DEV" root tbf rate "$RACK_NIC_RATE" burst "$RACK_CORE_BURST" latency 50ms ||
			fail "tc qdisc replace dev $RACK_CORE_DEV root tbf rate $RACK_NIC_RATE burst $RACK_CORE_BURST latency 50ms" || return
	fi
	say "core NIC $RACK_CORE_DEV ($RACK_CORE_MAC): $RACK_CORE_IP4/16, egress $RACK_NIC_RATE"
}

teardown() {
	local id
	for id in "${!JOBS[@]}"; do kill -TERM -- -"${JOBS[$id]}" 2>/dev/null; done
	[[ -z $FMD_PID ]] || kill "$FMD_PID" 2>/dev/null
	if [[ -e /sys/class/net/rack0 ]]; then
		say "leaving the pool"
		ip link del rack0 || say "ip link del rack0 failed"
	fi
	wait "$FMD_PID" 2>/dev/null
	if grep -q '^drack ' /proc/modules; then
		rmmod drack || say "rmmod drack failed"
	fi
}

# ---- commands -------------------------------------------------------------

declare -A JOBS=() # command id -> process group

run_cmd() {
	local id=$1
	mv "$CTL/$id.cmd" "$CTL/$id.run" 2>/dev/null || return 0
	(
		# Own session and process group: ID.kill stops it and its children.
		setsid bash "$CTL/$id.run" >"$CTL/$id.out" 2>&1 </dev/null &
		echo $! >"$CTL/$id.pid"
		wait $!
		echo $? >"$CTL/$id.rc.new" && mv "$CTL/$id.rc.new" "$CTL/$id.rc"
	) &
	JOBS[$id]=$!
	wait_for 5 test -s "$CTL/$id.pid"
	JOBS[$id]=$(<"$CTL/$id.pid")
}

kill_cmd() {
	local id=$1 pg=${JOBS[$1]:-}
	rm -f "$CTL/$id.kill"
	[[ -n $pg ]] || return 0
	say "killing command $id"
	(kill -TERM -- -"$pg"; sleep 2; kill -KILL -- -"$pg") 2>/dev/null &
}

serve() {
	local f id sl
	# read -t on a FIFO nobody writes: a sleep without a fork
	mkfifo /run/drack-rack-agent.sleep && exec {sl}<>/run/drack-rack-agent.sleep
	while [[ ! -e $CTL/stop ]]; do
		for f in "$CTL"/*.cmd; do
			[[ -e $f ]] || continue
			id=${f##*/} id=${id%.cmd}
			run_cmd "$id"
		done
		for f in "$CTL"/*.kill; do
			[[ -e $f ]] || continue
			id=${f##*/} id=${id%.kill}
			kill_cmd "$id"
		done
		for id in "${!JOBS[@]}"; do
			[[ -e $CTL/$id.rc || ! -e $CTL/$id.run ]] && unset "JOBS[$id]"
		done
		read -r -t 0.1 -u "$sl" _
	done
}

export RACK_VM RACK_N RACK_TRANSPORT RACK_IP4 RACK_IP6 RACK_ID RACK_CORE_DEV RACK_CORE_MAC RACK_CORE_IP4
RACK_IP4=$(ip4 "$RACK_VM") RACK_IP6=$(ip6 "$RACK_VM")
: "${RACK_ID:=0}" "${RACK_NIC:=none}" "${RACK_CORE_MAC:=}" "${RACK_CORE_IP4:=}"
RACK_CORE_DEV=
mkdir -p "$CTL"
say "$(uname -r), $RACK_TRANSPORT transport, VM $RACK_VM of $RACK_N"
rc=0
nic=
if ! setup || ! nic_setup; then
	rc=1
else
	[[ -z $RACK_CORE_DEV ]] || nic=", core NIC $RACK_CORE_DEV $RACK_CORE_IP4/16"
	if [[ -n $NORACK ]]; then
		state "ready (no rack: $NORACK)$nic"
	else
		state "ready: rack0 host $RACK_VM, $RACK_IP4/24, $RACK_IP6/64$nic"
	fi
fi
# Commands are served after a failed setup too: for a look around.
serve
say "stopping"
teardown
((rc)) || state stopped
exit $rc
