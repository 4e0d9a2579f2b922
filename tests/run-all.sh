#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-all.sh: what `make check` runs. Installs the dependencies, builds
# everything, compile-checks against the 6.12 headers, runs the unit tests
# (tests/unit, user space), then runs the whole netns suite
# (tests/guest-suite.sh) in QEMU guests, one per two host CPUs. Prints
# KTAP, ends with exactly one `N passed, N failed` line and exits
# non-zero on any failure.
#
# After them (or beside, with more CPUs), a few of those tests again in a
# guest running Debian's 6.12 kernel (tests/guest-612.sh); then the
# multi-VM tests (tests/multi/*.sh, several kernels on one shared pool),
# each on the host, each one KTAP subtest.
#
# Env: DRACK_KVER (make check KVER=...: build for and boot that installed
# kernel instead of the newest 6.1; then the 6.12 smoke step is skipped),
# DRACK_GUEST_TIMEOUT (3000 s), DRACK_TESTS (a subset, e.g. "basic mtu";
# then no multi-VM test unless DRACK_MULTI names some), DRACK_MULTI (the
# multi-VM tests, e.g. "rack4"; default all, or none with DRACK_TESTS),
# DRACK_612_TESTS (what the 6.12 guest runs; default its own list, and
# with DRACK_TESTS nothing), DRACK_LANES (guests for the suite at once;
# one per two host CPUs).
set -u
cd "$(dirname "$0")/.." || exit 2

