#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# debug-guest.sh [--timeout SECS] [TEST...]: the guest side of
# tests/debug-kernel.sh (`make check-debug`), run as root in a guest booted
# on the debug kernel, DRACK_KO naming the drack.ko built for it.
#
# One result "boot_clean" (no kernel report before any test, lockdep on),
# then tests/guest-suite.sh (KTAP results 2..N+1), then "kmemleak":
# kmemleak's suspects after the suite must be none.
#
# What is filtered, and why: only the suspects kmemleak already reports
# before any test ran (the debug kernel's own boot-time allocations; drack
# is not loaded yet, so none can be its). They are written to
# /hostout/kmemleak-boot.txt and then cleared ("echo clear": kmemleak
# stops reporting them). Every suspect found after the suite fails, drack's
# or not: a kernel leak the suite triggers is worth a look too.
#
# kmemleak prints each suspect's allocation backtrace with symbols resolved
# when it is read, and every test unloads drack: so drack.ko is loaded once
# more (it lands where it was, the module area's base is random per boot,
# not per load) while the report is read, and frames in drack show as
# "[drack]" rather than bare addresses.
set -u
cd "$(dirname "$0")/../.." || exit 2

per_test=1800
if [[ ${1:-} == --timeout ]]; then
	per_test=$2
	shift 2
fi
kml=/sys/kernel/debug/kmemleak
out=${DRACK_VM_OUT:-/tmp}

if [[ ! -w $kml ]]; then
	echo "# no $kml: not the debug kernel, or kmemleak disabled itself (dmesg):"
	dmesg | grep -i kmemleak | head -n 5 | sed 's/^/# /'
	exit 1
fi
# Debug options in force, for the log.
echo "# debug kernel $(uname -r): $(zcat /proc/config.gz 2>/dev/null |
	grep -oE '^CONFIG_(KASAN|PROVE_LOCKING|PROVE_RCU|DEBUG_OBJECTS|UBSAN|DEBUG_KMEMLEAK|DEBUG_ATOMIC_SLEEP)=y' |
	sed 's/^CONFIG_//; s/=y$//' | tr '\n' ' ')"

n=$#
((n)) || n=$(bash tests/guest-suite.sh --list | wc -l)
echo "1..$((n + 2))"

# A report the kernel made while booting is not drack's (drack is not
# loaded yet), but the first KASAN or lockdep report turns lock debugging
# off for the rest of the boot: the run would check less than it says.
bad='(^|[] ])(BUG: |kernel BUG at|WARNING:|Oops|general protection|UBSAN:|KASAN:)'
boot=$(dmesg | grep -aE "$bad" | grep -v 'data leaks possible' | head -n 3)
locks=$(awk '/debug_locks:/ {print $2}' /proc/lockdep_stats 2>/dev/null)
if [[ -z $boot && $locks == 1 ]]; then
	echo "ok 1 boot_clean"
else
	echo "not ok 1 boot_clean"
	echo "# before any test, not drack's: lockdep ${locks:+debug_locks=}${locks:-absent}; the kernel's reports:"
	sed 's/^/#   /' <<<"$boot"
fi

# Boot-time suspects: objects must be 5 s old to be reported, scan twice.
sleep 5
echo scan >"$kml"
echo scan >"$kml"
cat "$kml" >"$out/kmemleak-boot.txt"
echo "# kmemleak before the suite: $(grep -c '^unreferenced object' "$out/kmemleak-boot.txt") boot-time suspect(s), cleared (kmemleak-boot.txt)"
echo clear >"$kml"

bash tests/guest-suite.sh --no-header --first 2 --timeout "$per_test" "$@"
rc=$?
[[ -n $boot || $locks != 1 ]] && rc=1

# The report, after the last test unloaded drack. Per kmemleak's docs,
# scan twice with a pause: an object only referenced from a register or
# a stack at the first scan is not reported twice.
lsmod | grep -q '^drack ' && rmmod drack
sleep 6
echo scan >"$kml"
sleep 6
echo scan >"$kml"
reload=0
[[ -n ${DRACK_KO:-} && -e $DRACK_KO ]] && insmod "$DRACK_KO" 2>/dev/null && reload=1
cat "$kml" >"$out/kmemleak.txt"
((reload)) && rmmod drack
leaks=$(grep -c '^unreferenced object' "$out/kmemleak.txt")
if ((leaks == 0)); then
	echo "ok $((n + 2)) kmemleak"
else
	echo "not ok $((n + 2)) kmemleak"
	echo "# $leaks suspect(s) after the suite (kmemleak.txt); the first ones:"
	head -n 60 "$out/kmemleak.txt" | sed 's/^/# /'
	rc=1
fi
exit "$rc"
