#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# iplink: ip(8) with the tree's iproute2 plugin, tools/ip/link_drack.so.
#
#   h0 rack0 (host 0)  <-- pool 0 -->  rack9 (host 5, init netns)
#
# `ip link add rack9 type drack pool 0 host 5` joins as host 5; `ip -d
# link show` (text and JSON) reports pool, host and the read-only state,
# peers, Sections and carrier reason; bad arguments fail in ip with iproute2's messages
# and change nothing; the kernel refuses the read-only attributes if
# some other client sends them; ip without the plugin still works.
#
# What breaks it: the plugin not found or its symbol misnamed (help),
# attributes not sent or sent with the wrong type (add_pool_host), fill_info
# or print_opt missing a field (show_details, show_json), a range check
# gone from the plugin (bad_input), the policy accepting STATE, PEERS,
# SECTIONS or CARRIER_REASON (kernel_rejects_read_only), a plugin needed for plain `type drack`
# (plugin_less).
. "$(dirname "$0")/lib.sh"

export IP_LIB_DIR=$DRACK_IP_LIB_DIR
NO_PLUGIN=$DRACK_LOGDIR/no-plugin	# an IP_LIB_DIR without link_drack.so
mkdir -p "$NO_PLUGIN"

ktap_plan 13

setup_iplink() {
	[[ -e $IP_LIB_DIR/link_drack.so ]] || { echo "no $IP_LIB_DIR/link_drack.so: run make tools"; return 1; }
	drack_load && drack_start_fmd && drack_host_add 0	# no carrier: no peer yet
}
ktap_check setup setup_iplink || ktap_finish

# Who is in the pool (heartbeats and Sections move on their own).
hosts_now() {
	"$DRACKCTL" host show 2>&1 | sed -E 's/.*(host [0-9]+ state [a-z]+).*/\1/' | sort
}

USAGE='Usage: ... drack [ pool POOL ] [ host HOST ]'

help() {
	local out rc=0
	out=$(ip link help drack 2>&1) || rc=$?
	echo "rc $rc: $out"
	((rc == 0)) && [[ $out == *"$USAGE"* ]]
}
ktap_check help help

# ip link add type drack help: the usage (on stderr, as other kinds do)
help_add() {
	local out rc=0
	out=$(ip link add type drack help 2>&1) || rc=$?
	echo "rc $rc: $out"
	((rc != 0)) && [[ $out == *"$USAGE"* ]]
}
ktap_check help_add help_add

add_pool_host() {
	local v
	ip link add rack9 type drack pool 0 host 5 || return 1
	v=$(cat /sys/class/net/rack9/drack/host_id 2>&1)
	[[ $v == 5 ]] || { echo "host_id $v, expected 5"; return 1; }
	v=$(cat /sys/class/net/rack9/drack/pool_id 2>&1)
	[[ $v == 0 ]] || { echo "pool_id $v, expected 0"; return 1; }
	v=$(cat /sys/class/net/rack9/address 2>&1)
	[[ $v == "$(host_mac 5)" ]] || { echo "MAC $v, expected $(host_mac 5)"; return 1; }
	hosts_now | grep -qx 'host 5 state up' || { echo "host table:"; hosts_now; return 1; }
	ip link set rack9 up && wait_for 10 has_carrier_init rack9
}
has_carrier_init() { ip -o link show dev "$1" | grep -q LOWER_UP; }
ktap_check add_pool_host add_pool_host

# Once h0 is a reachable peer and the FM granted rack9 its Sections.
details_ok() {
	ip -d link show rack9 | grep -qE 'drack pool 0 host 5 state up peers 1 sections [1-9][0-9]* carrier_reason none '
}
show_details() {
	wait_for 20 details_ok && return 0
	ip -d link show rack9
	return 1
}
ktap_check show_details show_details

show_json() {
	ip -d -j link show rack9 | python3 -c '
import json, sys
li = json.load(sys.stdin)[0]["linkinfo"]
d = li["info_data"]
print(li["info_kind"], d)
assert li["info_kind"] == "drack", "info_kind"
assert d["pool"] == 0 and d["host"] == 5, "pool/host"
assert d["state"] == "up" and d["peers"] == 1, "state/peers"
assert isinstance(d["sections"], int) and d["sections"] >= 1, "sections"
assert d["carrier_reason"] == "none", "carrier_reason"
'
}
ktap_check show_json show_json

before=$(hosts_now)

