#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sched-bench.sh: what `make bench-sched` runs. drack-fmd's NIC scheduling
# policies (nic-schedule = static | round-robin | queue-depth,
# Documentation/nic-pool.rst "Scheduling") side by side in the lab of
# tests/multi/nic-lab.bash: two racks of two TCG VMs, every core NIC
# capped at B (DRACK_NIC_RATE, default 5mbit) and exported to its rack's
# pool. In rack 0, VM 0 owns NIC 0 and VM 1 NIC 1; both have rack0v0 and
# rack0v1. Every flow is plain TCP (no MPTCP) bound to one address, so it
# leaves through one vNIC (or the core NIC), towards the core address of
# the rack 1 VM of the same number:
#
#   c1 two hosts on vNIC 0   VM 0 and VM 1 both send through their rack0v0
#                            at once (both on NIC 0 under static): each
#                            host's Mbit/s and Jain's index
#   c2 owner busy            VM 1 sends through its core NIC (not a vNIC)
#                            while VM 0 sends through rack0v1 (NIC 1):
#                            VM 0's Mbit/s (and VM 1's own)
#   c3 short under long      VM 0 runs a long flow through rack0v0; VM 1
#                            sends DRACK_SCHED_SHORT_KB (128) KB transfers
#                            through rack0v0 one after the other (connect,
#                            send, the server's 1-byte answer after EOF):
#                            the median completion time (and the long
#                            flow's Mbit/s); once a round also without
#                            the long flow (row "alone"), the baseline
#
# The policy is changed at run time the way an operator would: rack 0
# VM 0 (which runs drack-fmd, tools/rack/agent.sh, without -c) gets
# /etc/drack/fmd.conf (the default path; its root is an overlay) with
# "nic-schedule = POLICY" and drack-fmd a SIGHUP; the script waits for
# "configuration reloaded" in its log. Before every case the policy goes
# to static and every vNIC home, then to the one measured, so each case
# starts from the default placement. The traffic starts, the first
# DRACK_SCHED_SETTLE (6) seconds are left out (iperf3 -O; moves come
# within a poll, 500 ms, plus nic-hold-ms, 2000), then DRACK_BENCH_SECS
# (10) are measured; halfway through, both hosts' vnic_via is recorded,
# and the FM's decisions during the case are counted in its log.
#
# DRACK_BENCH_REPS (3) rounds of every case under every policy, policies
# in turn within a round; medians reported. DRACK_SCHED_POLICIES picks
# the policies (default all five: static, round-robin, queue-depth,
# demand, matching); POLICY:HIGH also sets queue-depth-high
# (queue-depth:16).
# Prints a table and "BENCH ..." lines. Needs root; run alone (TCG VMs
# want every CPU of the machine).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
TEST=sched-bench
. tests/multi/lib.sh
. tests/multi/nic-lab.bash

SECS=${DRACK_BENCH_SECS:-10} REPS=${DRACK_BENCH_REPS:-3}
SETTLE=${DRACK_SCHED_SETTLE:-6} SHORT_KB=${DRACK_SCHED_SHORT_KB:-128}
read -ra POLICIES <<<"${DRACK_SCHED_POLICIES:-static round-robin queue-depth demand matching}"
XT=$((SETTLE + SECS * 3 + 60))
bash tests/install-deps.sh || exit 1
make -s kmod tools || exit 1

trap nic_lab_abort EXIT
RES=$LOGDIR/results.txt
FMDLOG=$LOGDIR/rack0/vm0/fmd.log
SINK_PORT=5400
: >"$RES"
say() { echo "# $*"; }

# The short-transfer sink (rack 1 VM 1) and client (rack 0 VM 1); the VMs
# see the host's /tmp, so they run these files where they are.
cat >"$LOGDIR/sink.py" <<'EOF'
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(64)
def serve(c):
    with c:
        while c.recv(65536):
            pass
        c.sendall(b"k")
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
EOF
cat >"$LOGDIR/short.py" <<'EOF'
# short.py SRC DST PORT BYTES SECS: transfers of BYTES from SRC to DST one
# after the other for SECS seconds (at least one); each one's completion
# time in ms (connect, send, shut down, the sink's answer), one line.
import socket, sys, time
src, dst, port, size, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
data = b"x" * size
ms = []
end = time.monotonic() + secs
while not ms or time.monotonic() < end:
    t0 = time.monotonic()
    with socket.socket() as s:
        s.settimeout(60)
        s.bind((src, 0))
        s.connect((dst, port))
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        if s.recv(1) != b"k":
            sys.exit("no answer from the sink")
    ms.append((time.monotonic() - t0) * 1000)
    time.sleep(0.2)
