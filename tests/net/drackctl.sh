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
# changed, iproute2-style errors and help, usage errors of the fabric
# manager commands, -j output that parses and holds the pool's geometry,
# regions, fabric manager and tables, FM commands refused while drack-fmd
# is the pool's fabric manager; with drack-fmd stopped: a grant of a
# metadata Section refused with the kernel's extack text, a manual grant
# and its revoke, fence/reclaim/revoke/format refused for the right
# reasons; then sysfs counters equal to ethtool's, buffer/peer/link -s
# show equal to ethtool, monitor events (Section grants and releases
# too), link del.
#
# What breaks it: IFLA_INFO_DATA not sent or ignored (host id, bus info),
# extack lost (messages), a failed command that still creates a link or
# exits 0, broken JSON, sysfs attributes missing or reading the wrong
# counters, the genl dumps (peer, class, stats) disagreeing with ethtool,
# FM registration not enforced or not ending with drack-fmd, a revoked
# Section not coming back, monitor not subscribed or not stopping on
# SIGINT.
. "$(dirname "$0")/lib.sh"


ktap_plan 28

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
	for obj in "" pool host peer section buffer link monitor nic \
		"pool format" "host fence" "host reclaim" "section revoke"; do
		out=$("$DRACKCTL" $obj help 2>&1) || { echo "drackctl $obj help: exit status $?"; bad=1; continue; }
		[[ $out =~ Usage:\ drackctl.*${obj} ]] || { echo "drackctl $obj help: $out"; bad=1; }
	done
	out=$("$DRACKCTL" -h) && [[ $out == Usage:* ]] || { echo "drackctl -h: $out"; bad=1; }
	out=$("$DRACKCTL" -V) && [[ $out =~ ^drackctl\ [0-9] ]] || { echo "drackctl -V: $out"; bad=1; }
	return $bad
}
ktap_check help help

# The fabric manager commands' usage errors: status 1, a message, nothing
# asked of the kernel (so nothing changed).
fm_args() {
	local before after bad=0
	before=$(world)
	fails_with 1 '"id" argument is required' "$DRACKCTL" section revoke || bad=1
	fails_with 1 '"id" argument is required' "$DRACKCTL" section revoke pool 0 || bad=1
	fails_with 1 'argument "x" is wrong: invalid Section id' "$DRACKCTL" section revoke id x || bad=1
	fails_with 1 'argument "-1" is wrong' "$DRACKCTL" section revoke -1 || bad=1
	fails_with 1 'Command line is not complete' "$DRACKCTL" section revoke 1 pool || bad=1
	fails_with 1 '"id" argument is required' "$DRACKCTL" host fence || bad=1
	fails_with 1 'argument "64" is wrong: host id is 0 to 63' "$DRACKCTL" host fence 64 || bad=1
	fails_with 1 'argument "abc" is wrong: invalid pool id' "$DRACKCTL" host fence pool abc 3 || bad=1
	fails_with 1 '"id" argument is required' "$DRACKCTL" host reclaim pool 0 || bad=1
	fails_with 1 'duplicate "id"' "$DRACKCTL" host reclaim 3 4 || bad=1
	fails_with 1 '"id" argument is required' "$DRACKCTL" pool format || bad=1
	fails_with 1 'argument "1" is wrong: max-hosts is 2 to 64' "$DRACKCTL" pool format 0 max-hosts 1 || bad=1
	fails_with 1 'argument "65" is wrong: max-hosts is 2 to 64' "$DRACKCTL" pool format 0 max-hosts 65 || bad=1
	fails_with 1 'argument "0" is wrong: regions is 1 to 16' "$DRACKCTL" pool format 0 regions 0 || bad=1
	fails_with 1 'argument "17" is wrong: regions is 1 to 16' "$DRACKCTL" pool format pool 0 regions 17 || bad=1
	fails_with 1 'duplicate "regions"' "$DRACKCTL" pool format 0 regions 2 regions 2 || bad=1
	fails_with 1 'Command line is not complete' "$DRACKCTL" pool format 0 max-hosts || bad=1
	# the destructive commands are not abbreviated
	fails_with 1 '^Command "fen" is unknown, try "drackctl host help"\.$' "$DRACKCTL" host fen 3 || bad=1
	fails_with 1 '^Command "form" is unknown, try "drackctl pool help"\.$' "$DRACKCTL" pool form 0 || bad=1
	fails_with 1 '^Command "rev" is unknown, try "drackctl section help"\.$' "$DRACKCTL" section rev 1 || bad=1
	after=$(world)
	[[ $before == "$after" ]] || { echo "refused commands changed something:"; diff <(echo "$before") <(echo "$after"); bad=1; }
	return $bad
}
ktap_check fm_args fm_args

