#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# nic-bench.sh: what `make bench-nic` runs. The NIC pool's headline (DRack,
# Documentation/nic-pool.rst) in the lab of tests/multi/nic-lab.bash: two
# racks of two TCG VMs, every VM's core NIC capped at B (DRACK_NIC_RATE,
# default 5mbit) and exported to its rack's pool, rack0v0 and rack0v1 in
# every VM. Rack 0 VM 0 sends to rack 1 VM 0 (10.200.1.1) while its
# neighbour, rack 0 VM 1, is idle:
#
#   tor_eth      plain iperf3 over its own NIC (eth0, no pool): the ToR case
#   tor_vnic     plain iperf3 over its own vNIC (rack0v0, NIC 0 through the pool)
#   pool_mptcp   mptcpize iperf3 over rack0v0 + rack0v1 (drackctl nic mptcp
#                on; the server under mptcpize too): both NICs of the rack
#
# then an all-to-all exchange between the racks, both hosts of rack 0
# sending at once (VM 0 to rack 1 VM 0, VM 1 to rack 1 VM 1), each over its
# own NIC (a2a_tor) and each with MPTCP over the pool (a2a_pool): per-host
# throughput and Jain's fairness index. With `drackctl nic policy` (ecmp,
# spray; DRack Figure 13(c)) the three spreading policies side by side, one
# flow and four (-P 4) each; without it those rows are skipped (hook:
# policy_rows below).
#
# DRACK_BENCH_SECS (10) per run, DRACK_BENCH_REPS (3) runs of each, in
# turn, medians reported. Prints a table, "BENCH ..." lines and the
# headline: pool_mptcp / tor_eth (target >= 1.8) and the communication
# time reduction 1 - tor_eth / pool_mptcp. Needs root; run alone (TCG
# VMs want every CPU of the machine).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
TEST=nic-bench
. tests/multi/lib.sh
. tests/multi/nic-lab.bash

SECS=${DRACK_BENCH_SECS:-10} REPS=${DRACK_BENCH_REPS:-3}
XT=$((SECS * 3 + 60))
bash tests/install-deps.sh || exit 1
make -s kmod tools || exit 1

trap nic_lab_abort EXIT
RES=$LOGDIR/results.txt
: >"$RES"
say() { echo "# $*"; }

say "NIC pool benchmark: B = $NIC_RATE per NIC, $SECS s per run, $REPS runs, transport $NIC_TRANSPORT"
nic_lab_bench_up || exit 1
say "lab up: rack0v0/rack0v1 in every VM (log: $LOGDIR)"

for v in 0 1; do
	rx 1 "$v" "iperf3 -s -D -p 5201 && mptcpize run iperf3 -s -D -p 5301" ||
		{ echo "iperf3 servers in rack 1 VM $v failed"; exit 1; }
done
for v in 0 1; do
	rx 0 "$v" "sysctl -qw net.mptcp.enabled=1 && drackctl nic mptcp on" >/dev/null ||
		{ echo "drackctl nic mptcp on in rack 0 VM $v failed"; exit 1; }
done
sleep 1

# run NAME REP V [iperf3 options]: one iperf3 from rack 0 VM V to rack 1 VM
# V; "NAME REP MBPS D0 D1 RETRANSMITS" into RES (MBPS "-" if it failed)
run() {
	local name=$1 rep=$2 v=$3 out m bytes d0 d1 retr; shift 3
	out=$(nic_measured 0 "$v" "$name-$rep" "$* -c $(core_ip 1 "$v") -t $SECS -J >/hostout/np-$name-$rep.json")
	if read -r m bytes d0 d1 retr <<<"$out" && [[ $m =~ ^[0-9.]+$ ]]; then
		echo "$name $rep $m $d0 $d1 $retr" >>"$RES"
		say "$name run $rep: $m Mbit/s (NIC 0 sent $d0 bytes, NIC 1 $d1; $retr retransmissions)"
	else
		echo "$name $rep - 0 0 -1" >>"$RES"
		say "$name run $rep failed: $(tail -n 3 <<<"$out")"
	fi
}

# both NAME REP [options]: VM 0 and VM 1 of rack 0 at once, NAME.0 / NAME.1
both() {
	local name=$1 rep=$2; shift 2
	run "$name.0" "$rep" 0 "$@" &
	run "$name.1" "$rep" 1 "$@"
	wait
}

HAVE_POLICY=0
if rx 0 0 "drackctl nic policy help" >/dev/null 2>&1; then
	HAVE_POLICY=1
else
	say "drackctl has no 'nic policy': the ECMP and spray rows are skipped"
fi

# policy NAME: drackctl nic policy NAME in both hosts of rack 0
policy() {
	local v
	for v in 0 1; do
		rx 0 "$v" "drackctl nic policy $1" >/dev/null || { say "drackctl nic policy $1 failed in VM $v"; return 1; }
	done
}

# The hook for DRack Figure 13(c): the same application (plain iperf3 from
# rack0v0's address, one flow and four) under ECMP and per-packet spray;
# MPTCP's rows are pool_mptcp and mptcp_p4. `nic policy mptcp` puts the
# MPTCP endpoints back for the next round.
policy_rows() {
	local rep=$1 p
	((HAVE_POLICY)) || return 0
	for p in ecmp spray; do
		policy "$p" || continue
		run "${p}_p1" "$rep" 0 "iperf3 -p 5201 -B $(vnic_ip 0 0 0)"
		run "${p}_p4" "$rep" 0 "iperf3 -p 5201 -P 4 -B $(vnic_ip 0 0 0)"
	done
	policy mptcp
}