print(" ".join("%.1f" % x for x in ms))
EOF

say "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(pgrep -c qemu-system) QEMU processes before the lab"
say "NIC scheduling benchmark: B = $NIC_RATE per NIC, settle $SETTLE s + $SECS s per case, $REPS rounds, policies ${POLICIES[*]}, short transfers $SHORT_KB KB"
nic_lab_bench_up || exit 1
say "lab up: rack0v0/rack0v1 in every VM (log: $LOGDIR)"

for v in 0 1; do
	rx 1 "$v" "iperf3 -s -D -p 5201" || { echo "iperf3 server in rack 1 VM $v failed"; exit 1; }
done
rx 1 1 "setsid -f python3 $LOGDIR/sink.py $SINK_PORT >/dev/null 2>&1 </dev/null" ||
	{ echo "the sink in rack 1 VM 1 failed"; exit 1; }
sleep 1

# schedule POLICY[:HIGH]: drack-fmd of rack 0 reloads with nic-schedule =
# POLICY (and queue-depth-high = HIGH if given, e.g. queue-depth:8)
schedule() {
	local n conf="nic-schedule = ${1%%:*}\nnic-load-interval = 2\n"
	[[ $1 == *:* ]] && conf+="queue-depth-high = ${1#*:}\n"
	n=$(grep -c 'configuration reloaded' "$FMDLOG")
	rx 0 0 "mkdir -p /etc/drack && printf '$conf' >/etc/drack/fmd.conf &&
		kill -HUP \$(pidof -s drack-fmd)" || { say "schedule $1: writing the configuration or SIGHUP failed"; return 1; }
	for _ in $(seq 100); do
		(($(grep -c 'configuration reloaded' "$FMDLOG") > n)) && return 0
		sleep 0.1
	done
	say "schedule $1: no reload in $FMDLOG"; tail -n 3 "$FMDLOG"
	return 1
}

# vias R V: "AB" - the NICs carrying VM V's rack0v0 (A) and rack0v1 (B)
vias_of() {
	python3 -c '
import json, sys
try:
    nics = {n["nic"]: n for n in json.load(open(sys.argv[1]))}
    print("".join(str(nics[k].get("vnic_via", "?")) for k in (0, 1)))
except Exception:
    print("??")' "$1"
}
vias() { rx 0 "$1" "drackctl -j nic show pool 0 >/hostout/sb-via-now.json" && vias_of "$LOGDIR/rack0/vm$1/sb-via-now.json"; }

# home: static, and wait until every vNIC of rack 0 is on its own NIC
home() {
	schedule static || return 1
	for _ in $(seq 20); do
		[[ $(vias 0)/$(vias 1) == 01/01 ]] && return 0
		sleep 0.5
	done
	say "vNICs not home after static: $(vias 0)/$(vias 1)"
	return 1
}

# snap TAG: a VM command line recording vnic_via halfway through the
# measured part, in the background
snap() { echo "(sleep $((SETTLE + SECS / 2)); drackctl -j nic show pool 0 >/hostout/sb-via-$1.json) & "; }

# mbps R V TAG: Mbit/s received of the VM's iperf3 JSON, "-" if none
mbps() {
	python3 -c '
import json, sys
try:
    e = json.load(open(sys.argv[1]))["end"]
    print("%.3f" % ((e.get("sum_received") or e["sum"])["bits_per_second"] / 1e6))
except Exception:
    print("-")' "$LOGDIR/rack$1/vm$2/sb-$3.json"
}

# iperf V TAG ARGS: iperf3 in rack 0 VM V, settle left out, JSON to TAG
iperf() {
	local v=$1 tag=$2; shift 2
	rx 0 "$v" "$(snap "$tag")iperf3 -J -O $SETTLE $* >/hostout/sb-$tag.json; rc=\$?; wait; exit \$rc" >/dev/null 2>&1 ||
		say "$tag in VM $v failed: $(tail -n 3 "$LOGDIR/rack0/vm$v/sb-$tag.json" 2>/dev/null | tr '\n' ' ')"
}

