#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# drackctl: the command-line tool and the sysfs attributes.
#
#   h0 rack0 pool 0 host 3 (drackctl link add ... netns h0)
#   h1 rack0 pool 0 host 0 (ip link add ... type drack: the defaults)
#
# link add with pool/host (bus info, MAC, sysfs host_id), plain ip link
# add next to it, bad arguments refused with a message and nothing
# changed, iproute2-style errors and help, -j output that parses and holds
# the pool's geometry and tables, a grant of a metadata Section refused
# with the kernel's extack text, a manual grant, sysfs counters equal to
# ethtool's, buffer/peer show equal to ethtool, monitor events, link del.
#
# What breaks it: IFLA_INFO_DATA not sent or ignored (host id, bus info),
# extack lost (messages), a failed command that still creates a link or
# exits 0, broken JSON, sysfs attributes missing or reading the wrong
# counters, monitor not subscribed or not stopping on SIGINT.
. "$(dirname "$0")/lib.sh"

DRACKCTL=${DRACKCTL:-$DRACK_TOP/tools/drackctl}

ktap_plan 21

# fails_with RC REGEX CMD...: CMD exits with status RC and its stderr
# matches REGEX
fails_with() {
	local want=$1 re=$2 rc=0 err; shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	echo "$*: exit status $rc: $err"
	((rc == want)) || { echo "expected exit status $want"; return 1; }
	[[ $err =~ $re ]] || { echo "expected a message matching: $re"; return 1; }
}

# json_ok EXPR CMD...: CMD succeeds, its stdout is JSON d, python EXPR holds
json_ok() {
	local expr=$1 out rc=0; shift
	out=$("$@") || rc=$?
	((rc == 0)) || { echo "$*: exit status $rc"; return 1; }
	python3 -c '
import json, sys
try:
    d = json.loads(sys.stdin.read())
except ValueError as e:
    print("not JSON: %s" % e)
    sys.exit(1)
if not eval("(%s)" % sys.argv[1], {"d": d}):
    print("expected: %s" % sys.argv[1])
    print(json.dumps(d)[:2000])
    sys.exit(1)
' "$expr" <<<"$out" || { echo "from: $*"; return 1; }
}

sysfs() { in_ns "$1" cat "/sys/class/net/${3:-rack0}/drack/$2"; }

# Links in every netns and the pool's host table: what a refused
# command must leave as it was.
world() {
	local ns
	for ns in "" h0 h1; do
		ip ${ns:+-n "$ns"} -o link show | awk -F': ' -v ns="${ns:-init}" '{ print ns, $2 }'
	done
	"$DRACKCTL" host show | awk '{ print $1, $2, $3, $4, $5, $6 }'
}

setup() {
	drack_load && drack_start_fmd && drack_netns_add h0 && drack_netns_add h1
}
ktap_check setup setup || ktap_finish

link_add_pool_host() {
	local bus mac id
	"$DRACKCTL" link add rack0 pool 0 host 3 netns h0 || { echo "drackctl link add failed"; return 1; }
	DRACK_HOSTS+=(h0)
	bus=$(in_ns h0 ethtool -i rack0 | awk '$1 == "bus-info:" { print $2 }')
	mac=$(in_ns h0 cat /sys/class/net/rack0/address)
	id=$(sysfs h0 host_id)
	echo "bus-info $bus, MAC $mac, sysfs host_id $id"
	[[ $bus == ram:pool0:host3 ]] || { echo "expected bus-info ram:pool0:host3"; return 1; }
	[[ $mac == "$(host_mac 3)" ]] || { echo "expected MAC $(host_mac 3)"; return 1; }
	[[ $id == 3 && $(sysfs h0 pool_id) == 0 ]] || { echo "expected sysfs host_id 3, pool_id 0"; return 1; }
}
ktap_check link_add_pool_host link_add_pool_host

