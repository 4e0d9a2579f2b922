# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The NIC pool lab (Documentation/nic-pool.rst), shared by the multi-VM test
# tests/multi/nic_pool.sh and the benchmark tests/bench/nic-bench.sh. Source
# it after tests/multi/lib.sh (LOGDIR, TOP, diag). Not a test itself: the
# test runner only picks up tests/multi/*.sh.
#
#   rack 0: VM0 --+-- pool (rack0)                 rack 1: VM0 --+-- pool
#           VM1 --+                                        VM1 --+
#     eth0 = NIC 0 (VM0), NIC 1 (VM1), each exported to its rack's pool;
#     every VM has rack0v0 and rack0v1, vNICs of both NICs of its rack
#   ===== core network 10.200.0.0/16, every NIC's egress capped at B (tbf) =====
#
# Addresses, all in 10.200.0.0/16 (the core subnet):
#   core NIC of VM V of rack R   10.200.R.(V+1)          (drack-rack --nic core)
#   rack0vN of VM V of rack R    10.200.R.(10*(V+1)+N)   e.g. 10.200.0.11
# Each vNIC address has a routing table of its own (100+N) and a rule "from
# ADDR", so a socket bound to it leaves through that vNIC (and the core
# NIC's address table 99, so a socket bound to it uses no vNIC); every VM has
# arp_ignore=1, arp_announce=2, rp_filter=0 (several interfaces on one
# subnet), IPv6 off on the vNICs.
#
#   nic_lab_start            boot both racks at once (prints a line per rack,
#                            sets NIC_LAB_UP; 1 if one failed)
#   nic_lab_export           every VM exports its core NIC; NIC_OF[R.V]
#   nic_lab_vnics            wait for the vNICs, give them addresses and routes
#   nic_lab_bench_up         the three above for a benchmark: start's lines
#                            printed "# "-prefixed, each step's output in
#                            LOGDIR/{start,export,vnics}.out, shown on failure
#   nic_lab_stop R           stop rack R (its stop output in LOGDIR/stopR.log)
#   R RACK ARGS...           drack-rack of rack RACK
#   rx RACK VM CMD...        run CMD in the VM (drack-rack exec, XT seconds)
#   vnic_ip R V N            the address of rack0vN of VM V of rack R
#   core_ip R V              the core NIC address of VM V of rack R
#   nic_measured R V TAG CMD run an iperf3 CMD writing /hostout/np-TAG.json in
#                            the VM: "MBPS BYTES D0 D1 RETR" (Mbit/s received,
#                            bytes, each NIC's tx_bytes delta, retransmissions)
#   rate_bits RATE           tc rate (5mbit) in bit/s
#
# Env: DRACK_NIC_RATE (B, default 5mbit), DRACK_NIC_TRANSPORT (the pool's
# transport, default doorbell), DRACK_NIC_DEAD_TIMEOUT (drack-fmd fencing,
# default 4000 ms).
#
# Why 5mbit: the lab is CPU-bound long before the core network is. Four TCG
# VMs share two host CPUs; each frame reaches every VM (the core network is
# a hub and exported NICs are promiscuous), and a frame through the pool is
# copied into it and out of it, segmented and checksummed in software by
# the owner. At 20mbit per NIC, MPTCP over two NICs got 1.1 to 1.3 B with
# the host's CPUs 90-95% busy; at 5mbit it gets 1.7 to 1.9 B.

NIC_RATE=${DRACK_NIC_RATE:-5mbit}
NIC_TRANSPORT=${DRACK_NIC_TRANSPORT:-doorbell}
NIC_DEAD_TIMEOUT=${DRACK_NIC_DEAD_TIMEOUT:-4000}
# A core network of our own (core_net.sh uses 42100-42899).
NIC_CORE=230.0.0.1:$((43000 + $$ % 800))
NIC_RACKS=(0 1)
NIC_NET=10.200.0.0/16
NIC_LAB_UP=()
declare -A NIC_OF=()	# "R.V" -> the NIC id VM V of rack R exported

R() { local r=$1; shift; "$TOP/tools/rack/drack-rack" --dir "$LOGDIR/rack$r" "$@"; }
rx() { local r=$1 vm=$2; shift 2; R "$r" exec -t "${XT:-120}" "$vm" "$*"; }
rxq() { rx "$@" >/dev/null 2>&1; }
core_ip() { echo "10.200.$1.$(($2 + 1))"; }
vnic_ip() { echo "10.200.$1.$((10 * ($2 + 1) + $3))"; }

