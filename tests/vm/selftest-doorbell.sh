#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/ivshmem-server/drack-ivshmem-server with QEMU ivshmem-doorbell guests.
#
# 1. On the host, tests/vm/ivshmem-proto.py plays QEMU clients against the
#    server: messages, eventfd pairing, departures, ids, a stuck client; a
#    client holding the memory keeps it locked after the server exits.
# 2. Guests A and B connect to a server restarted on the same memory file:
#    they get different ids (IVPosition), see what the host left in the
#    file, and exchange strings through BAR2. A's QEMU is SIGKILLed: the
#    server tells B and goes on; guest C then gets a new id (B saw A's id
#    leave: QEMU must not see it come back) and talks to B, which survives.
#    A second server on the same memory is refused while guests run.
# MSI-X doorbells need a guest driver and are not checked here.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/lib.sh

make -s -C tools drack-ivshmem-server >&2
srv=tools/ivshmem-server/drack-ivshmem-server
work=$(mktemp -d "${TMPDIR:-/tmp}/drack-doorbell.XXXXXX")
sock=$work/ivshmem.sock
shm=/dev/shm/drack-vm.$$.doorbell # vm_cleanup removes it
size=$((4 << 20))
nonce=$RANDOM$RANDOM
rw="python3 tests/vm/ivshmem-rw.py"
spid=
rc=0
start=$SECONDS

cleanup() {
	[[ -z $spid ]] || kill "$spid" 2>/dev/null || true
	vm_cleanup
	((rc)) && echo "server logs kept in $work" || rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; rc=1 VM_KEEP=1; }
ok() { echo "ok: $*"; }

# until TIMEOUT_SEC COMMAND...: poll COMMAND every 0.2 s
until_t() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

server_start() { # LOG ARGS...
	local log=$1; shift
	"$srv" -S "$sock" -m "$shm" "$@" 2>"$log" &
	spid=$!
	until_t 10 grep -q 'listening on' "$log" || { cat "$log"; vm_die "server did not start"; }
}

server_stop() { # LOG: SIGTERM, expect exit 0 and the socket gone
	local src=0
	kill -TERM "$spid"
	wait "$spid" || src=$?
	spid=
	((src == 0)) && [[ ! -e $sock ]] && ok "server exits 0 on SIGTERM, socket removed" ||
		fail "server exit $src on SIGTERM, socket $(ls "$sock" 2>&1)"
}

# ---- 1. protocol, on the host ----------------------------------------------
server_start "$work/proto.log" -l "$size" -n 2
if python3 tests/vm/ivshmem-proto.py "$sock" 2 "$size" >"$work/proto.out" 2>&1; then
	ok "protocol: $(grep -c '^ok: ' "$work/proto.out") checks with 2 vectors, clients coming and going"
else
	grep -v '^ok: ' "$work/proto.out"
	fail "protocol check (see $work/proto.out, $work/proto.log)"
fi

# A client holding the memory keeps it locked after the server is gone.
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
fds = [socket.recv_fds(s, 8, 1)[1] for _ in range(3)]
print("holding", flush=True); time.sleep(60)' "$sock" >"$work/holder.out" &
holder=$!
until_t 10 grep -q holding "$work/holder.out" || fail "the holder did not connect"
server_stop "$work/proto.log"
if "$srv" -S "$sock" -m "$shm" 2>"$work/second.log"; then
	fail "a second server started while a client held the memory"
elif grep -q 'is locked' "$work/second.log"; then
	ok "the memory stays locked while a client of the old server holds it"
else
	fail "second server: $(cat "$work/second.log")"
fi
kill "$holder" && wait "$holder" 2>/dev/null || true

# ---- 2. guests ------------------------------------------------------------
# The memory file is kept across servers: leave something for the guests.
printf 'from the host %s\0' "$nonce" | dd of="$shm" bs=1 seek=12288 conv=notrunc status=none
log=$work/server.log
server_start "$log" -l "$size" # same size: served as it is
grep -q 'contents kept' "$log" && ok "existing memory file kept" || fail "memory file not kept: $(cat "$log")"

args=$(vm_ivshmem_doorbell_args "$sock")
common=(--smp 1 --mem 512 --timeout 240)
vm_start a "${common[@]}" --qemu-extra "$args -pidfile $work/a.pid" -- \
	"id=\$($rw id) && echo id=\$id && $rw wait 12288 'from the host $nonce' 60 &&
	 $rw write 0 'hello from A $nonce' && $rw wait 4096 'ack $nonce' 120 && sleep 600"