# Plain ip link add keeps working: the lowest free host id, 0.
ip_link_add_default() {
	ip link add rack0 netns h1 type drack || { echo "ip link add type drack failed"; return 1; }
	DRACK_HOSTS+=(h1)
	[[ $(sysfs h1 host_id) == 0 ]] || { echo "h1: host_id $(sysfs h1 host_id), expected 0"; return 1; }
	ip -n h0 addr add "$(ip4 3)/24" dev rack0 && ip -n h1 addr add "$(ip4 0)/24" dev rack0 &&
		ip -n h0 link set rack0 up && ip -n h1 link set rack0 up || return 1
	wait_for 10 has_carrier h0 || { echo "h0: no carrier"; return 1; }
	wait_for 20 ping_once h1 "$(ip4 3)" || { echo "h1 cannot ping h0"; return 1; }
	ping_ok h0 "$(ip4 0)"
}
ktap_check ip_link_add_default ip_link_add_default

# Refused: nothing created, nothing joined, a message, a non-zero status.
link_add_bad_args() {
	local before after bad=0
	before=$(world)
	fails_with 2 'Error: .*out of range' "$DRACKCTL" -n h0 link add rack1 host 99 || bad=1
	fails_with 2 'Error: no such pool' "$DRACKCTL" -n h0 link add rack1 pool 7 || bad=1
	fails_with 2 'Error: host id is in use' "$DRACKCTL" -n h0 link add rack1 host 3 || bad=1
	fails_with 2 'Error: host id out of range for this pool' "$DRACKCTL" -n h0 link add rack1 host 9 || bad=1
	fails_with 2 'RTNETLINK answers: File exists' "$DRACKCTL" -n h0 link add rack0 || bad=1
	fails_with 1 '"name" argument is required' "$DRACKCTL" -n h0 link add pool 0 host 4 || bad=1
	fails_with 1 'argument "abc" is wrong' "$DRACKCTL" -n h0 link add rack1 host abc || bad=1
	fails_with 1 'Command line is not complete' "$DRACKCTL" -n h0 link add rack1 host || bad=1
	fails_with 1 'Cannot open network namespace' "$DRACKCTL" link add rack1 netns nosuchns || bad=1
	after=$(world)
	if [[ $before != "$after" ]]; then
		echo "refused commands changed something:"
		diff <(echo "$before") <(echo "$after")
		bad=1
	fi
	return $bad
}
ktap_check link_add_bad_args link_add_bad_args

unknown_object_command() {
	fails_with 1 '^Object "foo" is unknown, try "drackctl help"\.$' "$DRACKCTL" foo &&
	fails_with 1 '^Command "foo" is unknown, try "drackctl pool help"\.$' "$DRACKCTL" pool foo &&
	fails_with 1 'Option "-x" is unknown' "$DRACKCTL" -x pool &&
	fails_with 1 'unknown argument "bar"' "$DRACKCTL" section show bar &&
	fails_with 2 '^Error: pool 7 does not exist\.$' "$DRACKCTL" pool show 7 &&
	fails_with 2 '^Device "nosuch" does not exist\.$' "$DRACKCTL" buffer show dev nosuch &&
	fails_with 1 'Usage: drackctl' "$DRACKCTL"
}
ktap_check unknown_object_command unknown_object_command

help() {
	local obj out bad=0
	for obj in "" pool host peer section buffer link monitor; do
		out=$("$DRACKCTL" $obj help 2>&1) || { echo "drackctl $obj help: exit status $?"; bad=1; continue; }
		[[ $out =~ Usage:\ drackctl.*${obj} ]] || { echo "drackctl $obj help: $out"; bad=1; }
	done
	out=$("$DRACKCTL" -h) && [[ $out == Usage:* ]] || { echo "drackctl -h: $out"; bad=1; }
	out=$("$DRACKCTL" -V) && [[ $out =~ ^drackctl\ [0-9] ]] || { echo "drackctl -V: $out"; bad=1; }
	return $bad
}
ktap_check help help

json_pool() {
	json_ok 'len(d) == 1 and d[0]["pool"] == 0 and d[0]["backend"] == "ram" and
		d[0]["size"] == 64 << 20 and d[0]["section_size"] == 2 << 20 and
		d[0]["section_count"] == 32 and d[0]["meta_sections"] == 1 and
		d[0]["max_hosts"] == 8 and 0 < d[0]["free_sections"] < 31' "$DRACKCTL" -j pool show &&
	json_ok 'd[0]["section_count"] == 32' "$DRACKCTL" -p pool show 0 &&
	"$DRACKCTL" -p pool show | python3 -m json.tool >/dev/null &&
	"$DRACKCTL" pool | grep -q '^pool 0 backend ram size 64M .*sections 32 meta 1 '
}
ktap_check json_pool json_pool

