#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# packages.sh: the Debian packages, end to end (`make deb-check`).
#
# deb     `make deb`: dpkg-buildpackage -us -uc -b in a scratch copy, the
#         packages in .build-deb/
# guest   a QEMU guest installs them with dpkg and runs a two-host rack
#         (netns) from the installed paths only, the build tree hidden
#         (tests/pkg/guest.sh)
# rack    on this host, in a private mount namespace (nothing of it stays):
#         dpkg -i, `dkms install` for every kernel with headers, and the
#         installed drack-rack's two QEMU VMs (tests/pkg/host-rack.sh)
#
# KTAP on stdout, the guest's results nested; exit status non-zero on any
# failure. Env: DRACK_PKG_TIMEOUT (the guest's, default 900 s), DRACK_DEBS (a
# directory with the .debs: test those, build nothing).
#
# What breaks it: debian/ out of step with the Makefiles (deb), and what
# tests/pkg/guest.sh and tests/pkg/host-rack.sh list.

# Not -e: every step reports its own result and the next one still runs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
TOP=$PWD
TIMEOUT=${DRACK_PKG_TIMEOUT:-900}
T0=$SECONDS

# The guest hides $TOP, so the work directory must be outside it.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/drack-pkg.XXXXXX") || exit 2
[[ $WORK != "$TOP"/* ]] || { rm -rf "$WORK"; WORK=$(mktemp -d /tmp/drack-pkg.XXXXXX) || exit 2; }
trap 'rm -rf "$WORK"' EXIT

N=0 FAILED=0
result() { # RC NAME [WHY]
	N=$((N + 1))
	if (($1 == 0)); then
		echo "ok $N $2"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $2"
		[[ -z ${3:-} ]] || echo "# $3"
	fi
}

# step NAME CMD...: CMD's output as diagnostics (all of it on failure, the
# tail otherwise), one result
step() {
	local name=$1 rc=0 t0=$SECONDS out=$WORK/$1.log; shift
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	if ((rc)); then
		sed 's/^/# /' "$out"
	else
		tail -n 3 "$out" | sed 's/^/# /'
	fi
	echo "# $name: rc $rc, $((SECONDS - t0)) s"
	result "$rc" "$name" "$* failed (rc $rc)"
	return "$rc"
}

echo "KTAP version 1"
echo "1..3"

DEBS=${DRACK_DEBS:-$TOP/.build-deb}
if [[ -n ${DRACK_DEBS:-} ]]; then
	N=$((N + 1))
	echo "ok $N deb # SKIP the .debs in $DRACK_DEBS"
else
	step deb make -s deb
fi

# The guest gets the .debs and a copy of the test helpers, nothing else.
share_prepare() {
	local share=$WORK/share
	mkdir -p "$share"/{debs,tests/net,tests/pkg,tools/rack} || return 1
	cp "$DEBS"/drack-dkms_*.deb "$DEBS"/drack-tools_*.deb "$DEBS"/libdrack1_*.deb \
		"$DEBS"/libdrack-dev_*.deb "$share/debs/" || return 1
	cp tests/net/lib.sh "$share/tests/net/" && cp tools/rack/addr.sh "$share/tools/rack/" &&
		cp tests/pkg/guest.sh "$share/tests/pkg/"
}
guest() {
	local rc=0 t0=$SECONDS
	echo "# --- guest: install the packages, a two-host rack from /usr"
	share_prepare || { result 1 guest "cannot prepare the guest's share"; return 1; }
	# cwd outside the tree: the guest starts there.
	(cd "$WORK" && "$TOP/tools/rack/run-guest.sh" --timeout "$TIMEOUT" --mem 2048 --name pkg \
		--share "$WORK/share" -- "bash /hostshare/tests/pkg/guest.sh /hostshare/debs $TOP") \
		</dev/null 2>"$WORK/guest.err" | sed -u 's/^/    /' || rc=${PIPESTATUS[0]}
	sed 's/^/# /' "$WORK/guest.err"
	echo "# guest: rc $rc, $((SECONDS - t0)) s"
	result "$rc" guest "run-guest.sh rc $rc (124: timeout, 125: the guest died, 1: a failed check or kernel log problem)"
}
guest

# On this host, in a private mount namespace: dkms install for every
# kernel, the installed rack launcher's VMs.
rack() {
	local rc=0 t0=$SECONDS
	echo "# --- rack: the packages in a private mount namespace, drack-rack's VMs"
	bash tests/pkg/host-rack.sh "$DEBS" "$TOP" "$WORK" </dev/null 2>&1 | sed -u 's/^/    /' ||
		rc=${PIPESTATUS[0]}
	echo "# rack: rc $rc, $((SECONDS - t0)) s"
	result "$rc" rack "tests/pkg/host-rack.sh failed (rc $rc)"
}
rack

echo "# packages: $((SECONDS - T0)) s"
((FAILED == 0))
