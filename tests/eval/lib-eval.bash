# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The evaluation's steps (tests/eval/eval.sh), on the lab of
# tests/multi/nic-lab.bash (source that first). Host h = rack h/2, VM h%2.
#
#   eval_deps                  install the packages the evaluation needs
#   eval_routes                the tor and drack paths to every peer (below)
#   eval_servers               redis-server (tor: 6379, drack: 6380 under
#                              mptcpize) on H0 and H2, preloaded; tcp-rr on H1
#   eval_theta TH              every NIC's tbf at TH x C
#   eval_delay NS              pool_delay_ns in every VM
#   run_redis MODE TH NS REP   one redis run, a raw line per client
#   run_coll ALGO MODE TH REP [UTIL]
#                              one Gloo run (ring|ps), a raw line per rank;
#                              UTIL: sample rack 0's NICs every 100 ms
#   run_rr MODE BYREF TH NS REP
#                              one tcp-rr run H0 -> H1 (intra-rack)
#
# Raw lines (RAW): "w=WORKLOAD mode=tor|drack theta=TH delay=NS rep=N
# [client=H] key=value..." as the tools print them.

EVAL_BIN=$TOP/tests/eval
EVAL_KEYS=${EVAL_KEYS:-1000} EVAL_VALUE=${EVAL_VALUE:-1024} EVAL_CONNS=${EVAL_CONNS:-4}

eval_deps() {
	# shellcheck source=/dev/null
	. "$TOP/tools/rack/guest.sh"
	VM_ME="eval" vm_need_pkgs libhiredis-dev libgloo-dev g++ gnuplot-nox redis-server mptcpize python3
}

# hx H CMD: rx on host H
hx() { local h=$1; shift; rx $((h / 2)) $((h % 2)) "$@"; }

# Every VM: a /32 route to each peer address, so that where a packet goes
# depends only on the address an application picked (not on which of
# three connected 10.200/16 routes the kernel prefers):
#   peer core NIC address      own core NIC (the ToR path)
#   other rack's rack0vN       rack0vV, V this VM's number: the vNIC of its
#                              own NIC (the NIC pool; MPTCP adds the other)
#   own rack's rack0vN         rack0 (the pool), in the main table and in
#                              the vNIC tables 100/101 (bound sockets,
#                              MPTCP subflows); a permanent neighbour entry
#                              with the peer's rack0 MAC: no ARP on rack0
#                              for addresses that are not rack0's
# and MPTCP: drackctl nic mptcp on (subflow endpoints on both vNICs), the
# other NIC's vNIC endpoint also "signal", so the peer opens a subflow to
# it and this host's replies leave through both NICs too. A host's own
# address on the drack path is its own NIC's vNIC (eval_addr): so that
# not every host's first subflow goes through NIC 0.
eval_routes() {
	local -A mac=()
	local h p r v cmd me
	for h in 0 1 2 3; do
		mac[$h]=$(hx "$h" 'cat /sys/class/net/rack0/address') || { echo "H$h: no rack0"; return 1; }
	done
	for h in 0 1 2 3; do
		r=$((h / 2)) v=$((h % 2)) me=$(eval_addr drack "$h")
		cmd="set -e; sysctl -qw net.ipv4.conf.rack0.rp_filter=0 net.mptcp.enabled=1"
		for p in 0 1 2 3; do
			((p == h)) && continue
			cmd+="; ip route replace $(core_ip $((p / 2)) $((p % 2)))/32 dev \$RACK_CORE_DEV src $(core_ip "$r" "$v")"
			for n in 0 1; do
				a=$(vnic_ip $((p / 2)) $((p % 2)) "$n")
				if ((p / 2 != r)); then
					cmd+="; ip route replace $a/32 dev rack0v$v src $me"
				else
					cmd+="; ip neigh replace $a lladdr ${mac[$p]} dev rack0 nud permanent"
					cmd+="; ip route replace $a/32 dev rack0 src $me"
					cmd+="; ip route replace $a/32 dev rack0 src $(vnic_ip "$r" "$v" 0) table 100"
					cmd+="; ip route replace $a/32 dev rack0 src $(vnic_ip "$r" "$v" 1) table 101"
				fi
			done
		done
		a=$(vnic_ip "$r" "$v" $((1 - v)))
		cmd+="; drackctl nic mptcp on >/dev/null"
		cmd+="; id=\$(ip mptcp endpoint show | awk '\$1 == \"$a\" { for (i = 2; i < NF; i++) if (\$i == \"id\") print \$(i + 1) }')"
		cmd+="; ip mptcp endpoint delete id \$id; ip mptcp endpoint add $a dev rack0v$((1 - v)) signal subflow"
		cmd+="; ip mptcp endpoint show; ip route show | grep /32 | head -n 3"
		echo "H$h:"
		hx "$h" "$cmd" || { echo "H$h: routes or MPTCP endpoints failed"; return 1; }
	done
	# Check the paths: the first hop of each kind from H0.
	hx 1 "ip route get $(eval_addr drack 0); ip route get $(eval_addr drack 2); ip route get $(eval_addr tor 0)"
}