SUMMARY=tests/vm/ktap-summary.sh
RUN_612=0
GUEST_TIMEOUT=${DRACK_GUEST_TIMEOUT:-3000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/drack-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

prefixed() { sed -u 's/^/# /'; }

N=0
result() { # RC NAME [WHY]
	N=$((N + 1))
	if (($1 == 0)); then
		echo "ok $N $2"
	else
		echo "not ok $N $2"
		[[ -z ${3:-} ]] || echo "# $3"
	fi
}

# step NAME CMD...: CMD's output as diagnostics, one result
step() {
	local name=$1 rc t0=$SECONDS; shift
	echo "# --- $name: $*"
	"$@" 2>&1 </dev/null | prefixed
	rc=${PIPESTATUS[0]}
	echo "# $name: rc $rc, $((SECONDS - t0)) s"
	result "$rc" "$name" "$* failed (rc $rc)"
	return "$rc"
}

# lanes N TEST...: the tests split into N lists (one line each, in the
# order given) of about equal time: the longest first, each onto the
# lane with the least so far. Times: tests/suite-times (seconds per
# script in a serial run; a test not listed counts 60).
lanes() {
	local n=$1; shift
	awk -v n="$n" -v list="$*" '
		FNR == NR { if ($1 !~ /^#/) t[$1] = $2; next }
		END {
			m = split(list, name, " ")
			for (i = 1; i <= m; i++) { d[i] = (name[i] in t) ? t[name[i]] : 60; done[i] = 0 }
			for (k = 1; k <= m; k++) {
				b = 0
				for (i = 1; i <= m; i++)
					if (!done[i] && (!b || d[i] > d[b])) b = i
				done[b] = 1
				l = 0
				for (j = 1; j < n; j++) if (sum[j] < sum[l]) l = j
				sum[l] += d[b]; in_lane[b] = l
			}
			for (i = 1; i <= m; i++) lane[in_lane[i]] = lane[in_lane[i]] " " name[i]
			for (j = 0; j < n; j++) print substr(lane[j], 2)
		}' "$( [[ -e tests/suite-times ]] && echo tests/suite-times || echo /dev/null)" /dev/null
}

# guest_lanes FIRST TEST...: the netns suite in DRACK_LANES guests at once
# (default: one per two host CPUs, as each guest has two vCPUs; on a
# 2-CPU host two guests ran each script 1.8-1.9 times slower, for 8%
# less time in all), each with its share of the tests, and with RUN_612=1
# tests/guest-612.sh (a guest of its own, on 6.12) in the lane it fits,
# after that lane's suite. Results numbered from FIRST: the first guest's
# as they come, the others' after it, then guest_vm for all of them
# (booted, finished in time, clean kernel logs), then guest_612's.
guest_lanes() {
	local first=$1 lanes_n=${DRACK_LANES:-$(($(nproc) / 2))} l i g rc t head why='' lane612=-1
	shift
	local all=("$@") list=() pids=()
	((lanes_n >= 1)) || lanes_n=1
	((lanes_n <= 4)) || lanes_n=4
	((RUN_612)) && all+=(@guest_612)
	((lanes_n <= ${#all[@]})) || lanes_n=${#all[@]}
	mapfile -t list < <(lanes "$lanes_n" "${all[@]}")
	for ((l = 0; l < lanes_n; l++)); do
		if [[ " ${list[l]} " == *" @guest_612 "* ]]; then
			lane612=$l
			list[l]=$(echo " ${list[l]} " | sed 's/ @guest_612 / /; s/^ *//; s/ *$//')
		fi
	done
	local n=$first
	for ((l = 0; l < lanes_n; l++)); do
		read -r -a g <<<"${list[l]}"
		{
			if ((${#g[@]})); then
				head="# --- guest $l: tools/rack/run-guest.sh --timeout $GUEST_TIMEOUT -- bash tests/guest-suite.sh ${g[*]}"
				rc=0
				if ((l == 0)); then	# as it comes
					echo "$head"
					tools/rack/run-guest.sh --timeout "$GUEST_TIMEOUT" --name drack-check -- \
						bash tests/guest-suite.sh --first "$n" --no-header "${g[@]}" \
						2>"$WORK/guest$l.err" </dev/null | tee "$WORK/guest$l.out"
					rc=${PIPESTATUS[0]}
				else
					echo "$head" >"$WORK/guest$l.head"
					tools/rack/run-guest.sh --timeout "$GUEST_TIMEOUT" --name "drack-check-$l" -- \
						bash tests/guest-suite.sh --first "$n" --no-header "${g[@]}" \
						>"$WORK/guest$l.out" 2>"$WORK/guest$l.err" </dev/null || rc=$?
				fi
				echo "$rc" >"$WORK/guest$l.rc"
			fi
			if ((l == lane612)); then
				local t0=$SECONDS
				rc=0
				# shellcheck disable=SC2086 # test names
				bash tests/guest-612.sh ${DRACK_612_TESTS:-} >"$WORK/612.out" 2>&1 </dev/null || rc=$?
				echo "$rc $((SECONDS - t0))" >"$WORK/612.rc"
			fi
		} &
		pids+=($!)
		n=$((n + ${#g[@]}))
	done
	wait "${pids[@]}"
	n=$first
	for ((l = 0; l < lanes_n; l++)); do
		read -r -a g <<<"${list[l]}"
		((${#g[@]})) || continue
		rc=$(<"$WORK/guest$l.rc")
		((l == 0)) || cat "$WORK/guest$l.head" "$WORK/guest$l.out"
		prefixed <"$WORK/guest$l.err"
		# Results the guest never printed (it hung, died or timed out).
		for ((i = 0; i < ${#g[@]}; i++)); do
			if ! grep -qE "^(not )?ok $((n + i)) " "$WORK/guest$l.out"; then
				echo "not ok $((n + i)) ${g[i]}"
				echo "# not run: the guest ended first (run-guest.sh rc $rc)"
			fi
		done
		n=$((n + ${#g[@]}))
		if ((rc == 124)) && grep -q 'kernel locked up' "$WORK/guest$l.err"; then
			why+="guest $l: its kernel locked up (see above); "
		elif ((rc == 124)); then
			why+="guest $l timed out after $GUEST_TIMEOUT s; "
		elif ((rc == 125)); then
			why+="guest $l died (run-guest.sh rc 125); "
		elif grep -q 'kernel log shows a problem' "$WORK/guest$l.err"; then
			why+="guest $l: its kernel log shows a problem (see above); "
		elif ! grep -q '^# guest suite: ' "$WORK/guest$l.out"; then
			why+="guest $l: the suite did not run to its end (rc $rc); "
		fi
	done
	N=$((n - 1))
	if [[ -n $why ]]; then
		result 1 guest_vm "${why%; }"
	else
		result 0 guest_vm
	fi
	((lane612 >= 0)) || return 0
	# As step() prints it, run beside the others.
	echo "# --- guest_612: bash tests/guest-612.sh"
	prefixed <"$WORK/612.out"
	read -r rc t <"$WORK/612.rc"
	echo "# guest_612: rc $rc, $t s"
	result "$rc" guest_612 "bash tests/guest-612.sh failed (rc $rc)"
}

main() {
	local t0=$SECONDS tests rc build=0 g
	if [[ -n ${DRACK_TESTS:-} ]]; then
		read -r -a tests <<<"$DRACK_TESTS"
	else
		mapfile -t tests <<<"$(bash tests/guest-suite.sh --list)"
	fi
	local multi=()
	if [[ -n ${DRACK_MULTI+set} ]]; then
		read -r -a multi <<<"$DRACK_MULTI"
	elif [[ -z ${DRACK_TESTS:-} ]]; then
		for g in tests/multi/*.sh; do
			[[ $g == */lib.sh ]] || multi+=("$(basename "$g" .sh)")
		done
	fi
	echo "KTAP version 1"
	echo "1..$((9 + ${#tests[@]} + ${#multi[@]}))"

	step install_deps bash tests/install-deps.sh
	local jobs; jobs=-j$(nproc)
	step build make "$jobs" ${DRACK_KVER:+KVER=$DRACK_KVER} || build=1
	step check_612 make "$jobs" check-612
	step layers bash tests/lint/layers.sh
	step netlink_spec bash tools/ynl/regen.sh --check
	step unit make -C tests/unit run

	local first=$((N + 1))
	if ((build)); then
		for g in "${tests[@]}"; do result 1 "$g" "not run: the build failed"; done
		result 1 guest_vm "not run: the build failed"
	else
		# A few guest tests again on Debian's 6.12 kernel (full runs only).
		RUN_612=1
		[[ -z ${DRACK_TESTS:-} && ${DRACK_KVER:-} != 6.12.* ]] || RUN_612=0
		[[ -z ${DRACK_612_TESTS:-} ]] || RUN_612=1
		# The kernel's own driver tests, for tests/net/drv_net.sh.
		bash tests/kernel-selftests.sh 2>&1 | prefixed
		guest_lanes "$first" "${tests[@]}"
	fi
	# The 6.12 guest ran beside the suite (RUN_612), or not at all.
	if ((build)); then
		result 1 guest_612 "not run: the build failed"
	elif ((RUN_612)); then
		:
	elif [[ -n ${DRACK_TESTS:-} ]]; then
		N=$((N + 1))
		echo "ok $N guest_612 # SKIP with DRACK_TESTS"
	elif [[ ${DRACK_KVER:-} == 6.12.* ]]; then
		N=$((N + 1))
		echo "ok $N guest_612 # SKIP the whole suite ran on $DRACK_KVER"
	fi
	for g in "${multi[@]}"; do
		if ((build)); then
			result 1 "$g" "not run: the build failed"
			continue
		fi
		echo "# --- multi-VM: tests/multi/$g.sh"
		local mt0=$SECONDS
		rc=0
		timeout 1200 bash "tests/multi/$g.sh" </dev/null 2>&1 | sed -u 's/^/    /' || rc=${PIPESTATUS[0]}
		echo "# $g: rc $rc, $((SECONDS - mt0)) s"
		result "$rc" "$g" "tests/multi/$g.sh failed (rc $rc)"
	done
	# The Debian packages installed (in a private mount namespace) run a
	# rack from /usr only (full runs only).
	if ((build)); then
		result 1 packages "not run: the build failed"
	elif [[ -n ${DRACK_TESTS:-} ]]; then
		N=$((N + 1))
		echo "ok $N packages # SKIP with DRACK_TESTS"
	else
		step packages bash tests/pkg/packages.sh || true
	fi
	echo "# run-all: $((SECONDS - t0)) s"
}

# Until tests/vm/ktap-summary.sh exists: echo, count top-level results.
fallback_summary() {
	awk '{ print } /^ok [0-9]+ / { p++ } /^not ok [0-9]+ / { f++ }
	     END { printf "%d passed, %d failed\n", p, f; exit f > 0 || p == 0 }'
}

if [[ -x $SUMMARY || -f $SUMMARY ]]; then
	main | bash "$SUMMARY"
else
	main | fallback_summary
fi
rcs=("${PIPESTATUS[@]}")
((rcs[0] == 0 && rcs[1] == 0))