# ARGS... EXPECTED: ip fails with EXPECTED on stderr, nothing created
bad_one() {
	local want=$1 out rc=0 bad=0; shift
	out=$(ip link add rack8 type drack "$@" 2>&1) || rc=$?
	if ((rc == 0)) || [[ $out != *"$want"* ]]; then
		echo "ip link add rack8 type drack $*: rc $rc: $out (expected: $want)"
		bad=1
	fi
	if ip link show rack8 >/dev/null 2>&1; then
		echo "ip link add rack8 type drack $*: rack8 exists"
		ip link del rack8
		wait_for 10 eval '[[ $(hosts_now) == "$before" ]]'
		bad=1
	fi
	return $bad
}
bad_input() {
	local bad=0 now
	bad_one 'Error: argument "64" is wrong: host id must be 0-63' host 64 || bad=1
	bad_one 'Error: argument "300" is wrong: pool id must be 0-255' pool 300 || bad=1
	bad_one 'Error: argument "abc" is wrong: host id must be 0-63' host abc || bad=1
	bad_one 'drack: unknown option "hots"?' hots 6 || bad=1
	bad_one "$USAGE" hots 6 || bad=1
	bad_one 'Error: duplicate "host": "7" is the second value.' host 6 host 7 || bad=1
	bad_one 'Command line is not complete' host || bad=1
	now=$(hosts_now)
	[[ $now == "$before" ]] || { echo "host table changed: before"; echo "$before"; echo "after"; echo "$now"; bad=1; }
	return $bad
}
ktap_check bad_input bad_input

# What the plugin never sends: a raw RTM_NEWLINK with a read-only
# attribute (IFLA_DRACK_STATE 3 to IFLA_DRACK_CARRIER_REASON 6 in
# kmod/uapi/drack.h), and, to show the sender works, one with only
# IFLA_DRACK_HOST (2).
newlink_raw() { # TYPE VALUE: prints "ERRNO extack-message"
	python3 - "$@" <<'EOF'
import socket, struct, sys
attr_type, value = int(sys.argv[1]), int(sys.argv[2])
def rta(t, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)
data = rta(attr_type, struct.pack("I", value))
info = rta(1, b"drack\0") + rta(2 | 0x8000, data)		# KIND, DATA
body = struct.pack("BxHiII", 0, 0, 0, 0, 0)			# ifinfomsg
body += rta(3, b"rack7\0") + rta(18 | 0x8000, info)		# IFNAME, LINKINFO
# RTM_NEWLINK, NLM_F_REQUEST|ACK|EXCL|CREATE
msg = struct.pack("IHHII", 16 + len(body), 16, 0x1 | 0x4 | 0x200 | 0x400, 1, 0) + body
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.setsockopt(270, 11, 1)					# NETLINK_EXT_ACK
s.setsockopt(270, 10, 1)					# NETLINK_CAP_ACK
s.send(msg)
r = s.recv(65536)
ln, typ, flags = struct.unpack_from("IHH", r)
assert typ == 2, "no NLMSG_ERROR"
err = struct.unpack_from("i", r, 16)[0]
off = 16 + 4 + 16						# the request's header
if not flags & 0x100:						# NLM_F_CAPPED
    off += struct.unpack_from("I", r, 20)[0] - 16		# and its payload
text = ""
while off + 4 <= ln:
    n, t = struct.unpack_from("HH", r, off)
    if n < 4:
        break
    if t == 1:							# NLMSGERR_ATTR_MSG
        text = r[off + 4:off + n].split(b"\0")[0].decode()
    off += (n + 3) & ~3
print(-err, text)
EOF
}
kernel_rejects_read_only() {
	local out bad=0 t
	for t in 3 4 5 6; do
		out=$(newlink_raw "$t" 1) || { echo "sender failed: $out"; return 1; }
		echo "attribute $t: $out"
		[[ $out == "22 the "*" read only" ]] || bad=1
		! ip link show rack7 >/dev/null 2>&1 || { echo "rack7 created"; ip link del rack7; bad=1; }
	done
	out=$(newlink_raw 2 7) || { echo "sender failed: $out"; return 1; }
	echo "host 7: $out"
	[[ $out == "0 " && $(cat /sys/class/net/rack7/drack/host_id) == 7 ]] || bad=1
	ip link del rack7 2>/dev/null
	return $bad
}
ktap_check kernel_rejects_read_only kernel_rejects_read_only

# Without the plugin: plain `type drack` (the default host) and a bare
# "drack" in ip -d link show.
plugin_less() {
	local out v
	IP_LIB_DIR=$NO_PLUGIN ip link add rack8 type drack || return 1
	v=$(cat /sys/class/net/rack8/drack/host_id)
	ip link del rack8 || return 1
	[[ $v == 1 ]] || { echo "rack8: host_id $v, expected 1 (the lowest free)"; return 1; }
	out=$(IP_LIB_DIR=$NO_PLUGIN ip -d link show rack9) || return 1
	echo "$out"
	[[ $out == *"drack "* && $out != *"pool 0 host 5"* ]]
}
ktap_check plugin_less plugin_less

# Only h0 left in the host table.
only_h0() { [[ $(hosts_now) == "host 0 state up" ]]; }
link_del() {
	ip link del rack9 || return 1
	wait_for 10 only_h0 || { hosts_now; return 1; }
}
ktap_check link_del link_del

drack_finish
