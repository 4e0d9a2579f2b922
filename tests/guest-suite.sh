#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-suite.sh: run every tests/net/*.sh, in order, inside one guest
# (tools/rack/run-guest.sh -- bash tests/guest-suite.sh). Each test script
# loads the module, sets up and tears down by itself; its KTAP is printed
# as an indented subtest followed by one result line for the script.
#
#   guest-suite.sh [--first N] [--no-header] [--timeout SECS] [TEST...]
#   guest-suite.sh --list
#
# --first N numbers the result lines from N and --no-header omits the
# KTAP header and plan (tests/run-all.sh prints them). --timeout defaults
# to the kselftest runner's, tests/settings. Exits non-zero if any test
# failed; a test that skips itself (exit 4, kselftest's skip: no root, no
# module) fails here, as every test must run in the guest.
set -u
cd "$(dirname "$0")/.." || exit 2

ORDER=(basic four_hosts mtu apps link_events corrupt)

all_tests() {
	local t seen=" ${ORDER[*]} " f
	for t in "${ORDER[@]}"; do [[ -e tests/net/$t.sh ]] && echo "$t"; done
	for f in tests/net/*.sh; do
		t=$(basename "$f" .sh)
		[[ $t == lib || $seen == *" $t "* ]] || echo "$t"
	done
}

per_test=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' tests/settings 2>/dev/null)
first=1 header=1 per_test=${per_test:-600} tests=()
while (($#)); do
	case $1 in
	--list) all_tests; exit 0 ;;
	--first) first=$2; shift ;;
	--no-header) header=0 ;;
	--timeout) per_test=$2; shift ;;
	-*) echo "usage: $0 [--first N] [--no-header] [--timeout SECS] [TEST...] | --list" >&2; exit 2 ;;
	*) tests+=("$(basename "$1" .sh)") ;;
	esac
	shift
done
((${#tests[@]})) || mapfile -t tests <<<"$(all_tests)"

if ((header)); then
	echo "KTAP version 1"
	echo "1..${#tests[@]}"
fi
echo "# guest $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) MB"

# A kernel that locked up or oopsed runs nothing well any more.
kernel_broken() {
	dmesg 2>/dev/null | grep -aE 'soft lockup|hard LOCKUP|rcu_.* stall|Oops|Kernel panic|kernel BUG at' | head -n 3
}

n=$first fail=0 suite_t0=$SECONDS broken=
for t in "${tests[@]}"; do
	t0=$SECONDS
	if [[ -n $broken ]]; then
		echo "not ok $n $t"
		echo "# not run: the kernel is broken: $broken"
		n=$((n + 1)) fail=1
		continue
	fi
	echo "    # Subtest: $t"
	timeout -k 15 "$per_test" bash "tests/net/$t.sh" 2>&1 | sed -u 's/^/    /'
	rc=${PIPESTATUS[0]}
	((rc == 124)) && echo "# $t: killed after ${per_test} s"
	((rc == 4)) && echo "# $t: skipped itself (rc 4), see above"
	echo "# $t: rc $rc, $((SECONDS - t0)) s"
	if ((rc == 0)); then
		echo "ok $n $t"
	else
		echo "not ok $n $t"
		fail=1
	fi
	n=$((n + 1))
	broken=$(kernel_broken | tr '\n' ' ')
done
echo "# guest suite: $((SECONDS - suite_t0)) s"
exit $fail
