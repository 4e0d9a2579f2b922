# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# drack-rack demo: boot a rack of VMs (default 2) sharing one pool, run
# unmodified applications across rack0, show the counters, stop.
#
#   VM 0 (drack-fmd) ---+
#                        +--- shared pool (ivshmem BAR2 / CXL) --- rack0
#   VM 1 ---------------+

DEMO_FAILED=()

demo_say() { printf '\n== %s\n' "$*"; }

# demo_x VM CMD...: show and run CMD in VM; a failure is noted, not fatal
demo_x() {
	local vm=$1 rc=0; shift
	echo "vm$vm# $*"
	node_exec -t 300 "$vm" "$@" | tee "$STATE/demo/last.out" || rc=$?
	((rc == 0)) || { echo "(exit status $rc)"; DEMO_FAILED+=("vm$vm: $*"); }
	return $rc
}

demo_end() {
	trap - EXIT INT TERM
	demo_say "stopping the rack"
	rack_stop_all || DEMO_FAILED+=("a VM reported a problem (logs in $STATE)")
}

# demo_rtt FILE: ping's average round trip, from its rtt line
demo_rtt() { awk -F'/' '/^rtt|^round-trip/ { printf "%s ms", $5 }' "$1"; }

# What ran where and what it measured (rack_demo's locals).
demo_summary() {
	local row='%-30s %-16s %s\n' r=${redis# }
	demo_say "summary"
	# shellcheck disable=SC2059
	{
		printf "$row" WHAT WHERE RESULT
		printf "$row" "ping IPv4, 3 probes" "VM 1 -> VM 0" "rtt avg ${rtt4:-?}"
		printf "$row" "ping IPv6, 3 probes" "VM 1 -> VM 0" "rtt avg ${rtt6:-?}"
		printf "$row" "iperf3 TCP, 10 s" "VM 1 -> VM 0" "${iperf:-?}"
		printf "$row" "redis-benchmark SET, GET" "VM 1 -> VM 0" "${r:-?}"
		printf "$row" "receive by reference" "VM 0" "${byref:-?}"
		printf "$row" "Sections granted by drack-fmd" "VM 0 (fmd)" "${sections:-?}"
	}
}

rack_demo() {
	local i n v4 v6 t0=$SECONDS iperf='' redis='' byref='' rtt4='' rtt6='' sections=''
	RACK_DIR_OPT=${RACK_DIR_OPT:-/run/drack-rack-demo}
	rack_parse_start "$@"
	rack_need_root
	rack_set_dir "$RACK_DIR_OPT"
	# ip4, ip6: the addresses the agents give rack0
	# shellcheck source=addr.sh
	. "$RACK_TOP/tools/rack/addr.sh"
	mkdir -p "$STATE/demo"
	rack_has_backend || rack_die "kmod/drack.ko has no $(rack_backend_param) parameter: it has no $RACK_TRANSPORT backend yet (make kmod?)"
	((RACK_N >= 2)) || rack_die "the demo needs 2 VMs or more"
	rack_need_pkgs iputils-ping iperf3 redis-server redis-tools
	n=$RACK_N
	v4=$(ip4 0) v6=$(ip6 0)

	demo_say "booting $n VMs on one $RACK_POOL_SIZE pool ($RACK_TRANSPORT), 1 vCPU each (QEMU, TCG: about a minute)"
	trap 'demo_end; exit 130' INT TERM
	trap demo_end EXIT
	rack_start_parsed || { DEMO_FAILED+=("start"); return 1; }
	for ((i = 0; i < n; i++)); do
		demo_x "$i" "drackctl link show dev rack0 && ethtool -i rack0 | grep -E '^(driver|bus-info)'"
	done
	demo_x 0 'drackctl pool show 0'

	demo_say "ping from every VM to VM 0 ($v4, $v6) over rack0"
	for ((i = 1; i < n; i++)); do
		demo_x "$i" "timeout 60 ping -c 3 -q $v4 | tail -n 2" && ((i == 1)) &&
			rtt4=$(demo_rtt "$STATE/demo/last.out")
		demo_x "$i" "timeout 60 ping -6 -c 3 -q $v6 | tail -n 2" && ((i == 1)) &&
			rtt6=$(demo_rtt "$STATE/demo/last.out")
	done

	demo_say "iperf3: VM 1 sends to VM 0 for 10 s (TCP over rack0)"
	demo_x 0 'iperf3 -s -1 -D -p 5201 && sleep 1'
	demo_x 1 "timeout 90 iperf3 -c $v4 -p 5201 -t 10 -f m | grep -E 'sender|receiver'" &&
		iperf=$(awk '/receiver/ { print $7, $8 }' "$STATE/demo/last.out")

	demo_say "redis-server on VM 0, redis-benchmark from VM 1"
	demo_x 0 "redis-server --bind $v4 --port 6390 --save '' --appendonly no --protected-mode no --daemonize yes >/dev/null && sleep 1"
	demo_x 1 "timeout 180 redis-benchmark -h $v4 -p 6390 -q -n 2000 -t set,get | tr '\r' '\n' | grep 'requests per second'" &&
		redis=$(awk -F'[:,]' '/requests per second/ { printf "%s %s %d/s", sep, $1, $2; sep = "," }' "$STATE/demo/last.out")

	demo_say "rack0 counters (drackctl -s link show; ethtool -S, non-zero)"
	sleep 1
	for ((i = 0; i < n; i++)); do
		demo_x "$i" "drackctl -s link show dev rack0"
		demo_x "$i" "ethtool -S rack0 | awk -F': ' '\$2 != 0' | grep -v '^ *peer'"
	done
	# How VM 0 received: by reference (pool pages under its sockets) or copied.
	demo_x 0 "ethtool -S rack0 | grep -E '^ *rx_(refs|byref):'" >/dev/null &&
		byref=$(awk -F': *' '/rx_refs/ { r = $2 } /rx_byref/ { b = $2 } END { if (r) printf "%d of %d frames (%d%%)", b, r, 100 * b / r }' "$STATE/demo/last.out")
	demo_say "Sections granted by drack-fmd (VM 0)"
	grep 'granted Section' "$(node_dir 0)/fmd.log" | tail -n 12
	sections=$(awk '/granted Section/ { for (i = 1; i < NF; i++) if ($i == "host") n[$(i + 1)]++ }
		END { for (h = 0; h < 64; h++) if (h in n) { printf "%sVM %d: %d", sep, h, n[h]; sep = ", " } }' "$(node_dir 0)/fmd.log")

	demo_end
	echo
	if ((${#DEMO_FAILED[@]})); then
		printf 'demo: FAILED: %s\n' "${DEMO_FAILED[@]}"
		return 1
	fi
	demo_summary
	echo "demo: ok ($((SECONDS - t0)) s): $n VMs on one $RACK_TRANSPORT pool; iperf3 VM 1 -> VM 0: ${iperf:-?};" \
		"redis-benchmark${redis:- ?}; VM 0 received by reference ${byref:-?}"
}