for rep in $(seq "$REPS"); do
	run tor_eth "$rep" 0 "iperf3 -p 5201 -B $(core_ip 0 0)"
	run tor_vnic "$rep" 0 "iperf3 -p 5201 -B $(vnic_ip 0 0 0)"
	run pool_mptcp "$rep" 0 "mptcpize run iperf3 -p 5301 -B $(vnic_ip 0 0 0)"
	run mptcp_p4 "$rep" 0 "mptcpize run iperf3 -p 5301 -P 4 -B $(vnic_ip 0 0 0)"
	both a2a_tor "$rep" "iperf3 -p 5201 -B \$RACK_CORE_IP4"
	both a2a_pool "$rep" "mptcpize run iperf3 -p 5301 -B 10.200.0.\$((10 * (RACK_VM + 1)))"
	policy_rows "$rep"
done

rc=0
for r in "${NIC_RACKS[@]}"; do nic_lab_stop "$r" || { say "rack $r: stop reported a problem"; rc=1; }; done
NIC_LAB_UP=()
trap - EXIT

python3 - "$RES" "$NIC_RATE_BITS" "$SECS" "$REPS" "$HAVE_POLICY" <<'EOF'
import statistics, sys
res, b, secs, reps, have_policy = sys.argv[1], float(sys.argv[2]) / 1e6, sys.argv[3], sys.argv[4], sys.argv[5] == "1"
runs = {}
for line in open(res):
    name, rep, m, d0, d1, retr = line.split()
    runs.setdefault(name, []).append(None if m == "-" else (float(m), int(d0), int(d1), int(retr)))
def med(name):
    v = [r[0] for r in runs.get(name, []) if r]
    return statistics.median(v) if v else float("nan")
def share(name):  # NIC 1's share of the bytes the two NICs sent, median
    v = [r[2] / (r[1] + r[2]) for r in runs.get(name, []) if r and r[1] + r[2]]
    return statistics.median(v) if v else float("nan")
def spread(name, i=0, f="%.2f"):
    v = [r[i] for r in runs.get(name, []) if r and r[i] >= 0]
    return (f + "-" + f) % (min(v), max(v)) if v else "-"
tor = med("tor_eth")
rows = [("tor_eth", "ToR: own NIC (eth0), 1 TCP flow"),
        ("tor_vnic", "ToR: own vNIC (rack0v0), 1 TCP flow"),
        ("pool_mptcp", "pool: MPTCP over rack0v0+rack0v1, 1 connection"),
        ("mptcp_p4", "pool: MPTCP, 4 connections")]
if have_policy:
    rows += [("ecmp_p1", "pool: ECMP, 1 flow"), ("ecmp_p4", "pool: ECMP, 4 flows"),
             ("spray_p1", "pool: spray, 1 flow"), ("spray_p4", "pool: spray, 4 flows")]
print()
print("# rack 0 VM 0 -> rack 1 VM 0, neighbour idle; B = %.2f Mbit/s per NIC; %s s per run, median of %s" % (b, secs, reps))
print("%-48s %8s %6s %7s %10s %12s %10s" % ("path", "Mbit/s", "x B", "/ToR", "NIC1 share", "runs", "retransm."))
for name, what in rows:
    m = med(name)
    sh = share(name)
    print("%-48s %8.2f %6.2f %7.2f %10s %12s %10s" % (what, m, m / b, m / tor, "-" if sh != sh else "%.0f%%" % (100 * sh),
                                                  spread(name), spread(name, 3, "%d")))
    print("BENCH metric=inter_rack_1host path=%s value=%.3f unit=Mbit/s x_B=%.2f vs_tor=%.2f" % (name, m, m / b, m / tor))
if not have_policy:
    print("%-48s %s" % ("pool: ECMP, spray", "skipped: no 'drackctl nic policy' (hook: policy_rows)"))
print()
print("# all-to-all: rack 0 VM 0 -> rack 1 VM 0 and rack 0 VM 1 -> rack 1 VM 1 at once")
print("%-48s %8s %8s %8s %6s" % ("", "VM 0", "VM 1", "total", "Jain"))
for name, what in (("a2a_tor", "each host over its own NIC"), ("a2a_pool", "each host MPTCP over the pool")):
    x = [med(name + ".0"), med(name + ".1")]
    # Jain per run, then the median
    js = []
    for r0, r1 in zip(runs.get(name + ".0", []), runs.get(name + ".1", [])):
        if r0 and r1:
            js.append((r0[0] + r1[0]) ** 2 / (2 * (r0[0] ** 2 + r1[0] ** 2)))
    j = statistics.median(js) if js else float("nan")
    print("%-48s %8.2f %8.2f %8.2f %6.3f" % (what, x[0], x[1], sum(x), j))
    print("BENCH metric=all_to_all path=%s vm0=%.3f vm1=%.3f total=%.3f jain=%.3f unit=Mbit/s" % (name, x[0], x[1], sum(x), j))
pool = med("pool_mptcp")
print()
print("BENCH metric=headline pool_over_tor=%.2f pool_x_B=%.2f comm_time_reduction=%.2f target_pool_over_tor=1.8"
      % (pool / tor, pool / b, 1 - tor / pool))
print("# headline: one host through the NIC pool %.2f Mbit/s vs its own NIC %.2f Mbit/s: %.2fx (target >= 1.8),"
      " communication time -%.0f%%" % (pool, tor, pool / tor, 100 * (1 - tor / pool)))
EOF
exit $rc
