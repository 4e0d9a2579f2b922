# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for the drack netns tests; source it from a test script:
#   . "$(dirname "$0")/lib.sh"
#
# Every test script runs as root in a QEMU guest (tests/guest-suite.sh) or
# under kselftest's runner (make -C tests run_tests, run_kselftest.sh: cwd =
# the script's folder, here or installed), sets up and tears down everything
# itself and prints KTAP on stdout. Exit status as in kselftest: 0 pass, 1
# fail, 4 (KSFT_SKIP) skipped: not root, or no drack.ko to load.
#
#   ktap_plan N                  KTAP header and plan; skips the whole test
#                                (1..0 # SKIP, exit 4) when it cannot run
#   ktap_ok NAME / ktap_fail NAME WHY... / ktap_skip NAME WHY
#   ktap_check NAME CMD...       ok if CMD succeeds, else not ok with its output
#   ktap_skip_all WHY            1..0 # SKIP WHY, exit 4
#   ktap_finish                  reports planned tests never run as failed, the
#                                totals; exits 0, 1, or 4 if all were skipped
#
#   drack_setup N [MTU] [PARAMS] insmod, fmd, N hosts h0..hN-1 (one KTAP result)
#   drack_load [PARAMS...]       insmod $DRACK_KO PARAMS (modprobe drack PARAMS
#                                when DRACK_KO is empty)
#   drack_start_fmd              $DRACK_FMD -v $DRACK_FMD_ARGS in the background
#   drack_hosts N [MTU]          netns h0..hN-1 with rack0 up, 198.18.0.(i+1)/24,
#                                2001:db8:d7::(i+1)/64
#   drack_stat NS NAME [DEV]     one ethtool -S counter
#   stats_raw NS [DEV]; stat_in TEXT NAME   ethtool -S once, counters from it
#                                (STAT), no program started per counter
#   drack_wait_settled [SECS]    until no host has a Buffer in flight
#   drack_check_buffers_home     every Buffer back with its owner, on every host
#   drack_cleanup                kill what we started, delete links and netns,
#                                rmmod, check nothing is left
#   drack_dmesg_check            no BUG/WARNING/Oops/leak since the test began
#   drack_dmesg_has TEXT         TEXT in the kernel log since the test began
#   drack_finish                 buffers_home, teardown, dmesg_clean results, then
#                                ktap_finish (the usual end of a test script)
#
#   drack_host_add I [MTU]       one more host hI (host ids are taken in order)
#   drack_del_host NS            delete NS's rack0 (the netns stays)
#   drack_netns_add NS           a netns (lo up, no DAD, addresses kept on down)
#   has_carrier NS / no_carrier NS / carrier NS
#   ping_ok NS DST [ping args]   3 echoes, all answered; ping_once NS DST
#   iperf_server NS PORT         iperf3 -s in the background, listening
#   iperf_run NS DST PORT OUT [args]  iperf3 -c -J into OUT (timeout 60)
#   iperf_result OUT [MIN_MBPS] [MAX_LOSS%]  summary line; fails below limits
#   iperf_check NAME NS DST PORT MIN_MBPS MAX_LOSS [args]  one KTAP result
#   snap NAME NS / delta NAME NS COUNTER   ethtool -S counter differences
#   snap_delta OLD NEW NS COUNTER          the same between two snapshots
#   drack_stats NS / drack_dump_stats      all counters ("name value")
#   bg NAME CMD...               background program, killed by drack_cleanup
#   wait_for SECS CMD...         poll CMD every 0.1 s
#   in_ns NS CMD...; ip4 I; ip6 I; host_mac I [POOL]
#
# Env: DRACK_KO (the module to insmod; empty: modprobe drack), DRACK_FMD,
# DRACKCTL; DRACK_LOGDIR (/tmp/drack-test/TEST: logs, iperf3 JSON). Defaults,
# in the source tree: kmod/drack.ko (or, not built, an installed module),
# tools/drack-fmd/drack-fmd, tools/drackctl/drackctl, tools/ip/link_drack.so
# (DRACK_IP_LIB_DIR), tests/pool/* (DRACK_POOL_BIN). Installed (make -C tests
# install): the installed module and tools (PATH, ip's own plugin folder),
# the pool programs and addr.sh next to this file (DRACK_TESTDIR).
#
# Only guest-local addresses: 198.18.0.0/24 and 2001:db8:d7::/64, and every
# client (ping, iperf3, curl, redis-benchmark) runs under `timeout`.

