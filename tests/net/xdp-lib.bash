# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Attaching the XDP programs of tests/xdp/ and reading their maps, shared
# by xdp.sh and queues.sh (sourced after lib.sh).
#
#   xdp_attach NS DEV PROG   attach PROG.bpf.o in driver mode, replacing any
#   xdp_prog NS DEV          "MODE ID" of the program on DEV
#   xdp_map NS DEV NAME      id of the attached program's map NAME
#   map_get ID KEY           a u64 value of an array map

if [[ -n $DRACK_TOP ]]; then XDP_DIR=$DRACK_TOP/tests/xdp; else XDP_DIR=$DRACK_TESTDIR; fi

# xdp_attach NS DEV PROG: attach tests/xdp/PROG.bpf.o, replacing any
xdp_attach() {
	ip -n "$1" -force link set dev "$2" xdp obj "$XDP_DIR/$3.bpf.o" sec xdp
}

# xdp_prog NS DEV: "MODE ID" of the program on DEV (mode 1: native)
xdp_prog() {
	ip -n "$1" -j -d link show dev "$2" | jq -r '.[0].xdp | "\(.mode) \(.prog.id)"'
}

# xdp_map NS DEV NAME: id of the attached program's map NAME
xdp_map() {
	local id m
	read -r _ id <<<"$(xdp_prog "$1" "$2")"
	[[ $id =~ ^[0-9]+$ ]] || return 1
	for m in $(bpftool -j prog show id "$id" | jq -r '.map_ids[]'); do
		[[ $(bpftool -j map show id "$m" | jq -r .name) == "$3" ]] && { echo "$m"; return 0; }
	done
	return 1
}

# map_get ID KEY: a u64 value of an array map (parsed in bash: a python3
# per read cost 0.1-0.2 s under TCG, and the tests read maps in loops)
map_get() {
	local j b v=0 i=0
	j=$(bpftool -j map lookup id "$1" key "$2" 0 0 0) || return 1
	if [[ $j =~ \"formatted\":\{\"key\":[0-9]+,\"value\":([0-9]+)\} ]]; then
		echo "${BASH_REMATCH[1]}"
		return 0
	fi
	[[ $j =~ \"value\":\[([^]]*)\] ]] || { echo "map_get: $j" >&2; return 1; }
	for b in ${BASH_REMATCH[1]//[\",]/ }; do
		v=$((v + (b << (8 * i)))) i=$((i + 1))
	done
	echo "$v"
}