json_pool() {
	json_ok 'len(d) == 1 and d[0]["pool"] == 0 and d[0]["backend"] == "ram" and
		d[0]["size"] == 64 << 20 and d[0]["section_size"] == 2 << 20 and
		d[0]["section_count"] == 32 and d[0]["meta_sections"] == 1 and
		d[0]["max_hosts"] == 8 and 0 < d[0]["free_sections"] < 31 and
		d[0]["regions"] == 2 and d[0]["fm_pid"] > 0 and d[0]["fm_epoch"] >= 1' "$DRACKCTL" -j pool show &&
	json_ok 'd[0]["section_count"] == 32' "$DRACKCTL" -p pool show 0 &&
	"$DRACKCTL" -p pool show | python3 -m json.tool >/dev/null &&
	"$DRACKCTL" pool | grep -q '^pool 0 backend ram size 64M .*sections 32 meta 1 .* regions 2 fm_pid [1-9][0-9]* fm_epoch [1-9]'
}
ktap_check json_pool json_pool

json_host() {
	json_ok '[h["host"] for h in d] == [0, 3] and all(h["state"] == "up" and
		h["flags"] == ["running"] and h["sections"] >= 1 and h["generation"] >= 1 and
		h["free_2k"] + h["free_64k"] > 0 and h["released"] == [] and
		set(h["wanted"]) <= {"2k", "64k"} for h in d) and
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
for s in sec:
    if s["region"] != s["section"] * p["regions"] // p["section_count"] or s["flags"] != []:
        bad.append("Section %d: region %d (of %d), flags %s" % (s["section"], s["region"], p["regions"], s["flags"]))
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
		"UP" in d[0]["flags"] and d[0]["carrier_reason"] == "none"' "$DRACKCTL" -n h0 -j link show &&
	json_ok 'd == []' "$DRACKCTL" -j link show &&
	"$DRACKCTL" -n h1 link show dev rack0 | grep -q 'rack0: .* pool 0 host 0 '
}
ktap_check json_link json_link