json_host() {
	json_ok '[h["host"] for h in d] == [0, 3] and all(h["state"] == "up" and
		h["flags"] == ["running"] and h["sections"] >= 1 for h in d) and
		d[1]["mac"] == "02:44:52:00:00:03" and "ifname" not in d[1]' "$DRACKCTL" -j host show &&
	json_ok '[h.get("ifname") for h in d] == [None, "rack0"]' "$DRACKCTL" -n h0 -j host show pool 0
}
ktap_check json_host json_host

# The Section table agrees with itself, the pool and the host table.
json_section() {
	local sec pool hosts
	sec=$("$DRACKCTL" -j section show) && pool=$("$DRACKCTL" -j pool show) &&
		hosts=$("$DRACKCTL" -j host show) || return 1
	python3 - "$sec" "$pool" "$hosts" <<'EOF'
import json, sys
sec, pool, hosts = (json.loads(a) for a in sys.argv[1:])
p = pool[0]
bad = []
if [s["section"] for s in sec] != list(range(32)):
    bad.append("not Sections 0..31")
if [s["state"] for s in sec[:p["meta_sections"]]] != ["meta"]:
    bad.append("Section 0 is not metadata")
free = sum(s["state"] == "free" for s in sec)
if free != p["free_sections"]:
    bad.append("%d free Sections, the pool says %d" % (free, p["free_sections"]))
for h in hosts:
    own = [s for s in sec if s.get("owner") == h["host"]]
    if len(own) != h["sections"] or any(s["class"] not in ("2k", "64k") for s in own):
        bad.append("host %d: %s, host table says %d" % (h["host"], own, h["sections"]))
print("\n".join(bad) or "%d Sections, %d free" % (len(sec), free))
sys.exit(1 if bad else 0)
EOF
}
ktap_check json_section eval 'wait_for 5 json_section || json_section'

json_link() {
	json_ok 'len(d) == 1 and d[0]["ifname"] == "rack0" and d[0]["pool"] == 0 and
		d[0]["host"] == 3 and d[0]["address"] == "02:44:52:00:00:03" and
		"UP" in d[0]["flags"]' "$DRACKCTL" -n h0 -j link show &&
	json_ok 'd == []' "$DRACKCTL" -j link show &&
	"$DRACKCTL" -n h1 link show dev rack0 | grep -q 'rack0: .* pool 0 host 0 '
}
ktap_check json_link json_link

grant_metadata_refused() {
	local before
	before=$("$DRACKCTL" -j section show) || return 1
	fails_with 2 '^Error: Section holds pool metadata\.$' "$DRACKCTL" section grant pool 0 host 3 section 0 class 2k || return 1
	[[ $("$DRACKCTL" -j section show) == "$before" ]] || { echo "the Section table changed"; return 1; }
}
ktap_check grant_metadata_refused grant_metadata_refused

# A manual grant reaches the host; the same Section twice is refused.
grant_ok() {
	local s n
	s=$("$DRACKCTL" -j section show free | python3 -c 'import json, sys; print(json.load(sys.stdin)[-1]["section"])') || return 1
	n=$(sysfs h0 buf64k_sections)
	echo "granting Section $s to host 3 (buf64k_sections $n)"
	"$DRACKCTL" section grant host 3 section "$s" class 64k || return 1
	"$DRACKCTL" section show id "$s" | grep -q "^pool 0 section $s owner 3 class 64k " || { "$DRACKCTL" section show id "$s"; return 1; }
	wait_for 5 eval "[[ \$(sysfs h0 buf64k_sections) == $((n + 1)) ]]" ||
		{ echo "buf64k_sections $(sysfs h0 buf64k_sections), expected $((n + 1))"; return 1; }
	fails_with 2 '^Error: Section is not free\.$' "$DRACKCTL" section grant pool 0 host 0 section "$s" class 2k
}
ktap_check grant_ok grant_ok