# eval_addr MODE H: host H's address on the tor or the drack path
eval_addr() {
	local r=$(($2 / 2)) v=$(($2 % 2))
	if [[ $1 == tor ]]; then core_ip "$r" "$v"; else vnic_ip "$r" "$v" "$v"; fi
}

eval_servers() {
	local h i=0 port pre
	for h in 0 2; do
		for port in 6379 6380; do
			pre=
			((port == 6380)) && pre="mptcpize run"
			hx "$h" "$pre redis-server --port $port --bind 0.0.0.0 --protected-mode no --save '' \
				--appendonly no --daemonize yes --logfile /hostout/redis-$port.log &&
				sleep 1 && $EVAL_BIN/redis-load -s 127.0.0.1:$port,127.0.0.1:$port --preload $i \
				-k $EVAL_KEYS -v $EVAL_VALUE" || { echo "H$h: redis-server $port failed"; return 1; }
		done
		i=$((i + 1))
	done
	hx 1 "nohup $EVAL_BIN/tcp-rr -l 5400 >/hostout/tcp-rr.log 2>&1 </dev/null &" ||
		{ echo "H1: tcp-rr -l failed"; return 1; }
	echo "servers up"
}

eval_theta() {
	local th=$1 bits burst h
	bits=$(python3 -c "print(int($th * $NIC_RATE_BITS))") || return 1
	burst=$((bits / 800 > 4096 ? bits / 800 : 4096))
	for h in 0 1 2 3; do
		hx "$h" "tc qdisc replace dev \$RACK_CORE_DEV root tbf rate ${bits}bit burst $burst latency 50ms" ||
			{ echo "H$h: tbf at ${bits}bit failed"; return 1; }
	done
	say "theta $th: every NIC at $((bits / 1000)) kbit/s"
}

eval_delay() {
	local h
	for h in 0 1 2 3; do
		hx "$h" "echo $1 >/sys/module/drack/parameters/pool_delay_ns" ||
			{ echo "H$h: pool_delay_ns=$1 failed (drack.ko without pool_delay_ns?)"; return 1; }
	done
}

run_redis() {
	local mode=$1 th=$2 d=$3 rep=$4 w=redis servers pre="" h
	((d > 0)) || [[ ${EVAL_PHASE:-} == cxl ]] && w=redis_cxl
	if [[ $mode == tor ]]; then
		servers=$(eval_addr tor 0):6379,$(eval_addr tor 2):6379
	else
		servers=$(eval_addr drack 0):6380,$(eval_addr drack 2):6380 pre="mptcpize run"
	fi
	for h in 1 3; do
		hx "$h" "$pre $EVAL_BIN/redis-load -s $servers -c $EVAL_CONNS -d $SECS -k $EVAL_KEYS -v $EVAL_VALUE" \
			>"$LOGDIR/redis-$h.out" 2>&1 &
	done
	wait
	for h in 1 3; do
		if grep -q '^requests=' "$LOGDIR/redis-$h.out"; then
			echo "w=$w mode=$mode theta=$th delay=$d rep=$rep client=H$h $(grep '^requests=' "$LOGDIR/redis-$h.out")" >>"$RAW"
		else
			say "$w $mode theta $th delay $d run $rep H$h failed: $(tail -n 3 "$LOGDIR/redis-$h.out" | tr '\n' ' ')"
		fi
	done
	say "$w $mode theta $th delay $d run $rep: $(grep -ho 'rps=[0-9.]* p50_us=[0-9]* p99_us=[0-9]*' "$LOGDIR"/redis-[13].out | paste -sd ' ')"
}