# fmd_lines: the FM's scheduling decisions in its log so far
fmd_lines() { grep -c 'nic-schedule [a-z-]*: host' "$FMDLOG" || true; }
moves_since() { echo $(($(fmd_lines) - $1)); }

# case_start POLICY: every vNIC home, then POLICY; sets M0 (the decisions
# before POLICY's)
case_start() {
	home || return 1
	M0=$(fmd_lines)
	schedule "$1"
}

c1() {
	local p=$1 rep=$2 t="c1-$1-$2" v
	case_start "$p" || { echo "c1 $p $rep - - ?? 0" >>"$RES"; say "$t: not measured"; return; }
	for v in 0 1; do
		iperf "$v" "$t.$v" -c "$(core_ip 1 "$v")" -p 5201 -B "$(vnic_ip 0 "$v" 0)" -t "$SECS" &
	done
	wait
	echo "c1 $p $rep $(mbps 0 0 "$t.0") $(mbps 0 1 "$t.1")" \
		"$(vias_of "$LOGDIR/rack0/vm0/sb-via-$t.0.json")/$(vias_of "$LOGDIR/rack0/vm1/sb-via-$t.1.json") $(moves_since "$M0")" >>"$RES"
	say "$(tail -n 1 "$RES")"
}

c2() {
	local p=$1 rep=$2 t="c2-$1-$2"
	case_start "$p" || { echo "c2 $p $rep - - ?? 0" >>"$RES"; say "$t: not measured"; return; }
	iperf 0 "$t.0" -c "$(core_ip 1 0)" -p 5201 -B "$(vnic_ip 0 0 1)" -t "$SECS" &
	iperf 1 "$t.1" -c "$(core_ip 1 1)" -p 5201 -B "$(core_ip 0 1)" -t "$SECS" &
	wait
	echo "c2 $p $rep $(mbps 0 0 "$t.0") $(mbps 0 1 "$t.1")" \
		"$(vias_of "$LOGDIR/rack0/vm0/sb-via-$t.0.json")/$(vias_of "$LOGDIR/rack0/vm1/sb-via-$t.1.json") $(moves_since "$M0")" >>"$RES"
	say "$(tail -n 1 "$RES")"
}

# c3 POLICY REP [alone]: with "alone", no long flow (policy static): the
# short transfers' baseline, recorded as policy "alone"
c3() {
	local p=$1 rep=$2 alone=${3:-} t="c3-$1-$2" short
	case_start "$p" || { echo "c3 $p $rep - ?? 0 -" >>"$RES"; say "$t: not measured"; return; }
	if [[ $alone ]]; then
		p=alone t="c3-alone-$rep"
		echo '{}' >"$LOGDIR/rack0/vm0/sb-$t.0.json"
	else
		# The long flow outlasts the short ones by a few seconds.
		iperf 0 "$t.0" -c "$(core_ip 1 0)" -p 5201 -B "$(vnic_ip 0 0 0)" -t $((SECS + 4)) &
	fi
	short=$(rx 0 1 "$(snap "$t.1")sleep $SETTLE; python3 $LOGDIR/short.py $(vnic_ip 0 1 0) $(core_ip 1 1) $SINK_PORT \
		$((SHORT_KB * 1024)) $SECS; rc=\$?; wait; exit \$rc" 2>&1) ||
		{ say "$t short transfers failed: $short"; short=-; }
	wait
	[[ $short =~ ^[0-9.\ ]+$ ]] || short=-
	echo "c3 $p $rep $(mbps 0 0 "$t.0")" \
		"$(vias_of "$LOGDIR/rack0/vm0/sb-via-$t.0.json")/$(vias_of "$LOGDIR/rack0/vm1/sb-via-$t.1.json") $(moves_since "$M0") ${short// /,}" >>"$RES"
	say "$(tail -n 1 "$RES")"
}

for rep in $(seq "$REPS"); do
	for p in "${POLICIES[@]}"; do
		c1 "$p" "$rep"
		c2 "$p" "$rep"
		c3 "$p" "$rep"
	done
	c3 static "$rep" alone
done

schedule static >/dev/null
rc=0
for r in "${NIC_RACKS[@]}"; do nic_lab_stop "$r" || { say "rack $r: stop reported a problem"; rc=1; }; done
NIC_LAB_UP=()
trap - EXIT

