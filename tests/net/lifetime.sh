#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lifetime: a drack link whose creation fails half way leaves nothing
# behind.
#
#   h0 rack0  <-- pool 0 -->  h1 rack0        newlink "bad/name" (fails)
#
# register_netdevice() refuses a name with a slash, after drack's newlink
# has claimed a host slot. The slot must go back to FREE, no peer may have
# seen the host up (it was never published), and no work item may be left
# pointing at the freed netdev.
#
# What breaks it: publishing the host before registration succeeds (peers
# see it UP: never_up), not giving the slot back (slot_free_again),
# a work queued on the half-made netdev (dmesg_clean, and a KASAN kernel).
. "$(dirname "$0")/lib.sh"


ktap_plan 8

setup_lt() {
	drack_load && drack_start_fmd && drack_host_add 0 && drack_host_add 1 &&
		wait_for 10 ping_once h0 "$(ip4 1)"
}
ktap_check setup setup_lt || ktap_finish

# RTM_NEWLINK of kind drack with a name ip(8) itself would refuse.
newlink_raw() {
	python3 - "$1" <<'PY'
import socket, struct, sys, errno
name = sys.argv[1].encode() + b"\0"
def attr(t, payload):
    l = 4 + len(payload)
    return struct.pack("HH", l, t) + payload + b"\0" * ((4 - l % 4) % 4)
IFLA_IFNAME, IFLA_LINKINFO, IFLA_INFO_KIND = 3, 18, 1
body = struct.pack("BxHiII", 0, 0, 0, 0, 0)
body += attr(IFLA_IFNAME, name)
body += attr(IFLA_LINKINFO | 0x8000, attr(IFLA_INFO_KIND, b"drack\0"))
RTM_NEWLINK, NLM_F_REQUEST, NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL = 16, 1, 4, 0x400, 0x200
hdr = struct.pack("IHHII", 16 + len(body), RTM_NEWLINK,
                  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 1, 0)
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.send(hdr + body)
msg = s.recv(65536)
err = struct.unpack("i", msg[16:20])[0]
print("errno", -err, errno.errorcode.get(-err, "?"))
sys.exit(0 if err == 0 else 1)
PY
}

hosts_now() {
	"$DRACKCTL" host show 2>&1 |
		sed -E 's/.*(host [0-9]+ state [a-z]+).*(generation [0-9]+).*/\1 \2/'
}
before=$(hosts_now)
bg events "$DRACKCTL" monitor host
host_events=$DRACK_LOGDIR/events.log
sleep 0.5

newlink_fails() {
	if newlink_raw "bad/name"; then
		echo "a link named bad/name was created"
		return 1
	fi
	! ip link show "bad/name" >/dev/null 2>&1
}
ktap_check newlink_fails newlink_fails

slot_free_again() {
	local after
	after=$(hosts_now)
	[[ $after == "$before" ]] || { echo "before:"; echo "$before"; echo "after:"; echo "$after"; return 1; }
}
ktap_check slot_free_again slot_free_again

never_up() {
	sleep 0.5
	if grep -q 'host 2 ' "$host_events"; then
		echo "the rack heard of the half-made host 2:"; cat "$host_events"; return 1
	fi
}
ktap_check never_up never_up

# The next link gets the slot the failed one claimed.
next_link_takes_slot() {
	drack_host_add 2 && wait_for 10 ping_once h2 "$(ip4 0)"
}
ktap_check next_link_takes_slot next_link_takes_slot

drack_finish
