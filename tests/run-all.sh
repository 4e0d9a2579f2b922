#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-all.sh: what `make check` runs. Installs the dependencies, builds
# everything, compile-checks against the 6.12 headers, runs the unit tests
# (tests/unit, user space), then runs the whole netns suite
# (tests/guest-suite.sh) in one QEMU guest. Prints KTAP, ends
# with exactly one `N passed, N failed` line and exits non-zero on any
# failure.
#
# Then a few of those tests again in a guest running Debian's 6.12 kernel
# (tests/guest-612.sh), and the multi-VM tests (tests/multi/*.sh, several
# kernels on one shared pool), each on the host, each one KTAP subtest.
#
# Env: DRACK_KVER (make check KVER=...: build for and boot that installed
# kernel instead of the newest 6.1; then the 6.12 smoke step is skipped),
# DRACK_GUEST_TIMEOUT (3000 s), DRACK_TESTS (a subset, e.g. "basic mtu";
# then no multi-VM test unless DRACK_MULTI names some), DRACK_MULTI (the
# multi-VM tests, e.g. "rack4"; default all, or none with DRACK_TESTS).
set -u
cd "$(dirname "$0")/.." || exit 2

SUMMARY=tests/vm/ktap-summary.sh
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
		# The kernel's own driver tests, for tests/net/drv_net.sh.
		bash tests/kernel-selftests.sh 2>&1 | prefixed
		echo "# --- guest: tools/rack/run-guest.sh --timeout $GUEST_TIMEOUT -- bash tests/guest-suite.sh"
		rc=0
		tools/rack/run-guest.sh --timeout "$GUEST_TIMEOUT" --name drack-check -- \
			bash tests/guest-suite.sh --first "$first" --no-header "${tests[@]}" \
			2>"$WORK/guest.err" </dev/null | tee "$WORK/guest.out" || rc=${PIPESTATUS[0]}
		prefixed <"$WORK/guest.err"
		# Results the guest never printed (it hung, died or timed out).
		local i=0
		for g in "${tests[@]}"; do
			if ! grep -qE "^(not )?ok $((first + i)) " "$WORK/guest.out"; then
				echo "not ok $((first + i)) $g"
				echo "# not run: the guest ended first (run-guest.sh rc $rc)"
			fi
			i=$((i + 1))
		done
		N=$((first + ${#tests[@]} - 1))
		# The guest itself: booted, finished in time, clean kernel log.
		if ((rc == 124)) && grep -q 'kernel locked up' "$WORK/guest.err"; then
			result 1 guest_vm "the guest's kernel locked up: stopped (see above)"
		elif ((rc == 124)); then
			result 1 guest_vm "guest timed out after $GUEST_TIMEOUT s"
		elif ((rc == 125)); then
			result 1 guest_vm "guest died (run-guest.sh rc 125)"
		elif grep -q 'kernel log shows a problem' "$WORK/guest.err"; then
			result 1 guest_vm "the guest's kernel log shows a problem (see above)"
		elif ! grep -q '^# guest suite: ' "$WORK/guest.out"; then
			result 1 guest_vm "the guest suite did not run to its end (rc $rc)"
		else
			result 0 guest_vm
		fi
	fi
	# A few guest tests again on Debian's 6.12 kernel (full runs only).
	if ((build)); then
		result 1 guest_612 "not run: the build failed"
	elif [[ -n ${DRACK_TESTS:-} ]]; then
		N=$((N + 1))
		echo "ok $N guest_612 # SKIP with DRACK_TESTS"
	elif [[ ${DRACK_KVER:-} == 6.12.* ]]; then
		N=$((N + 1))
		echo "ok $N guest_612 # SKIP the whole suite ran on $DRACK_KVER"
	else
		step guest_612 bash tests/guest-612.sh || true
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
