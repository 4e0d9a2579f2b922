#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# nlfuzz: the generic netlink family "drack" fuzzed (issue 14, test 3).
#
#   h0 rack0 (host 0) --+
#                       +-- pool 0 (ram), drack-fmd its fabric manager
#   h1 rack0 (host 1) --+
#
# tests/pool/nlfuzz sends, from netns h0, every command value of the
# family (0 .. DRACK_CMD_MAX + 2) with and without NLM_F_DUMP and
# NLM_F_ACK and random, missing, duplicated, out-of-range, mis-sized and
# oversize (up to 4 KB) attributes, nested garbage, damaged headers and
# valid-looking ids at and past the pool's limits; it reads every answer
# (a NOOP ack after each message, so nothing waits for a reply that never
# comes) and counts them by errno. Three runs, each after a sweep of every
# command with each request attribute missing and doubled:
#   user  as nobody (setpriv, no capabilities): every state-changing
#         command must be refused with EPERM (a header that genetlink
#         rejects first aside)
#   tenant  root only in its own user and network namespace (unshare
#         -Urn, as in privilege.sh): the same, for every command
#   root  as root while drack-fmd is the pool's fabric manager and h0 has
#         no Ethernet device to export: every state-changing command must
#         still be refused (EBUSY from the FM check, or earlier), so even
#         a valid-looking one changes nothing
# Before and after each run the observable state must be the same: the
# pool, host (less heartbeats and published free counts), Section and NIC
# tables (drackctl -j), the links of every netns (ip -j link), rack0's
# state counters and private flags (ethtool). Traffic flows before and
# after; the module unloads and the kernel log stays clean.
#
# NLFUZZ_N random messages per run, 100000 by default (the issue's 10^5;
# each run takes about 10 s in a TCG guest, the sweep included), and
# NLFUZZ_SEED (default: from the clock) are printed; a failure prints the
# nlfuzz command line that replays the one bad message.
#
# What breaks it: a state-changing command without GENL_ADMIN_PERM (or
# with GENL_UNS_ADMIN_PERM), or one that acts before the FM check; a
# rejected message that changed a table, a link or a counter; a command
# answering a malformed request with a success, an event-only or unknown
# command accepted, a malformed reply, a dump that never ends or a
# message never answered (fuzz_user, fuzz_tenant, fuzz_root, state_*); an oops, WARN,
# KASAN or UBSAN splat, a hang (dmesg_clean, the nlfuzz timeout); a
# leaked reference that keeps the module loaded (teardown).
. "$(dirname "$0")/lib.sh"

PROG=$DRACK_POOL_BIN/nlfuzz
N=${NLFUZZ_N:-100000}
SEED=${NLFUZZ_SEED:-$(( $(date +%s%N) % 1000000007 ))}
NS=h0

ktap_plan 13

drack_setup 2 || ktap_finish

ping_both() { ping_ok h0 "$(ip4 1)" && ping_ok h1 "$(ip6 0)"; }
ktap_check ping_before ping_both

# state: everything a rejected message must leave alone, one text file
state() {
	local ns what
	for what in pool host section nic; do
		echo "== drackctl $what show"
		"$DRACKCTL" -j "$what" show | python3 -c '
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k not in ("heartbeat", "free_2k", "free_64k")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
print(json.dumps(strip(json.load(sys.stdin)), indent=1, sort_keys=True))' || return 1
	done
	echo "== netns"
	ip netns list | sort
	echo "== links"
	ip -j link show | python3 -m json.tool --sort-keys || return 1
	for ns in h0 h1; do
		echo "== $ns links"
		ip -n "$ns" -j link show | python3 -m json.tool --sort-keys || return 1
		echo "== $ns rack0 counters"
		drack_stats "$ns" | grep -E '^(grants|grant_bad|revokes|fenced|peers_released|rx_bad_desc|rx_bad_ring|ret_bad|buf(2|64)k_(sections|total)) ' ||
			return 1
		echo "== $ns rack0 private flags"
		in_ns "$ns" ethtool --show-priv-flags rack0 || return 1
	done
}

# snapshot FILE: the state, once two reads a second apart agree
snapshot_once() {
	state >"$1.a" 2>&1 || { cat "$1.a"; return 1; }
	sleep 1
	state >"$1" 2>&1 || { cat "$1"; return 1; }
	cmp -s "$1.a" "$1"
}
snapshot() {
	wait_for 20 snapshot_once "$1" && return 0
	echo "the state does not settle:"
	diff -u "$1.a" "$1" | tail -n 20
	return 1
}

BEFORE=$DRACK_LOGDIR/state.before
ktap_check state_before snapshot "$BEFORE"

# unchanged NAME: the state now is the state before
unchanged() {
	local now=$DRACK_LOGDIR/state.$1
	state >"$now" 2>&1 || { cat "$now"; return 1; }
	diff -u "$BEFORE" "$now" >"$now.diff" && return 0
	# something that moves on its own would show in a second read too
	echo "the state changed (- before, + after $1):"
	head -n 40 "$now.diff"
	return 1
}

# fuzz NAME MODE SEED RUNNER...: one run of nlfuzz, one KTAP result
fuzz() {
	local name=$1 mode=$2 seed=$3 log=$DRACK_LOGDIR/$1.log rc=0 t0=$SECONDS; shift 3
	kmsg "nlfuzz $mode seed $seed n $N"
	"$@" timeout 1200 "$PROG" -m "$mode" -n "$N" -s "$seed" -q >"$log" 2>&1 </dev/null || rc=$?
	if ((rc == 0)); then
		ktap_ok "$name"
	else
		ktap_fail "$name" "tests/pool/nlfuzz -m $mode -n $N -s $seed under '${*:1:4}': rc $rc$( ((rc == 124)) && echo ' (timeout: a hang?)')" \
			"$(grep -E 'VIOLATION|replay:|nlfuzz:' "$log" | head -n 30)"
	fi
	diag "$name: $((SECONDS - t0)) s; $(grep -E '^nlfuzz:' "$log")"
	diag "$(grep -E '^#   (ok|not processed|refused|TIMEOUT|replies)|^# [0-9]+ fixed' "$log")"
	return $rc
}

nobody=(ip netns exec "$NS" setpriv --reuid=nobody --regid=nogroup --clear-groups
	--inh-caps=-all --bounding-set=-all --no-new-privs)
fuzz fuzz_user user "$SEED" "${nobody[@]}"
ktap_check state_user unchanged user

fuzz fuzz_tenant user "$((SEED + 1))" unshare -Urn
ktap_check state_tenant unchanged tenant

# Root: only drack-fmd may change the pool, and h0 has nothing to export.
root_ready() {
	local fm links
	fm=$("$DRACKCTL" -j pool show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["fm_pid"])')
	[[ $fm == "$DRACK_FMD_PID" ]] || { echo "pool 0's fabric manager is pid $fm, not drack-fmd ($DRACK_FMD_PID)"; return 1; }
	# Ethernet devices only: a kernel with sit or ip6_tunnel built in has
	# their fallback devices in every netns, and export refuses those.
	links=$(ip -n "$NS" -o link show | awk -F': ' '/link\/ether/ { print $2 }' | tr '\n' ' ')
	[[ $links == "rack0 " ]] || { echo "$NS has Ethernet devices besides rack0: $links"; return 1; }
}
if out=$(root_ready 2>&1); then
	fuzz fuzz_root fm "$((SEED + 2))" ip netns exec "$NS"
else
	ktap_fail fuzz_root "$out"
fi
ktap_check state_root unchanged root

ktap_check ping_after ping_both

drack_finish