python3 - "$RES" "$NIC_RATE_BITS" "$SECS" "$REPS" "$SHORT_KB" <<'EOF'
import statistics, sys
res, b, secs, reps, kb = sys.argv[1], float(sys.argv[2]) / 1e6, sys.argv[3], sys.argv[4], int(sys.argv[5])
rows = {}
order = []
for line in open(res):
    f = line.split()
    key = (f[0], f[1])
    if key not in rows:
        order.append(key)
    rows.setdefault(key, []).append(f[3:])
def num(x):
    try:
        return float(x)
    except ValueError:
        return None
def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")
def rng(v, f="%.2f"):
    v = [x for x in v if x is not None]
    return (f + "-" + f) % (min(v), max(v)) if v else "-"
policies = []
for c, p in order:
    if p not in policies:
        policies.append(p)
print()
print("# B = %.2f Mbit/s per NIC; %s s measured per case after the settling time, %s rounds, medians (range)" % (b, secs, reps))
print("# via: the NICs carrying VM 0's rack0v0,rack0v1 / VM 1's rack0v0,rack0v1 halfway through, per round; moves: the FM's decisions in the case")
print()
print("# c1 two hosts on vNIC 0: VM 0 and VM 1 through their rack0v0 at once")
print("%-12s %8s %8s %8s %6s %12s %-20s %s" % ("policy", "VM 0", "VM 1", "total", "Jain", "Jain range", "via", "moves"))
for p in policies:
    r = rows.get(("c1", p), [])
    if not r:
        continue
    x0 = [num(x[0]) for x in r]
    x1 = [num(x[1]) for x in r]
    js = [(a + c) ** 2 / (2 * (a * a + c * c)) for a, c in zip(x0, x1) if a is not None and c is not None and a + c > 0]
    tot = [a + c for a, c in zip(x0, x1) if a is not None and c is not None]
    print("%-12s %8.2f %8.2f %8.2f %6.3f %12s %-20s %s" % (p, med(x0), med(x1), med(tot), med(js), rng(js, "%.3f"),
                                                      " ".join(x[2] for x in r), ",".join(x[3] for x in r)))
    print("BENCH metric=sched_two_on_vnic0 policy=%s vm0=%.3f vm1=%.3f total=%.3f jain=%.3f unit=Mbit/s" % (p, med(x0), med(x1), med(tot), med(js)))
print()
print("# c2 owner busy: VM 1 through its core NIC, VM 0 through rack0v1 (NIC 1)")
print("%-12s %8s %12s %8s %-20s %s" % ("policy", "VM 0", "VM 0 range", "VM 1 own", "via", "moves"))
for p in policies:
    r = rows.get(("c2", p), [])
    if not r:
        continue
    x0 = [num(x[0]) for x in r]
    x1 = [num(x[1]) for x in r]
    print("%-12s %8.2f %12s %8.2f %-20s %s" % (p, med(x0), rng(x0), med(x1), " ".join(x[2] for x in r), ",".join(x[3] for x in r)))
    print("BENCH metric=sched_owner_busy policy=%s vm0=%.3f vm1_own=%.3f unit=Mbit/s" % (p, med(x0), med(x1)))
print()
print("# c3 short under long: VM 0 long flow through rack0v0, VM 1 %d KB transfers through rack0v0 (alone on an idle NIC: %.0f ms of wire time)"
      % (kb, kb * 1024 * 8 / (b * 1e3)))
print("%-12s %8s %8s %8s %6s %8s %-20s %s" % ("policy", "FCT med", "p90", "min", "n", "long", "via", "moves"))
for p in policies:
    r = rows.get(("c3", p), [])
    long_ = [num(x[0]) for x in r]
    fct = sorted(float(y) for x in r if x[3] != "-" for y in x[3].split(","))
    p90 = fct[min(len(fct) - 1, int(0.9 * len(fct)))] if fct else float("nan")
    print("%-12s %8.1f %8.1f %8.1f %6d %8.2f %-20s %s" % (p, med(fct), p90, min(fct) if fct else float("nan"), len(fct),
                                                       med(long_), " ".join(x[1] for x in r), ",".join(x[2] for x in r)))
    print("BENCH metric=sched_short_under_long policy=%s fct_median=%.1f fct_p90=%.1f n=%d unit=ms long=%.3f long_unit=Mbit/s"
          % (p, med(fct), p90, len(fct), med(long_)))
EOF
exit $rc