rate_bits() {
	[[ ${1,,} =~ ^([0-9]+)(k|m|g)bit$ ]] || return 1
	case ${BASH_REMATCH[2]} in
	k) echo $((BASH_REMATCH[1] * 1000)) ;;
	m) echo $((BASH_REMATCH[1] * 1000000)) ;;
	g) echo $((BASH_REMATCH[1] * 1000000000)) ;;
	esac
}
NIC_RATE_BITS=$(rate_bits "$NIC_RATE") || {
	echo "DRACK_NIC_RATE: NUMBER{kbit,mbit,gbit}, not '$NIC_RATE'" >&2
	exit 2
}

nic_lab_abort() {
	local r
	for r in "${NIC_LAB_UP[@]}"; do R "$r" stop >/dev/null 2>&1; done
	NIC_LAB_UP=()
}

# Both racks at once: "start_rackR ok|failed: ..." lines; 1 if one failed.
nic_lab_bench_up() {
	local rc=0
	nic_lab_start >"$LOGDIR/start.out" 2>&1 || rc=$?
	sed 's/^/# /' "$LOGDIR/start.out"
	((rc == 0)) || return 1
	nic_lab_export >"$LOGDIR/export.out" 2>&1 || { cat "$LOGDIR/export.out"; return 1; }
	nic_lab_vnics >"$LOGDIR/vnics.out" 2>&1 || { cat "$LOGDIR/vnics.out"; return 1; }
}

nic_lab_start() {
	local r bad=0
	local -A pid=()
	for r in "${NIC_RACKS[@]}"; do
		R "$r" stop >/dev/null 2>&1
		rm -rf "$LOGDIR/rack$r"
		R "$r" start -n 2 --transport "$NIC_TRANSPORT" --smp 1 --rack "$r" --nic core \
			--core "$NIC_CORE" --nic-rate "$NIC_RATE" --dead-timeout "$NIC_DEAD_TIMEOUT" \
			>"$LOGDIR/start$r.log" 2>&1 &
		pid[$r]=$!
	done
	for r in "${NIC_RACKS[@]}"; do
		NIC_LAB_UP+=("$r")
		if wait "${pid[$r]}"; then
			echo "start_rack$r ok: $(grep -E 'up in' "$LOGDIR/start$r.log")"
		else
			echo "start_rack$r failed:"
			tail -n 30 "$LOGDIR/start$r.log"
			bad=1
		fi
	done
	return $bad
}

nic_lab_stop() {
	local r=$1 rc=0
	R "$r" stop >"$LOGDIR/stop$r.log" 2>&1 || rc=$?
	NIC_LAB_UP=("${NIC_LAB_UP[@]/$r/}")
	return $rc
}