run_coll() {
	local algo=$1 mode=$2 th=$3 rep=$4 util=${5:-} h pre="" prefix v
	prefix=c-$algo-$mode-$th-$rep-$RANDOM
	[[ $mode == drack ]] && pre="mptcpize run"
	if [[ -n $util ]]; then
		for v in 0 1; do
			# shellcheck disable=SC2016 # expanded in the VM
			rx 0 "$v" 'nohup bash -c '\''f=/sys/class/net/$RACK_CORE_DEV/statistics/tx_bytes
				while :; do read -r b <$f; echo "$EPOCHREALTIME $b"; sleep 0.1; done'\'' \
				>/hostout/util-'"$mode"'-H'"$v"'.txt 2>&1 </dev/null & echo $! >/run/eval-util.pid'
		done
	fi
	for h in 0 1 2 3; do
		hx "$h" "$pre $EVAL_BIN/coll --rank $h --size 4 --store $(core_ip 0 0):6379 --prefix $prefix \
			--addr $(eval_addr "$mode" "$h") --bytes $GRAD --iters $ITERS --algo $algo" >"$LOGDIR/coll-$h.out" 2>&1 &
	done
	wait
	# shellcheck disable=SC2016 # expanded in the VM
	[[ -z $util ]] || for v in 0 1; do rx 0 "$v" 'kill $(cat /run/eval-util.pid)'; done
	# Every rank's line: an iteration is over when the last rank has the
	# result (rank 0's own sends end in its socket buffers).
	if (($(cat "$LOGDIR"/coll-[0-3].out | grep -c '^algo=') == 4)); then
		for h in 0 1 2 3; do
			echo "w=$algo mode=$mode theta=$th delay=0 rep=$rep $(grep '^algo=' "$LOGDIR/coll-$h.out")" >>"$RAW"
		done
		say "$algo $mode theta $th run $rep: $(grep -ho 'median_ms=[0-9.]*' "$LOGDIR"/coll-[0-3].out | paste -sd ' ')"
	else
		say "$algo $mode theta $th run $rep failed: $(tail -n 3 "$LOGDIR"/coll-*.out | tr '\n' ' ')"
	fi
}

run_rr() {
	local mode=$1 byref=$2 th=$3 d=$4 rep=$5 cb=256 target out cnt
	[[ $byref == off ]] && cb=65536
	for v in 0 1; do rx 0 "$v" "ethtool --set-tunable rack0 rx-copybreak $cb" || return 1; done
	if [[ $mode == tor ]]; then target=$(core_ip 0 1); else target=198.18.0.2; fi
	# shellcheck disable=SC2016 # expanded in the VM
	cnt='ethtool -S rack0 | awk '\''$1 == "rx_byref:" { b = $2 } $1 == "rx_copied:" || $1 == "rx_copybreak:" { c += $2 } END { print b + 0, c + 0 }'\'''
	out=$(rx 0 1 "$cnt")
	read -r b0 c0 <<<"$out"
	out=$(rx 0 0 "$EVAL_BIN/tcp-rr -c $target -p 5400 -n $RR_COUNT -m $RR_BYTES" 2>&1)
	read -r b1 c1 <<<"$(rx 0 1 "$cnt")"
	if [[ $out =~ transactions= ]]; then
		echo "w=rr mode=$mode theta=$th delay=$d rep=$rep byref=$byref rx_byref=$((b1 - b0)) rx_copied=$((c1 - c0)) $out" >>"$RAW"
		say "rr $mode byref $byref delay $d run $rep: $out (H1 rx_byref +$((b1 - b0)), rx_copied+rx_copybreak +$((c1 - c0)))"
	else
		say "rr $mode byref $byref delay $d run $rep failed: $out"
	fi
	for v in 0 1; do rx 0 "$v" "ethtool --set-tunable rack0 rx-copybreak 256"; done
}