pool_field() { "$DRACKCTL" -j pool show 0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$1"; }

# While drack-fmd is the pool's fabric manager, every FM command from
# another socket is refused, whatever it would do. The targets are
# harmless should the refusal be missing: the metadata Section, a free
# host slot, a pool in use.
fm_managed() {
	local before after pid bad=0
	pid=$(pool_field fm_pid) || return 1
	echo "fm_pid $pid, fm_epoch $(pool_field fm_epoch)"
	((pid > 0)) || { echo "drack-fmd is not the pool's fabric manager"; return 1; }
	before=$(world; "$DRACKCTL" -j section show)
	fails_with 2 '^Error: pool is managed by the fabric manager\.$' "$DRACKCTL" section grant host 3 section 0 class 2k || bad=1
	fails_with 2 '^Error: pool is managed by the fabric manager\.$' "$DRACKCTL" section revoke 0 || bad=1
	fails_with 2 '^Error: pool is managed by the fabric manager\.$' "$DRACKCTL" host fence 7 || bad=1
	fails_with 2 '^Error: pool is managed by the fabric manager\.$' "$DRACKCTL" host reclaim 7 || bad=1
	fails_with 2 '^Error: pool is managed by the fabric manager\.$' "$DRACKCTL" pool format 0 || bad=1
	after=$(world; "$DRACKCTL" -j section show)
	[[ $before == "$after" ]] || { echo "refused commands changed something:"; diff <(echo "$before") <(echo "$after"); bad=1; }
	return $bad
}
ktap_check fm_managed fm_managed

# The registration ends with drack-fmd's socket: the pool is nobody's.
fmd_stop() {
	kill_pid "$DRACK_FMD_PID"
	DRACK_FMD_PID=
	cp /tmp/fmd.log "$DRACK_LOGDIR/fmd-first.log" 2>/dev/null
	wait_for 5 eval '[[ $(pool_field fm_pid) == 0 ]]' || { echo "fm_pid $(pool_field fm_pid) after drack-fmd exited"; return 1; }
}
ktap_check fmd_stop fmd_stop

grant_metadata_refused() {
	local before
	before=$("$DRACKCTL" -j section show) || return 1
	fails_with 2 '^Error: Section holds pool metadata\.$' "$DRACKCTL" section grant pool 0 host 3 section 0 class 2k || return 1
	[[ $("$DRACKCTL" -j section show) == "$before" ]] || { echo "the Section table changed"; return 1; }
}
ktap_check grant_metadata_refused grant_metadata_refused

# A manual grant reaches the host; the same Section twice is refused.
GRANTED=
grant_ok() {
	local s n
	s=$("$DRACKCTL" -j section show free | python3 -c 'import json, sys; print(json.load(sys.stdin)[-1]["section"])') || return 1
	GRANTED=$s
	n=$(sysfs h0 buf64k_sections)
	echo "granting Section $s to host 3 (buf64k_sections $n)"
	"$DRACKCTL" section grant host 3 section "$s" class 64k || return 1
	"$DRACKCTL" section show id "$s" | grep -q "^pool 0 section $s owner 3 class 64k " || { "$DRACKCTL" section show id "$s"; return 1; }
	wait_for 5 eval "[[ \$(sysfs h0 buf64k_sections) == $((n + 1)) ]]" ||
		{ echo "buf64k_sections $(sysfs h0 buf64k_sections), expected $((n + 1))"; return 1; }
	fails_with 2 '^Error: Section is not free\.$' "$DRACKCTL" section grant pool 0 host 0 section "$s" class 2k
}
ktap_check grant_ok grant_ok

# section_field ID KEY: KEY of Section ID in JSON (None if absent)
section_field() {
	"$DRACKCTL" -j section show id "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0].get(sys.argv[1]))' "$2"
}

# The Section granted above goes back when revoked: owner free, a new
# generation, one 64k Section less on host 3, its revokes counter up.
revoke_ok() {
	local s=$GRANTED n gen
	[[ -n $s && $(section_field "$s" owner) == 3 ]] || { echo "no Section granted to host 3 by grant_ok"; return 1; }
	n=$(sysfs h0 buf64k_sections)
	gen=$(section_field "$s" generation)
	echo "revoking Section $s (generation $gen) of host 3 (buf64k_sections $n)"
	"$DRACKCTL" section revoke pool 0 id "$s" || return 1
	wait_for 5 eval "[[ \$(section_field $s state) == free ]]" || { "$DRACKCTL" section show id "$s"; return 1; }
	"$DRACKCTL" section show id "$s"
	[[ $(section_field "$s" generation) -gt $gen && $(section_field "$s" flags) == "[]" ]] ||
		{ echo "expected a generation above $gen and no flags"; return 1; }
	wait_for 5 eval "[[ \$(sysfs h0 buf64k_sections) == $((n - 1)) ]]" ||
		{ echo "buf64k_sections $(sysfs h0 buf64k_sections), expected $((n - 1))"; return 1; }
	json_ok 'd[0]["stats"]["revokes"] >= 1' "$DRACKCTL" -n h0 -j -s link show || return 1
	fails_with 2 '^Error: [Ss]ection is not granted\.$' "$DRACKCTL" section revoke "$s"
}
ktap_check revoke_ok revoke_ok

# Without a fabric manager the kernel says what is wrong; nothing changes.
fm_refusals() {
	local before after bad=0
	before=$(world; "$DRACKCTL" -j section show)
	fails_with 2 '^Error: [Ss]ection is not granted\.$' "$DRACKCTL" section revoke 0 || bad=1
	fails_with 2 '^Error: [Ss]ection id out of range\.$' "$DRACKCTL" section revoke 32 || bad=1
	fails_with 2 '^Error: host slot is free\.$' "$DRACKCTL" host fence 7 || bad=1
	fails_with 2 '^Error: host id out of range for this pool\.$' "$DRACKCTL" host fence 9 || bad=1
	fails_with 2 '^Error: host is not fenced\.$' "$DRACKCTL" host reclaim 3 || bad=1
	fails_with 2 '^Error: (unknown pool|pool 7 does not exist)\.$' "$DRACKCTL" host fence pool 7 id 3 || bad=1
	fails_with 2 '^Error: pool is in use: every host must leave first\.$' "$DRACKCTL" pool format 0 max-hosts 4 || bad=1
	after=$(world; "$DRACKCTL" -j section show)
	[[ $before == "$after" ]] || { echo "refused commands changed something:"; diff <(echo "$before") <(echo "$after"); bad=1; }
	return $bad
}
ktap_check fm_refusals fm_refusals

fmd_restart() {
	drack_start_fmd || return 1
	wait_for 5 eval '[[ $(pool_field fm_pid) != 0 ]]' || { echo "drack-fmd did not register again"; cat /tmp/fmd.log; return 1; }
	echo "fm_pid $(pool_field fm_pid), fm_epoch $(pool_field fm_epoch)"
}
ktap_check fmd_restart fmd_restart

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
    if c["requested"] not in (True, False) or c["draining"] != 0:
        bad.append("class %s: requested %s, draining %s" % (c["class"], c["requested"], c["draining"]))
# ethtool -S says ret_* for the stats dump's rx_ret_*
for k, v in d[0]["stats"].items():
    e = k[3:] if k.startswith("rx_ret_") else k
    if e in eth and eth[e] != v:
        bad.append("%s: %d, ethtool %s %d" % (k, v, e, eth[e]))
if [c["class"] for c in d[0]["classes"]] != ["2k", "64k"] or \
        not {"grants", "rx_ret_ok", "revokes"} <= set(d[0]["stats"]):
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

STAT_NAMES="tx_packets tx_bytes tx_refs tx_bcast tx_ring_full tx_no_buffer tx_no_peer tx_dropped tx_doorbells tx_doorbells_suppressed rx_packets rx_bytes rx_refs rx_bad_desc rx_bad_ring rx_alloc_fail rx_dropped rx_ret_ok rx_ret_bad rx_ret_doorbells section_requests grants grant_bad revokes peers_released fenced"

# -s link show: every counter of the stats dump, tx_refs within ethtool's
# before and after, nothing bad counted.
link_stats() {
	local before after out
	before=$(drack_stat h1 tx_refs)
	out=$("$DRACKCTL" -n h1 -j -s link show rack0) || return 1
	after=$(drack_stat h1 tx_refs)
	python3 - "$out" "$before" "$after" "$STAT_NAMES" <<'EOF' || return 1
import json, sys
d = json.loads(sys.argv[1])
lo, hi, names = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
st = d[0]["stats"]
print(json.dumps(st))
bad = [n for n in names if not isinstance(st.get(n), int)]
if bad:
    print("missing: %s" % bad)
ok = not bad and lo <= st["tx_refs"] <= hi and st["tx_packets"] > 0 and st["rx_packets"] > 0
ok = ok and st["rx_bad_desc"] == 0 and st["rx_bad_ring"] == 0 and st["fenced"] == 0
if not ok:
    print("expected tx_refs within ethtool's %d..%d, packets both ways, nothing bad or fenced" % (lo, hi))
sys.exit(0 if ok else 1)
EOF
	out=$("$DRACKCTL" -n h1 -s link show) || return 1
	grep -q '^    tx_packets [1-9]' <<<"$out" && grep -q '^    rx_packets [1-9]' <<<"$out" &&
		grep -q '^    section_requests [0-9]* grants [1-9]' <<<"$out" || { echo "$out"; return 1; }
}
ktap_check link_stats link_stats

# monitor: a host joining, asking for Sections and leaving; stops on SIGINT.
monitor() {
	local jpid tpid rc bad=0
	bg monitor_json "$DRACKCTL" -j monitor
	jpid=$BG_PID
	bg monitor_text "$DRACKCTL" monitor host
	tpid=$BG_PID
	sleep 1
	"$DRACKCTL" -n h0 link add rack1 host 5 || return 1
	wait_for 10 eval "grep -q '\"host\":5' '$DRACK_LOGDIR/monitor_json.log' && grep -q section_request '$DRACK_LOGDIR/monitor_json.log' && grep -q '\"owner\":5' '$DRACK_LOGDIR/monitor_json.log'"
	"$DRACKCTL" -n h0 link del rack1 || return 1
	wait_for 10 grep -q 'host 5 state free' "$DRACK_LOGDIR/monitor_text.log"
	wait_for 10 grep -q '"host":5,"state":"free"' "$DRACK_LOGDIR/monitor_json.log"
	for p in $jpid $tpid; do
		kill -INT "$p"
		rc=0
		wait "$p" || rc=$?
		((rc == 0)) || { echo "monitor exited with status $rc after SIGINT"; bad=1; }
	done
	echo "text:"; cat "$DRACK_LOGDIR/monitor_text.log"
	grep -qx 'host_notify pool 0 host 5 state up' "$DRACK_LOGDIR/monitor_text.log" &&
		grep -qx 'host_notify pool 0 host 5 state free' "$DRACK_LOGDIR/monitor_text.log" &&
		! grep -qE 'section_(request|notify)' "$DRACK_LOGDIR/monitor_text.log" || { echo "text monitor: wrong events"; bad=1; }
	python3 - "$DRACK_LOGDIR/monitor_json.log" <<'EOF' || bad=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
mine = [e for e in ev if e.get("host") == 5]
print("json: %d events, host 5: %s" % (len(ev), mine))
# Sections granted to host 5, each given back when it left
got = set(e["section"] for e in ev if e["event"] == "section_notify" and e.get("owner") == 5)
last = dict((e["section"], e["state"]) for e in ev if e["event"] == "section_notify")
print("Sections granted to host 5: %s, now: %s" % (sorted(got), [last[s] for s in sorted(got)]))
want = [{"event": "host_notify", "pool": 0, "host": 5, "state": "up"},
        {"event": "host_notify", "pool": 0, "host": 5, "state": "free"}]
ok = [e for e in mine if e["event"] == "host_notify"] == want
ok = ok and any(e["event"] == "section_request" and e["class"] in ("2k", "64k") and
                e["count"] >= 1 for e in mine)
ok = ok and bool(got) and all(last[s] == "free" for s in got)
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