# sysfs_read NS: every attribute of NS's rack0 into SYS[name]; the glob is
# expanded in NS, whose /sys ip netns exec mounts
declare -gA SYS=()
sysfs_read() {
	local line
	SYS=()
	while IFS= read -r line; do
		line=${line#/sys/class/net/rack0/drack/}
		[[ -n $line ]] && SYS[${line%%:*}]=${line#*:}
	done <<<"$(in_ns "$1" sh -c "grep -H '' /sys/class/net/rack0/drack/*" 2>&1)"
}

sysfs_host() {
	local ns want_id want_peers a modes bad=0
	for ns in h0 h1; do
		[[ $ns == h0 ]] && want_id=3 want_peers=0 || want_id=0 want_peers=3
		sysfs_read "$ns"
		for a in host_id pool_id peers buf2k_requested buf64k_requested; do
			[[ -v SYS[$a] ]] || { echo "$ns: no attribute $a"; bad=1; continue; }
			echo "$ns $a: ${SYS[$a]}"
		done
		[[ ${SYS[host_id]-} == "$want_id" && ${SYS[pool_id]-} == 0 && ${SYS[peers]-} == "$want_peers" ]] ||
			{ echo "$ns: expected host_id $want_id, pool_id 0, peers $want_peers"; bad=1; }
		[[ ${SYS[buf2k_requested]-} =~ ^[01]$ && ${SYS[buf64k_requested]-} =~ ^[01]$ ]] ||
			{ echo "$ns: bufXk_requested should be 0 or 1"; bad=1; }
		modes=$(in_ns "$ns" sh -c 'stat -c %a /sys/class/net/rack0/drack/*' | sort -u)
		[[ $modes == 444 ]] || { echo "$ns: attribute modes $modes, expected 444"; bad=1; }
	done
	ip -n h1 link set rack0 down
	wait_for 3 eval '[[ -z $(sysfs h0 peers) ]]' || { echo "h0 peers '$(sysfs h0 peers)' with h1 down"; bad=1; }
	ip -n h1 link set rack0 up
	wait_for 3 eval '[[ $(sysfs h0 peers) == 0 ]]' || { echo "h0 peers '$(sysfs h0 peers)' with h1 up"; bad=1; }
	return $bad
}
ktap_check sysfs_host sysfs_host

CLASS_COUNTERS="buf2k_sections buf2k_total buf2k_free buf2k_inflight buf64k_sections buf64k_total buf64k_free buf64k_inflight"

# sysfs_eq NS: every Buffer counter in sysfs equals ethtool's
sysfs_eq() {
	local c k v bad=0
	local -A eth=()
	sysfs_read "$1"
	while read -r k v; do eth[$k]=$v; done <<<"$(drack_stats "$1")"
	for c in $CLASS_COUNTERS; do
		echo "$1 $c: sysfs ${SYS[$c]-none} ethtool ${eth[$c]-none}"
		[[ -n ${SYS[$c]-} && ${SYS[$c]} == "${eth[$c]-}" ]] || bad=1
	done
	return $bad
}
sysfs_vs_ethtool() {
	drack_wait_settled 10
	# Counters may move between the two reads: retry before failing.
	wait_for 5 sysfs_eq h0 || sysfs_eq h0 || return 1
	wait_for 5 sysfs_eq h1 || sysfs_eq h1 || return 1
	sysfs_eq h0 | head -n 4
	[[ $(sysfs h0 buf2k_total) -gt 0 ]] || { echo "h0 has no 2k Buffers"; return 1; }
}
ktap_check sysfs_vs_ethtool sysfs_vs_ethtool

# buffer_eq NS: drackctl -j -s buffer show equals ethtool -S
buffer_eq() {
	local out
	out=$("$DRACKCTL" -n "$1" -j -s buffer show) || return 1
	python3 - "$out" "$(drack_stats "$1")" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
eth = dict((k, int(v)) for k, v in (l.split() for l in sys.argv[2].splitlines()))
bad = []
if len(d) != 1 or d[0]["ifname"] != "rack0":
    bad.append("expected one link rack0: %s" % d)
for c in d[0]["classes"]:
    for k in ("sections", "total", "free", "inflight"):
        e = eth["buf%s_%s" % (c["class"], k)]
        if c[k] != e:
            bad.append("class %s %s: %d, ethtool %d" % (c["class"], k, c[k], e))
for k, v in d[0]["stats"].items():
    if eth[k] != v:
        bad.append("%s: %d, ethtool %d" % (k, v, eth[k]))
if [c["class"] for c in d[0]["classes"]] != ["2k", "64k"] or "grants" not in d[0]["stats"]:
    bad.append("classes or stats missing: %s" % d)
print("\n".join(bad) or json.dumps(d))
sys.exit(1 if bad else 0)
EOF
}
buffer_show() {
	wait_for 5 buffer_eq h0 || buffer_eq h0 || return 1
	wait_for 5 buffer_eq h1 || buffer_eq h1 || return 1
	"$DRACKCTL" -n h0 buffer show | grep -q '^    class 2k size 2048 sections [1-9]' || { "$DRACKCTL" -n h0 buffer show; return 1; }
}
ktap_check buffer_show buffer_show

# peer show: h1 sees host 3, counters within ethtool's before and after.
peer_show() {
	local before after out
	before=$(drack_stat h1 peer3_tx_packets)
	out=$("$DRACKCTL" -n h1 -j peer show dev rack0) || return 1
	after=$(drack_stat h1 peer3_tx_packets)
	python3 - "$out" "$before" "$after" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
lo, hi = int(sys.argv[2]), int(sys.argv[3])
peers = d[0]["peers"]
p = [x for x in peers if x["peer"] == 3]
ok = (d[0]["host"] == 0 and len(p) == 1 and p[0]["state"] == "up" and p[0]["reachable"]
      and p[0]["mac"] == "02:44:52:00:00:03" and lo <= p[0]["tx_packets"] <= hi
      and p[0]["tx_packets"] > 0 and p[0]["rx_bad"] == 0 and all(x["peer"] != 0 for x in peers))
print(json.dumps(d))
if not ok:
    print("expected peer 3 up, reachable, its MAC, 0 < tx_packets within ethtool's %d..%d, no peer 0" % (lo, hi))
sys.exit(0 if ok else 1)
EOF
}
ktap_check peer_show peer_show

# monitor: a host joining, asking for Sections and leaving; stops on SIGINT.
monitor() {
	local jpid tpid rc bad=0
	bg monitor_json "$DRACKCTL" -j monitor
	jpid=$BG_PID
	bg monitor_text "$DRACKCTL" monitor host
	tpid=$BG_PID
	sleep 1
	"$DRACKCTL" -n h0 link add rack1 host 5 || return 1
	wait_for 10 eval "grep -q '\"host\":5' '$DRACK_LOGDIR/monitor_json.log' && grep -q section_request '$DRACK_LOGDIR/monitor_json.log'"
	"$DRACKCTL" -n h0 link del rack1 || return 1
	wait_for 10 grep -q 'host 5 state free' "$DRACK_LOGDIR/monitor_text.log"
	for p in $jpid $tpid; do
		kill -INT "$p"
		rc=0
		wait "$p" || rc=$?
		((rc == 0)) || { echo "monitor exited with status $rc after SIGINT"; bad=1; }
	done
	echo "text:"; cat "$DRACK_LOGDIR/monitor_text.log"
	grep -qx 'host_notify pool 0 host 5 state up' "$DRACK_LOGDIR/monitor_text.log" &&
		grep -qx 'host_notify pool 0 host 5 state free' "$DRACK_LOGDIR/monitor_text.log" &&
		! grep -q section_request "$DRACK_LOGDIR/monitor_text.log" || { echo "text monitor: wrong events"; bad=1; }
	python3 - "$DRACK_LOGDIR/monitor_json.log" <<'EOF' || bad=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
mine = [e for e in ev if e["host"] == 5]
print("json: %d events, host 5: %s" % (len(ev), mine))
want = [{"event": "host_notify", "pool": 0, "host": 5, "state": "up"},
        {"event": "host_notify", "pool": 0, "host": 5, "state": "free"}]
ok = [e for e in mine if e["event"] == "host_notify"] == want
ok = ok and any(e["event"] == "section_request" and e["class"] in ("2k", "64k") and
                e["count"] >= 1 for e in mine)
sys.exit(0 if ok else 1)
EOF
	return $bad
}
ktap_check monitor monitor

link_del() {
	fails_with 2 '^Error: "lo" is not a drack link\.$' "$DRACKCTL" link del lo &&
		ip link show lo >/dev/null &&
		fails_with 2 '^Device "nosuch" does not exist\.$' "$DRACKCTL" -n h0 link del nosuch &&
		fails_with 1 '"dev" argument is required' "$DRACKCTL" link del &&
		ip -n h0 link show rack0 >/dev/null
}
ktap_check link_del link_del

drack_finish
