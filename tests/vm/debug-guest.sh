#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# debug-guest.sh [--timeout SECS] [TEST...]: the guest side of
# tests/debug-kernel.sh (`make check-debug`), run as root in a guest booted
# on the debug kernel, DRACK_KO naming the drack.ko built for it.
#
# Runs tests/guest-suite.sh (KTAP results 1..N), then one more result,
# "kmemleak": kmemleak's suspects after the suite must be none.
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

# Boot-time suspects: objects must be 5 s old to be reported, scan twice.
sleep 5
echo scan >"$kml"
echo scan >"$kml"
cat "$kml" >"$out/kmemleak-boot.txt"
echo "# kmemleak before the suite: $(grep -c '^unreferenced object' "$out/kmemleak-boot.txt") boot-time suspect(s), cleared (kmemleak-boot.txt)"
echo clear >"$kml"

n=$#
((n)) || n=$(bash tests/guest-suite.sh --list | wc -l)
echo "1..$((n + 1))"
bash tests/guest-suite.sh --no-header --timeout "$per_test" "$@"
rc=$?

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
	echo "ok $((n + 1)) kmemleak"
else
	echo "not ok $((n + 1)) kmemleak"
	echo "# $leaks suspect(s) after the suite (kmemleak.txt); the first ones:"
	head -n 60 "$out/kmemleak.txt" | sed 's/^/# /'
	rc=1
fi
exit "$rc"