# Every VM: the sysctls of several interfaces on one subnet, then
# "drackctl nic export dev <core NIC>"; VM 0 of a rack first, so its NIC
# is NIC 0 and VM 1's NIC 1.
nic_lab_export() {
	local r v out
	for r in "${NIC_RACKS[@]}"; do
		for v in 0 1; do
			out=$(rx "$r" "$v" 'sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2 \
				net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 &&
				drackctl nic export dev $RACK_CORE_DEV' 2>&1) ||
				{ echo "rack $r VM $v: drackctl nic export dev \$RACK_CORE_DEV: $out"; return 1; }
			echo "rack $r VM $v: $out"
			[[ $out =~ ^pool\ 0\ nic\ ([0-9]+)\  ]] || { echo "rack $r VM $v: unexpected output"; return 1; }
			NIC_OF[$r.$v]=${BASH_REMATCH[1]}
		done
		((NIC_OF[$r.0] == 0 && NIC_OF[$r.1] == 1)) ||
			{ echo "rack $r: VM 0 exported NIC ${NIC_OF[$r.0]}, VM 1 NIC ${NIC_OF[$r.1]}, expected 0 and 1"; return 1; }
	done
}

# In every VM: rack0v0 and rack0v1 appear (drack-fmd assigned both NICs to
# both hosts), get their address, table and rule, come up with carrier;
# both NICs are up with the expected owner and assigned to both hosts.
nic_lab_vnics() {
	local r v out bad=0
	for r in "${NIC_RACKS[@]}"; do
		for v in 0 1; do
			# shellcheck disable=SC2016 # expanded in the VM
			out=$(rx "$r" "$v" '
				for i in $(seq 300); do
					[[ -e /sys/class/net/rack0v0 && -e /sys/class/net/rack0v1 ]] && break
					sleep 0.1
				done
				for n in 0 1; do
					d=rack0v$n a='"10.200.$r.\$((10 * ($v + 1) + n))"'
					[[ -e /sys/class/net/$d ]] || { echo "no $d after 30 s"; ip -br link; drackctl nic show; exit 1; }
					sysctl -qw net.ipv6.conf.$d.disable_ipv6=1
					ip addr add $a/16 dev $d && ip link set $d up &&
						ip route add '"$NIC_NET"' dev $d src $a table $((100 + n)) &&
						ip rule add from $a table $((100 + n)) || exit 1
				done
				for i in $(seq 100); do
					[[ $(cat /sys/class/net/rack0v[01]/carrier 2>/dev/null | tr -d "\n") == 11 ]] && break
					sleep 0.1
				done
				# The core NIC too, for sockets bound to its address.
				ip route add '"$NIC_NET"' dev $RACK_CORE_DEV src $RACK_CORE_IP4 table 99 &&
					ip rule add from $RACK_CORE_IP4 table 99 || exit 1
				ip -br addr show | grep -E "^(rack0v|$RACK_CORE_DEV)"
				drackctl -j nic show pool 0' 2>&1) || { echo "rack $r VM $v: $out"; bad=1; continue; }
			echo "rack $r VM $v: $(grep -v '^\[' <<<"$out" | tr -s ' ' | paste -sd ';')"
			python3 -c '
import json, sys
r, v = sys.argv[1], int(sys.argv[2])
nics = {n["nic"]: n for n in json.loads(sys.stdin.read().splitlines()[-1])}
bad = 0
for nic in (0, 1):
    n = nics.get(nic)
    if not n:
        print("rack %s VM %d: no NIC %d in the pool" % (r, v, nic)); bad = 1; continue
    want = dict(state="up", owner=nic, assigned=[0, 1], vnic_ifname="rack0v%d" % nic, vnic_via=nic)
    got = {k: n.get(k) for k in want}
    if got != want:
        print("rack %s VM %d NIC %d: %s, expected %s" % (r, v, nic, got, want)); bad = 1
sys.exit(bad)' "$r" "$v" <<<"$out" || bad=1
			grep -q 'rack0v0 *UP' <<<"$out" && grep -q 'rack0v1 *UP' <<<"$out" ||
				{ echo "rack $r VM $v: a vNIC without carrier"; bad=1; }
		done
	done
	return $bad
}

# nic_measured R V TAG CMD: run CMD in the VM between two snapshots of its
# pool's NIC tx_bytes; CMD writes /hostout/np-TAG.json. Prints the
# iperf3 JSON's received Mbit/s and bytes, the NICs' tx_bytes deltas and
# the sender's retransmissions: "MBPS BYTES D0 D1 RETRANSMITS".
nic_measured() {
	local r=$1 v=$2 tag=$3 out
	# shellcheck disable=SC2016 # expanded in the VM
	out=$(rx "$r" "$v" 'tx() { drackctl -j nic show pool 0 | python3 -c "
import json, sys
print(\" \".join(str(n[\"tx_bytes\"]) for n in sorted(json.load(sys.stdin), key=lambda n: n[\"nic\"])))"; }
		sleep 0.3; echo "before $(tx)"; '"$4"'; rc=$?; sleep 0.4; echo "after $(tx)"; exit $rc' 2>&1) ||
		{ echo "rack $r VM $v: $4 failed: $out"; tail -n 5 "$LOGDIR/rack$r/vm$v/np-$tag.json" 2>/dev/null; return 1; }
	python3 - "$LOGDIR/rack$r/vm$v/np-$tag.json" "$out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["end"]
s = e.get("sum_received") or e["sum"]
lines = dict(l.split(" ", 1) for l in sys.argv[2].splitlines() if l.startswith(("before ", "after ")))
b = [int(x) for x in lines["before"].split()]
a = [int(x) for x in lines["after"].split()]
retr = e.get("sum_sent", {}).get("retransmits", -1)
print("%.3f %d %s %d" % (s["bits_per_second"] / 1e6, s["bytes"], " ".join(str(y - x) for x, y in zip(b, a)), retr))
EOF
}