vm_start b "${common[@]}" --qemu-extra "$args" -- \
	"id=\$($rw id) && echo id=\$id && $rw wait 0 'hello from A $nonce' 120 && $rw write 4096 'ack $nonce' &&
	 $rw wait 8192 'hello from C $nonce' 180 && $rw write 4096 'bye $nonce'"

a_out=$(vm_outdir a)/output b_out=$(vm_outdir b)/output
guest_id() { sed -n 's/^id=\([0-9]*\)$/\1/p' "$1" 2>/dev/null | head -n 1; }
a_acked() { grep -qx "ack $nonce" "$a_out" 2>/dev/null || ! kill -0 "${VM_PIDS[a]}" 2>/dev/null; }
until_t 200 a_acked || true
if ! grep -qx "ack $nonce" "$a_out" 2>/dev/null; then
	fail "A and B did not exchange strings"
	vm_wait_all || true
	exit 1
fi
ida=$(guest_id "$a_out") idb=$(guest_id "$b_out")
echo "guest ids: A $ida, B $idb (two guests up in $((SECONDS - start))s)"
[[ -n $ida && -n $idb && $ida != "$idb" ]] && ok "A and B got different ids" || fail "ids A '$ida' B '$idb'"
grep -qx "from the host $nonce" "$a_out" && ok "A reads what the host left in the file" ||
	fail "A did not see the host's string"
ok "B read A's string, A read B's ack through BAR2"
[[ $(grep -c 'connected, ' "$log") == 2 ]] && ok "server registered two peers" || fail "server log: $(cat "$log")"

# SIGKILL A's QEMU: B must be told, the server must go on.
kill -KILL "$(cat "$work/a.pid")"
vm_wait a >/dev/null 2>&1 || true
if until_t 10 grep -q "peer $ida gone, told 1 peer\$" "$log"; then
	ok "A killed: server told B that peer $ida is gone"
else
	fail "no departure of peer $ida in the server log"
fi
kill -0 "$spid" 2>/dev/null && ok "server still running" || fail "server died"

# C gets the lowest id that B did not see leave, and talks to B.
vm_start c "${common[@]}" --qemu-extra "$args" -- \
	"id=\$($rw id) && echo id=\$id && $rw wait 4096 'ack $nonce' 10 && $rw write 8192 'hello from C $nonce' &&
	 $rw wait 4096 'bye $nonce' 120"
c_out=$(vm_outdir c)/output
c_up() { grep -q '^id=' "$c_out" 2>/dev/null || ! kill -0 "${VM_PIDS[c]}" 2>/dev/null; }
until_t 200 c_up || true
# The server and both guests hold the memory file, and with it the lock.
if "$srv" -S "$work/other.sock" -m "$shm" 2>"$work/second.log"; then
	fail "a second server on the same memory started"
else
	grep -q 'is locked' "$work/second.log" && ok "a second server on the same memory is refused" ||
		fail "second server: $(cat "$work/second.log")"
fi
vm_wait_all || fail "guest B or C failed"
idc=$(guest_id "$c_out")
echo "guest ids: C $idc"
[[ -n $idc && $idc != "$ida" && $idc != "$idb" && $idc -le 2 ]] &&
	ok "C got id $idc, neither B's nor A's (which B saw leave)" || fail "C got id '$idc', A had $ida, B $idb"
grep -qx "hello from C $nonce" "$b_out" && grep -qx "bye $nonce" "$c_out" &&
	ok "C and B exchanged strings through BAR2" || fail "C and B did not exchange strings"
# QEMU logs protocol trouble ("invalid peer", "Too many eventfd received").
if grep -i 'ivshmem\|peer\|eventfd' "$(vm_outdir b)/qemu.err" "$(vm_outdir c)/qemu.err"; then
	fail "QEMU complained"
else
	ok "QEMU logged no protocol error"
fi
grep -q "peer $idc connected, 2 peers" "$log" && ok "server registered C" || fail "C not in the server log"
server_stop "$log"

# The guests are gone and so is the lock.
server_start "$work/again.log"
ok "a new server serves the memory once the guests are gone"
server_stop "$work/again.log"

echo "took $((SECONDS - start))s"
((rc)) && echo "selftest-doorbell: FAIL" || echo "selftest-doorbell: ok"
exit $rc