set -u
set -o pipefail

# Where this file is (-P: the runner may reach it through a symlink).
DRACK_TESTDIR=$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -e $DRACK_TESTDIR/../../tools/rack/addr.sh ]]; then	# the source tree
	DRACK_TOP=$(cd -P "$DRACK_TESTDIR/../.." && pwd)
	if [[ -z ${DRACK_KO+set} ]]; then	# not built: modprobe an installed one
		DRACK_KO=$DRACK_TOP/kmod/drack.ko
		[[ -e $DRACK_KO ]] || DRACK_KO=
	fi
	DRACK_FMD=${DRACK_FMD:-$DRACK_TOP/tools/drack-fmd/drack-fmd}
	DRACKCTL=${DRACKCTL:-$DRACK_TOP/tools/drackctl/drackctl}
	DRACK_IP_LIB_DIR=${DRACK_IP_LIB_DIR:-$DRACK_TOP/tools/ip}
	DRACK_POOL_BIN=${DRACK_POOL_BIN:-$DRACK_TOP/tests/pool}
	DRACK_ADDR_SH=$DRACK_TOP/tools/rack/addr.sh
else					# installed by make -C tests install
	DRACK_TOP=
	DRACK_KO=${DRACK_KO-}
	DRACK_FMD=${DRACK_FMD:-$(command -v drack-fmd || echo drack-fmd)}
	DRACKCTL=${DRACKCTL:-$(command -v drackctl || echo drackctl)}
	if [[ -z ${DRACK_IP_LIB_DIR:-} ]]; then
		DRACK_IP_LIB_DIR=$(ls -d /usr/lib/*/ip/link_drack.so /usr/lib/ip/link_drack.so 2>/dev/null | head -n 1)
		DRACK_IP_LIB_DIR=$(dirname "${DRACK_IP_LIB_DIR:-/usr/lib/ip/link_drack.so}")
	fi
	DRACK_POOL_BIN=${DRACK_POOL_BIN:-$DRACK_TESTDIR}
	DRACK_ADDR_SH=$DRACK_TESTDIR/addr.sh
fi
DRACK_TEST=${DRACK_TEST:-$(basename "$0" .sh)}
DRACK_POOL_DEV=/dev/drack_pool0
# DRACK_NET4, DRACK_NET6, ip4, ip6, host_mac: rack0's addressing, one copy
# shared with the rack launcher
# shellcheck source=../../tools/rack/addr.sh
. "$DRACK_ADDR_SH"
DRACK_LOGDIR=${DRACK_LOGDIR:-/tmp/drack-test/$DRACK_TEST}
mkdir -p "$DRACK_LOGDIR" 2>/dev/null

DRACK_HOSTS=()		# netns names of live drack hosts
DRACK_NETNS=()		# every netns we created
DRACK_PIDS=()		# background processes we started
DRACK_FMD_PID=
DRACK_LOADED=0
DRACK_CLEANED=0
BG_PID=

# ---- KTAP ---------------------------------------------------------------

KTAP_PLAN=0 KTAP_N=0 KTAP_PASS=0 KTAP_FAIL=0 KTAP_SKIP=0
# kselftest's exit codes (kselftest.h, kselftest/ktap_helpers.sh)
KSFT_PASS=0 KSFT_FAIL=1 KSFT_SKIP=4

# Why this test cannot run here (empty: it can): root, and a module to load.
drack_cannot_run() {
	# A module named by DRACK_KO but absent fails, in drack_load.
	if ((EUID != 0)); then
		echo "needs root"
	elif [[ -z $DRACK_KO ]] && ! modinfo drack >/dev/null 2>&1; then
		if [[ -n $DRACK_TOP ]]; then
			echo "no $DRACK_TOP/kmod/drack.ko (make) and no drack module installed"
		else
			echo "no drack module installed (modinfo drack); DRACK_KO=PATH names one"
		fi
	fi
}

# ktap_skip_all WHY: the whole test skipped (KTAP "1..0 # SKIP"), exit 4
ktap_skip_all() {
	echo "1..0 # SKIP $*"
	DRACK_CLEANED=1		# nothing of ours to clean up
	exit $KSFT_SKIP
}

ktap_plan() {
	local why
	KTAP_PLAN=$1
	echo "KTAP version 1"
	# Only for the scripts beside this file, not tests/multi's (their VMs
	# load a module of their own).
	if [[ $(cd -P "$(dirname "$0")" && pwd) != "$DRACK_TESTDIR" ]]; then
		echo "1..$1"
		return
	fi
	why=$(drack_cannot_run)
	[[ -z $why ]] || ktap_skip_all "$DRACK_TEST: $why"
	echo "1..$1"
	if [[ -n $DRACK_KO ]]; then
		diag "module: $DRACK_KO"
	else
		diag "module: modprobe drack ($(modinfo -n drack 2>/dev/null))"
	fi
}

diag() {
	local line
	while IFS= read -r line; do echo "# $line"; done <<<"$*"
}

ktap_ok() {
	KTAP_N=$((KTAP_N + 1)) KTAP_PASS=$((KTAP_PASS + 1))
	echo "ok $KTAP_N $1"
}

ktap_fail() {
	local name=$1; shift
	KTAP_N=$((KTAP_N + 1)) KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_N $name"
	local why
	for why; do diag "$why"; done
	return 0
}

ktap_skip() {
	KTAP_N=$((KTAP_N + 1)) KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_N $1 # SKIP ${2:-}"
}

# ktap_result NAME RC WHY: ok if RC is 0
ktap_result() {
	if (($2 == 0)); then ktap_ok "$1"; else ktap_fail "$1" "${3:-failed}"; fi
}

# ktap_check NAME CMD...: run CMD, ok if it succeeds; its output is
# shown (as diagnostics) only when it fails. A NAME listed in
# DRACK_SKIP_CHECKS is skipped (tests/guest-612.sh: checks of drack's own
# logic that the 6.1 guest ran already).
ktap_check() {
	local name=$1 out=$DRACK_LOGDIR/check.out rc=0 t0=$SECONDS; shift
	if [[ " ${DRACK_SKIP_CHECKS:-} " == *" $name "* ]]; then
		ktap_skip "$name" "in DRACK_SKIP_CHECKS"
		: >"$out"	# no earlier output for a caller's diag
		return 0
	fi
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	if ((rc == 0)); then
		ktap_ok "$name"
	else
		ktap_fail "$name" "$(tail -n 25 "$out")" "(rc $rc)"
	fi
	# where the suite's time goes (make check's 40-minute budget)
	((SECONDS - t0 < 10)) || diag "$name took $((SECONDS - t0)) s"
	return $rc
}

# Report what was planned but never run, then exit with the verdict.
ktap_finish() {
	while ((KTAP_N < KTAP_PLAN)); do
		ktap_fail "not_run_$((KTAP_N + 1))" "test aborted before this point"
	done
	diag "$DRACK_TEST: $KTAP_PASS passed, $KTAP_FAIL failed, $KTAP_SKIP skipped"
	# the totals line of kselftest.h's ksft_print_cnts()
	diag "Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
	if ((KTAP_FAIL || KTAP_N != KTAP_PLAN)); then
		exit $KSFT_FAIL
	elif ((KTAP_PASS == 0 && KTAP_SKIP > 0)); then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

log() { diag "$*"; }

# ---- small helpers --------------------------------------------------------

# in NS CMD...: run in a host's netns
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# wait_for SECS CMD...: poll CMD every 0.1 s until it succeeds
wait_for() {
	local deadline=$((SECONDS + $1)); shift
	while ! "$@" >/dev/null 2>&1; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

# bg NAME CMD...: start CMD (a program, not a shell function, so that
# killing the pid stops it) in the background, log in $DRACK_LOGDIR/NAME.log
bg() {
	local name=$1; shift
	"$@" >"$DRACK_LOGDIR/$name.log" 2>&1 </dev/null &
	DRACK_PIDS+=($!)
	BG_PID=$!
}

kill_pid() {
	local p=$1 i
	kill -0 "$p" 2>/dev/null || { wait "$p" 2>/dev/null; return 0; }
	kill "$p" 2>/dev/null
	for i in $(seq 30); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}

kmsg() { { echo "drack-test: $*" >/dev/kmsg; } 2>/dev/null || true; }

# ---- module, fmd, hosts -----------------------------------------------------

drack_loaded() { grep -q '^drack ' /proc/modules; }

# Leftovers of an earlier test that died: our netns names, the module.
drack_reset() {
	local ns
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $ns in h[0-9]* | v[0-9]* | x[0-9]*)
			ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
			ip -n "$ns" link del rack0 2>/dev/null
			ip netns del "$ns" ;;
		esac
	done
	if drack_loaded; then
		log "removing a drack module left loaded"
		wait_for 5 rmmod drack || log "cannot rmmod a leftover drack"
	fi
	return 0
}

drack_load() {
	if [[ -z $DRACK_KO ]]; then
		drack_reset
		modprobe drack "$@" || { echo "modprobe drack $* failed"; return 1; }
	else
		[[ -e $DRACK_KO ]] || { echo "no $DRACK_KO: run make first"; return 1; }
		drack_reset
		insmod "$DRACK_KO" "$@" || { echo "insmod $DRACK_KO $* failed"; return 1; }
	fi
	DRACK_LOADED=1
	wait_for 5 test -c "$DRACK_POOL_DEV" || { echo "$DRACK_POOL_DEV did not appear"; return 1; }
}

drack_start_fmd() {
	[[ -x $DRACK_FMD ]] || { echo "no $DRACK_FMD: run make tools"; return 1; }
	# shellcheck disable=SC2086 # DRACK_FMD_ARGS: words, e.g. "-c FILE"
	"$DRACK_FMD" -v ${DRACK_FMD_ARGS:-} >/tmp/fmd.log 2>&1 </dev/null &
	DRACK_FMD_PID=$!
	sleep 0.3
	kill -0 "$DRACK_FMD_PID" 2>/dev/null || {
		echo "drack-fmd exited:"; cat /tmp/fmd.log; DRACK_FMD_PID=; return 1; }
}

drack_netns_add() {
	ip netns add "$1" || return 1
	DRACK_NETNS+=("$1")
	ip -n "$1" link set lo up
	# No DAD delays; IPv6 addresses survive a link flap (as IPv4 ones do).
	in_ns "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.keep_addr_on_down=1 net.ipv6.conf.default.keep_addr_on_down=1
}

# drack_host_add I [MTU]: netns hI with rack0 (must be created in id order)
drack_host_add() {
	local i=$1 mtu=${2:-} ns=h$1 mac
	drack_netns_add "$ns" || return 1
	ip link add rack0 netns "$ns" type drack || { echo "ip link add rack0 netns $ns type drack failed"; return 1; }
	DRACK_HOSTS+=("$ns")
	mac=$(in_ns "$ns" cat /sys/class/net/rack0/address)
	[[ $mac == "$(host_mac "$i")" ]] || { echo "$ns: rack0 MAC $mac, expected $(host_mac "$i") (host id $i)"; return 1; }
	if [[ -n $mtu ]]; then ip -n "$ns" link set rack0 mtu "$mtu" || return 1; fi
	ip -n "$ns" addr add "$(ip4 "$i")/24" dev rack0 || return 1
	ip -n "$ns" addr add "$(ip6 "$i")/64" dev rack0 nodad || return 1
	ip -n "$ns" link set rack0 up || return 1
}

# carrier NS: 1 if rack0 in NS has carrier (and is up), else 0
carrier() {
	local flags
	flags=$(ip -n "$1" -o link show dev "${2:-rack0}" 2>/dev/null) || { echo 0; return; }
	[[ $flags == *LOWER_UP* ]] && echo 1 || echo 0
}
has_carrier() { [[ $(carrier "$@") == 1 ]]; }
no_carrier() { [[ $(carrier "$@") == 0 ]]; }

ping_once() { in_ns "$1" timeout 5 ping -c 1 -W 1 -q "$2"; }

drack_hosts() {
	local n=$1 mtu=${2:-} i
	for ((i = 0; i < n; i++)); do
		drack_host_add "$i" "$mtu" || return 1
	done
	for ((i = 0; i < n; i++)); do
		wait_for 10 has_carrier "h$i" || { echo "h$i: no carrier after 10 s"; return 1; }
	done
	# Warm up: ARP, and the first Sections from the fabric manager.
	for ((i = 1; i < n; i++)); do
		wait_for 20 ping_once "h$i" "$(ip4 0)" ||
			{ echo "h$i cannot ping h0 within 20 s"; drack_dump_stats; return 1; }
	done
}

# drack_setup N [MTU] [insmod params...]: one KTAP result "setup"
drack_setup() {
	local n=$1 mtu=${2:-} out=$DRACK_LOGDIR/setup.log rc=0
	shift; (($#)) && shift
	{ drack_load "$@" && drack_start_fmd && drack_hosts "$n" "$mtu"; } >"$out" 2>&1 </dev/null || rc=$?
	if ((rc == 0)); then
		ktap_ok setup
	else
		ktap_fail setup "$(tail -n 30 "$out")" "fmd log:" "$(tail -n 10 /tmp/fmd.log 2>/dev/null)"
	fi
	return $rc
}

# ---- counters ---------------------------------------------------------------

# drack_stat NS NAME [DEV]: print one ethtool -S counter
# priv_flag NS FLAG on|off: set one private flag of rack0 in NS. ethtool
# 6.1 refuses a lone flag past the second ("cannot modify bits past kernel
# bitset size"), so every flag is given, the others as they are.
priv_flag() {
	local ns=$1 flag=$2 val=$3 args=() f v cur
	cur=$(in_ns "$ns" ethtool --show-priv-flags rack0 |
		sed -n 's/^\([a-z_-]*\) *: *\(on\|off\)$/\1 \2/p') || return 1
	while read -r f v; do
		[[ -n $f ]] || continue
		[[ $f == "$flag" ]] && v=$val
		args+=("$f" "$v")
	done <<<"$cur"
	in_ns "$ns" ethtool --set-priv-flags rack0 "${args[@]}"
}

# Counters are read with one ethtool and matched in bash: under TCG every
# program started costs 30-50 ms, and the suite reads thousands of them.
# stats_raw NS [DEV]: ethtool -S as it prints
stats_raw() { in_ns "$1" ethtool -S "${2:-rack0}" 2>/dev/null; }

# stat_in TEXT NAME: set STAT to counter NAME of ethtool -S output TEXT
# (status 1, STAT empty, if TEXT has no such counter)
stat_in() {
	local re=$'(^|\n) *'"$2"$': ([0-9]+)(\n|$)'
	STAT=
	[[ $1 =~ $re ]] || return 1
	STAT=${BASH_REMATCH[2]}
}

drack_stat() {
	local s
	s=$(stats_raw "$1" "${3:-}") && stat_in "$s" "$2" && echo "$STAT"
}

# drack_stats NS [DEV]: all counters as "name value" lines
drack_stats() {
	in_ns "$1" ethtool -S "${2:-rack0}" 2>/dev/null | awk 'NF == 2 && $2 ~ /^[0-9]+$/ { sub(/:$/, "", $1); print $1, $2 }'
}

drack_dump_stats() {
	local ns
	for ns in "${DRACK_HOSTS[@]}"; do
		echo "$ns: $(drack_stats "$ns" | grep -vE '^peer[0-9]+_' | grep -v ' 0$' | tr '\n' ' ')"
	done
}

# Sum of inflight Buffers over every class of every host.
drack_inflight() {
	local ns sum=0 v
	for ns in "${DRACK_HOSTS[@]}"; do
		for v in $(drack_stats "$ns" | awk '$1 ~ /^buf[0-9]+k_inflight$/ { print $2 }'); do
			sum=$((sum + v))
		done
	done
	echo "$sum"
}

drack_settled() { [[ $(drack_inflight) == 0 ]]; }

drack_wait_settled() { wait_for "${1:-10}" drack_settled; }

# Every host: for each Buffer class, inflight == 0 and free == total, in
# one ethtool snapshot per host (background ND/MLD traffic moves Buffers
# between separate reads; owners take returns back lazily, within 100 ms).
drack_buffers_home_once() { # [NS...], default every host
	local ns c total free inflight stats hosts=("$@")
	((${#hosts[@]})) || hosts=("${DRACK_HOSTS[@]}")
	for ns in "${hosts[@]}"; do
		stats=$(stats_raw "$ns")
		for c in 2k 64k; do
			stat_in "$stats" "buf${c}_total"; total=$STAT
			stat_in "$stats" "buf${c}_free"; free=$STAT
			stat_in "$stats" "buf${c}_inflight"; inflight=$STAT
			if [[ -z $total ]]; then
				echo "$ns: no buf${c}_total counter"
				return 1
			fi
			if [[ $inflight != 0 || $free != "$total" ]]; then
				echo "$ns: buf$c total=$total free=$free inflight=$inflight"
				return 1
			fi
		done
	done
}

drack_check_buffers_home() { # [NS...]
	wait_for 10 drack_buffers_home_once "$@" && return 0
	drack_buffers_home_once "$@"
	drack_dump_stats
	return 1
}

# Counter snapshots: snap NAME NS; delta NAME NS COUNTER (against now);
# snap_delta OLD NEW NS COUNTER (between two snapshots, no ethtool run)
declare -gA DRACK_SNAP=()
snap() { DRACK_SNAP[$1.$2]=$(stats_raw "$2"); }
delta() {
	snap .now "$2" || { echo "?"; return 1; }
	snap_delta "$1" .now "$2" "$3"
}
snap_delta() {
	local now
	stat_in "${DRACK_SNAP[$2.$3]:-}" "$4" || { echo "?"; return 1; }
	now=$STAT
	stat_in "${DRACK_SNAP[$1.$3]:-}" "$4" || STAT=0
	echo $((now - STAT))
}

# ---- traffic ----------------------------------------------------------------

# ping_ok NS DST [ping args...]: every echo answered
ping_ok() {
	local ns=$1 dst=$2 out; shift 2
	# 3 echoes, not 5: the suite pings about 150 times. Not closer than
	# 0.2 s: after the last echo ping waits max(2 x the slowest RTT, the
	# interval) for the replies still out, then counts them lost.
	out=$(in_ns "$ns" timeout 30 ping -c 3 -i 0.2 -W 2 "$@" "$dst" 2>&1)
	local rc=$?
	if ((rc != 0)) || [[ $out != *' 0% packet loss'* ]]; then
		echo "$ns: ping $* $dst failed (rc $rc):"
		tail -n 4 <<<"$out"
		return 1
	fi
}

# iperf_server NS PORT: an iperf3 server in NS, listening when this returns
# (an hour at most: a test on the debug kernel outlived 600 s)
iperf_server() {
	local ns=$1 port=$2
	bg "iperf3-s-$ns-$port" ip netns exec "$ns" timeout 3600 iperf3 -s -p "$port"
	wait_for 10 eval "in_ns $ns ss -Hltn 'sport = :$port' | grep -q LISTEN" ||
		{ echo "iperf3 server in $ns:$port not listening"; return 1; }
}

# iperf_run NS DST PORT OUT [iperf3 args...]: client with -J into OUT
iperf_run() {
	local ns=$1 dst=$2 port=$3 out=$4; shift 4
	in_ns "$ns" timeout 60 iperf3 -c "$dst" -p "$port" -J --connect-timeout 5000 "$@" >"$out" 2>"$out.err"
}

# iperf_result FILE [MIN_MBPS] [MAX_LOSS%]: print a summary; fail if the
# run failed, moved less than MIN_MBPS, or (UDP) lost more than MAX_LOSS%.
iperf_result() {
	python3 - "$@" <<'EOF'
import json, sys
path = sys.argv[1]
min_mbps = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
max_loss = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
try:
    d = json.load(open(path))
except Exception as e:
    err = ""
    try:
        err = open(path + ".err").read()[-300:]
    except OSError:
        pass
    print("iperf3 output is not JSON (%s): %s %s" % (e, open(path).read()[-300:], err))
    sys.exit(1)
if d.get("error"):
    print("iperf3 error: %s" % d["error"])
    sys.exit(1)
try:
    warn = open(path + ".err").read().strip()
    if warn:
        print("iperf3 stderr: %s" % warn[-300:])
except OSError:
    pass
end = d.get("end", {})
udp = d.get("start", {}).get("test_start", {}).get("protocol") == "UDP"
if not udp:                        # TCP
    bps = end["sum_received"]["bits_per_second"]
    retr = end.get("sum_sent", {}).get("retransmits", 0)
    print("%.1f Mbit/s received, %s retransmits" % (bps / 1e6, retr))
    ok = bps > 0 and bps / 1e6 >= min_mbps
else:                              # UDP
    s = end.get("sum", {})
    bps = s.get("bits_per_second", 0)
    loss = s.get("lost_percent", 100.0)
    print("%.1f Mbit/s, %d/%d datagrams lost (%.2f%%)" %
          (bps / 1e6, s.get("lost_packets", -1), s.get("packets", -1), loss))
    ok = s.get("packets", 0) > 0 and loss <= max_loss and bps / 1e6 >= min_mbps
sys.exit(0 if ok else 1)
EOF
}

# iperf_check NAME NS DST PORT MIN_MBPS MAX_LOSS [iperf3 args]: one KTAP result
iperf_check() {
	local name=$1 ns=$2 dst=$3 port=$4 min=$5 loss=$6 out rc=0 res; shift 6
	out=$DRACK_LOGDIR/$name.json
	iperf_run "$ns" "$dst" "$port" "$out" "$@" || rc=$?
	res=$(iperf_result "$out" "$min" "$loss") || { ((rc)) || rc=1; }
	if ((rc == 0)); then
		ktap_ok "$name"
		diag "$name: $res"
	else
		ktap_fail "$name" "iperf3 $* to $dst from $ns: rc $rc: $res" "$(drack_dump_stats)"
	fi
	return $rc
}

# ---- teardown ---------------------------------------------------------------

drack_kill_bg() {
	local p
	for p in "${DRACK_PIDS[@]}"; do kill_pid "$p"; done
	DRACK_PIDS=()
}

# drack_del_host NS: delete its rack0 (the netns stays)
drack_del_host() {
	local ns=$1 h keep=()
	ip -n "$ns" link del rack0 || return 1
	for h in "${DRACK_HOSTS[@]}"; do [[ $h == "$ns" ]] || keep+=("$h"); done
	DRACK_HOSTS=("${keep[@]}")
}

drack_dmesg_since_begin() {
	# No marker: the ring buffer wrapped past it, all that is left is later.
	dmesg 2>/dev/null | awk -v m="drack-test: begin $DRACK_TEST" 'index($0, m) { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }'
}

# Not `dmesg | grep -q`: grep leaves at the first match, and a long log
# then kills dmesg with SIGPIPE, which pipefail reports as a failure.
drack_dmesg_has() {
	[[ $(drack_dmesg_since_begin) == *"$1"* ]]
}

drack_dmesg_check() {
	local bad='(^|[] ])(BUG: |kernel BUG at|WARNING:|Oops|refcount_t: |list_(add|del) corruption|general protection|UBSAN:|KASAN:|Kernel panic|Call Trace)'
	local log hits
	log=$(drack_dmesg_since_begin)
	hits=$( { grep -aE "$bad|soft lockup|hung_task|rcu_.* stall" <<<"$log"; grep -aiE 'drack.*leak' <<<"$log"; } | head -n 20)
	[[ -z $hits ]] || { echo "kernel log since the test began:"; echo "$hits"; return 1; }
}

# Stop everything; returns non-zero when something would not go away.
drack_cleanup() {
	local ns rc=0 p
	DRACK_CLEANED=1
	drack_kill_bg
	for ns in "${DRACK_NETNS[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill_pid "$p"; done
	done
	for ns in "${DRACK_HOSTS[@]}"; do
		ip -n "$ns" link del rack0 2>/dev/null || { echo "$ns: cannot delete rack0"; rc=1; }
	done
	DRACK_HOSTS=()
	for ns in "${DRACK_NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null || { echo "cannot delete netns $ns"; rc=1; }
	done
	DRACK_NETNS=()
	if [[ -n $DRACK_FMD_PID ]]; then
		kill "$DRACK_FMD_PID" 2>/dev/null
		wait_for 5 eval "! kill -0 $DRACK_FMD_PID" || { echo "drack-fmd does not exit on SIGTERM"; rc=1; }
		kill_pid "$DRACK_FMD_PID"
		DRACK_FMD_PID=
	fi
	if ((DRACK_LOADED)) || drack_loaded; then
		if ! wait_for 10 rmmod drack; then
			echo "rmmod drack fails: $(rmmod drack 2>&1)"
			grep '^drack ' /proc/modules
			rc=1
		fi
		DRACK_LOADED=0
	fi
	if drack_loaded || lsmod | grep -qw '^drack'; then echo "drack still loaded"; rc=1; fi
	if [[ -e $DRACK_POOL_DEV ]]; then echo "$DRACK_POOL_DEV still there after rmmod"; rc=1; fi
	return $rc
}

# Standard ending: buffers home, teardown, dmesg (3 KTAP results).
drack_finish() {
	if ((${#DRACK_HOSTS[@]})); then
		ktap_check buffers_home drack_check_buffers_home
	else
		ktap_fail buffers_home "no hosts"
	fi
	ktap_check teardown drack_cleanup
	ktap_check dmesg_clean drack_dmesg_check
	ktap_finish
}

# If the script dies early, still clean up so the next test starts fresh.
drack_exit_trap() {
	local rc=$?
	if ((!DRACK_CLEANED)); then	# died in a check: say where and why
		echo "# aborted (rc $rc) after check $KTAP_N; the running check said:"
		tail -n 15 "$DRACK_LOGDIR/check.out" 2>/dev/null | sed 's/^/#   /'
		drack_cleanup >/dev/null 2>&1
	fi
	exit $rc
}
trap drack_exit_trap EXIT
kmsg "begin $DRACK_TEST"
trap 'exit 130' INT TERM
